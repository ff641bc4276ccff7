// Slice as a strided copy (strided_copy.h): the input read from the first
// selected element with stride * step per dim (negative for a reversed
// axis), the output written in order.

#include <memory>
#include <vector>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/strided_copy.h"
#include "core/kernel_registry.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "ops/shape_attrs.h"
#include "ops/shape_geometry.h"

namespace switchyard {
namespace cpu {
namespace {

class SliceKernel : public Kernel {
 public:
  SliceKernel(SliceAttrs attrs, const CpuDevice& device)
      : attrs_(std::move(attrs)), context_(device.context()) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& in = *inputs[0];
    Tensor& out = *outputs[0];
    if (out.num_elements() == 0) return absl::OkStatus();
    SY_ASSIGN_OR_RETURN(std::vector<SliceDim> dims,
                        SliceGeometry(attrs_, in.shape()));
    const std::vector<int64_t> in_strides = ContiguousStrides(in.shape().dims());
    StridedCopy copy;
    copy.dims = out.shape().dims();
    copy.dst_strides = ContiguousStrides(copy.dims);
    int64_t first = 0;
    for (size_t d = 0; d < dims.size(); ++d) {
      first += dims[d].start * in_strides[d];
      // A dim of one element never steps (and a huge step times the
      // stride could overflow).
      copy.src_strides.push_back(
          dims[d].count > 1 ? dims[d].step * in_strides[d] : 0);
    }
    const size_t element = DTypeSize(in.dtype());
    RunStridedCopy(*context_, out.data<char>(),
                   in.data<char>() + first * static_cast<int64_t>(element),
                   element, copy);
    return absl::OkStatus();
  }

 private:
  SliceAttrs attrs_;
  std::shared_ptr<const CpuContext> context_;
};

SY_REGISTER_KERNEL_FOR_DTYPES(
    CpuKernels(), "slice",
    &MakeKernelWithAttrs<SliceKernel, SliceAttrs, CpuDevice>);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
