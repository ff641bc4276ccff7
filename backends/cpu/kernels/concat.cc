// Concat: each operand copied into its stretch of the output along the
// axis, as one strided copy (rows of contiguous runs, strided_copy.h).

#include <memory>
#include <vector>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/strided_copy.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace cpu {
namespace {

class ConcatKernel : public Kernel {
 public:
  ConcatKernel(const ConcatAttrs& attrs, const CpuDevice& device)
      : axis_(attrs.axis), context_(device.context()) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    Tensor& out = *outputs[0];
    if (out.num_elements() == 0) return absl::OkStatus();
    const int rank = out.shape().rank();
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    const size_t element = DTypeSize(out.dtype());
    const std::vector<int64_t> out_strides =
        ContiguousStrides(out.shape().dims());
    int64_t offset = 0;  // along the axis
    for (const Tensor* in : inputs) {
      if (in->num_elements() > 0) {
        StridedCopy copy;
        copy.dims = in->shape().dims();
        copy.dst_strides = out_strides;
        copy.src_strides = ContiguousStrides(copy.dims);
        RunStridedCopy(*context_,
                       out.data<char>() + offset * out_strides[axis] * element,
                       in->data<char>(), element, copy);
      }
      offset += in->shape().dim(axis);
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_;
  std::shared_ptr<const CpuContext> context_;
};

SY_REGISTER_KERNEL_FOR_DTYPES(
    CpuKernels(), "concat",
    &MakeKernelWithAttrs<ConcatKernel, ConcatAttrs, CpuDevice>);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
