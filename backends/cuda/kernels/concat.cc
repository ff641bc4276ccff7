// Concat: each operand copied into its stretch of the output along the
// axis, one strided copy (shape_ops.cu) per operand on the stream.

#include <memory>
#include <vector>

#include "backends/cuda/kernels/strided_copy_kernel.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

class ConcatKernel : public Kernel {
 public:
  ConcatKernel(CudaDevice& device, int64_t axis)
      : device_(device), axis_(axis) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    Tensor& out = *outputs[0];
    if (out.num_elements() == 0) return absl::OkStatus();
    const int rank = out.shape().rank();
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    const size_t element = DTypeSize(out.dtype());
    const std::vector<int64_t> out_strides =
        kernels::ContiguousStrides(out.shape().dims());
    SY_RETURN_IF_ERROR(device_.Activate());
    int64_t offset = 0;  // along the axis
    for (const Tensor* in : inputs) {
      if (in->num_elements() > 0) {
        SY_RETURN_IF_ERROR(RunStridedCopy(
            device_, "concat",
            out.data<char>() + offset * out_strides[axis] * element,
            in->data<void>(), element, in->shape().dims(), out_strides,
            kernels::ContiguousStrides(in->shape().dims())));
      }
      offset += in->shape().dim(axis);
    }
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  int64_t axis_;
};

[[maybe_unused]] const bool kRegistered = RegisterEveryDType(
    "concat",
    [](const Node& node, const Graph&,
       CudaDevice& device) -> absl::StatusOr<std::unique_ptr<Kernel>> {
      SY_ASSIGN_OR_RETURN(ConcatAttrs attrs,
                          ConcatAttrs::FromAttrMap(node.attrs));
      return std::make_unique<ConcatKernel>(device, attrs.axis);
    });

}  // namespace
}  // namespace cuda
}  // namespace switchyard
