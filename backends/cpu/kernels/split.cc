// Split: each output copied from its stretch of the input along the axis,
// as one strided copy (rows of contiguous runs, strided_copy.h).

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

class SplitKernel : public Kernel {
 public:
  SplitKernel(const SplitAttrs& attrs, const CpuDevice& device)
      : axis_(attrs.axis), context_(device.context()) {}

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

SY_REGISTER_KERNEL_FOR_DTYPES(
    CpuKernels(), "split",
    &MakeKernelWithAttrs<SplitKernel, SplitAttrs, CpuDevice>);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
