// Split: each output copied from its stretch of the input along the axis,
// as one strided copy (rows of contiguous runs, strided_copy.h).

#include <memory>
#include <vector>

#include "backends/cpu/kernels/shape_kernels.h"
#include "backends/cpu/kernels/strided_copy.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace cpu {
namespace {

class SplitKernel : public Kernel {
 public:
  SplitKernel(int64_t axis, std::shared_ptr<const CpuContext> context)
      : axis_(axis), context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& in = *inputs[0];
    const int rank = in.shape().rank();
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    const size_t element = DTypeSize(in.dtype());
    const std::vector<int64_t> in_strides = ContiguousStrides(in.shape().dims());
    int64_t offset = 0;  // along the axis
    for (Tensor* out : outputs) {
      if (out->num_elements() > 0) {
        StridedCopy copy;
        copy.dims = out->shape().dims();
        copy.dst_strides = ContiguousStrides(copy.dims);
        copy.src_strides = in_strides;
        RunStridedCopy(*context_, out->data<char>(),
                       in.data<char>() + offset * in_strides[axis] * element,
                       element, copy);
      }
      offset += out->shape().dim(axis);
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_;
  std::shared_ptr<const CpuContext> context_;
};

[[maybe_unused]] const bool kRegistered = RegisterEveryDType(
    "split",
    [](const Node& node, const Graph&,
       CpuDevice& device) -> absl::StatusOr<std::unique_ptr<Kernel>> {
      SY_ASSIGN_OR_RETURN(SplitAttrs attrs, SplitAttrs::FromAttrMap(node.attrs));
      return std::make_unique<SplitKernel>(attrs.axis, device.context());
    });

}  // namespace
}  // namespace cpu
}  // namespace switchyard
