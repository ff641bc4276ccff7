// Slice: one strided copy (strided_copy.cu) from the first selected element
// with stride * step per dim (ops/shape_geometry.h SliceGeometry).

#include <memory>
#include <vector>

#include "backends/cuda/kernels/strided_copy_host.h"
#include "ops/shape_attrs.h"
#include "ops/shape_geometry.h"

namespace switchyard {
namespace cuda {
namespace {

class SliceKernel : public OneToOneAttrsKernel<SliceAttrs> {
 public:
  using OneToOneAttrsKernel::OneToOneAttrsKernel;

 private:
  absl::Status RunOne(const Tensor& in, Tensor& out) override {
    SY_ASSIGN_OR_RETURN(std::vector<SliceDim> dims,
                        SliceGeometry(attrs(), in.shape()));
    const std::vector<int64_t> in_strides =
        kernels::ContiguousStrides(in.shape().dims());
    std::vector<int64_t> src_strides;
    int64_t first = 0;
    for (size_t d = 0; d < dims.size(); ++d) {
      first += dims[d].start * in_strides[d];
      src_strides.push_back(dims[d].count > 1 ? dims[d].step * in_strides[d]
                                              : 0);
    }
    const size_t element = DTypeSize(in.dtype());
    SY_RETURN_IF_ERROR(device().Activate());
    return RunStridedCopy(
        device(), "slice", out.data<void>(),
        in.data<char>() + first * static_cast<int64_t>(element), element,
        out.shape().dims(), kernels::ContiguousStrides(out.shape().dims()),
        src_strides);
  }

};

[[maybe_unused]] const bool kRegistered =
    RegisterEveryDType("slice", &MakeWithAttrs<SliceAttrs, SliceKernel>);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
