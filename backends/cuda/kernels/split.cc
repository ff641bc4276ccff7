// Split: each output copied from its stretch of the input along the axis,
// one strided copy (shape_ops.cu) per output on the stream.

#include <memory>
#include <vector>

#include "backends/cuda/kernels/strided_copy_kernel.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

class SplitKernel : public Kernel {
 public:
  SplitKernel(CudaDevice& device, int64_t axis) : device_(device), axis_(axis) {}

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

[[maybe_unused]] const bool kRegistered = RegisterEveryDType(
    "split",
    [](const Node& node, const Graph&,
       CudaDevice& device) -> absl::StatusOr<std::unique_ptr<Kernel>> {
      SY_ASSIGN_OR_RETURN(SplitAttrs attrs, SplitAttrs::FromAttrMap(node.attrs));
      return std::make_unique<SplitKernel>(device, attrs.axis);
    });

}  // namespace
}  // namespace cuda
}  // namespace switchyard
