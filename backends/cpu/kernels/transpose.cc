// Transpose as a strided copy (strided_copy.h): the output written in
// order, the input read with the permuted strides, in cache-sized tiles
// when the innermost dim moves.

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

class TransposeKernel : public Kernel {
 public:
  TransposeKernel(TransposeAttrs attrs, const CpuDevice& device)
      : perm_(std::move(attrs.perm)), context_(device.context()) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& in = *inputs[0];
    Tensor& out = *outputs[0];
    if (out.num_elements() == 0) return absl::OkStatus();
    const std::vector<int64_t> in_strides = ContiguousStrides(in.shape().dims());
    StridedCopy copy;
    copy.dims = out.shape().dims();
    copy.dst_strides = ContiguousStrides(copy.dims);
    for (int64_t p : perm_) copy.src_strides.push_back(in_strides[p]);
    RunStridedCopy(*context_, out.data<char>(), in.data<char>(),
                   DTypeSize(in.dtype()), copy);
    return absl::OkStatus();
  }

 private:
  std::vector<int64_t> perm_;
  std::shared_ptr<const CpuContext> context_;
};

SY_REGISTER_KERNEL_FOR_DTYPES(
    CpuKernels(), "transpose",
    &MakeKernelWithAttrs<TransposeKernel, TransposeAttrs, CpuDevice>);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
