// Concat: each operand copied into its stretch of the output along the
// axis, one strided copy (strided_copy.cu) per operand on the stream.

#include <memory>
#include <vector>

#include "backends/cuda/kernels/strided_copy_host.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

class ConcatKernel : public AttrsKernel<ConcatAttrs> {
 public:
  using AttrsKernel::AttrsKernel;

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    Tensor& out = *outputs[0];
    if (out.num_elements() == 0) return absl::OkStatus();
    const int rank = out.shape().rank();
    const int64_t a = attrs().axis;
    const int axis = static_cast<int>(a < 0 ? a + rank : a);
    const size_t element = DTypeSize(out.dtype());
    const std::vector<int64_t> out_strides =
        kernels::ContiguousStrides(out.shape().dims());
    SY_RETURN_IF_ERROR(device().Activate());
    int64_t offset = 0;  // along the axis
    for (const Tensor* in : inputs) {
      if (in->num_elements() > 0) {
        SY_RETURN_IF_ERROR(RunStridedCopy(
            device(), "concat",
            out.data<char>() + offset * out_strides[axis] * element,
            in->data<void>(), element, in->shape().dims(), out_strides,
            kernels::ContiguousStrides(in->shape().dims())));
      }
      offset += in->shape().dim(axis);
    }
    return absl::OkStatus();
  }

};

[[maybe_unused]] const bool kRegistered =
    RegisterEveryDType("concat", &MakeWithAttrs<ConcatAttrs, ConcatKernel>);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
