// Split: each output copied from its stretch of the input along the axis,
// one strided copy (strided_copy.cu) per output on the stream.

#include <memory>
#include <vector>

#include "backends/cuda/kernels/strided_copy_host.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

class SplitKernel : public Kernel {
 public:
  SplitKernel(CudaDevice& device, const SplitAttrs& attrs)
      : device_(device), axis_(attrs.axis) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& in = *inputs[0];
    const int rank = in.shape().rank();
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    const size_t element = DTypeSize(in.dtype());
    const std::vector<int64_t> in_strides =
        kernels::ContiguousStrides(in.shape().dims());
    SY_RETURN_IF_ERROR(device_.Activate());
    int64_t offset = 0;  // along the axis
    for (Tensor* out : outputs) {
      if (out->num_elements() > 0) {
        SY_RETURN_IF_ERROR(RunStridedCopy(
            device_, "split", out->data<void>(),
            in.data<char>() + offset * in_strides[axis] * element, element,
            out->shape().dims(), kernels::ContiguousStrides(out->shape().dims()),
            in_strides));
      }
      offset += out->shape().dim(axis);
    }
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  int64_t axis_;
};

[[maybe_unused]] const bool kRegistered =
    RegisterEveryDType("split", &MakeWithAttrs<SplitAttrs, SplitKernel>);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
