// Split: each output copied from its stretch of the input along the axis,
// one strided copy (strided_copy.cu) per output on the stream.

#include <memory>
#include <vector>

#include "backends/cuda/kernels/strided_copy_host.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

class SplitKernel : public AttrsKernel<SplitAttrs> {
 public:
  using AttrsKernel::AttrsKernel;

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& in = *inputs[0];
    const int rank = in.shape().rank();
    const int64_t a = attrs().axis;
    const int axis = static_cast<int>(a < 0 ? a + rank : a);
    const size_t element = DTypeSize(in.dtype());
    const std::vector<int64_t> in_strides =
        kernels::ContiguousStrides(in.shape().dims());
    SY_RETURN_IF_ERROR(device().Activate());
    int64_t offset = 0;  // along the axis
    for (Tensor* out : outputs) {
      if (out->num_elements() > 0) {
        SY_RETURN_IF_ERROR(RunStridedCopy(
            device(), "split", out->data<void>(),
            in.data<char>() + offset * in_strides[axis] * element, element,
            out->shape().dims(), kernels::ContiguousStrides(out->shape().dims()),
            in_strides));
      }
      offset += out->shape().dim(axis);
    }
    return absl::OkStatus();
  }

};

[[maybe_unused]] const bool kRegistered =
    RegisterEveryDType("split", &MakeWithAttrs<SplitAttrs, SplitKernel>);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
