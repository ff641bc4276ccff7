// Transpose: one strided copy (strided_copy.cu), the output written in order,
// the input read with the permuted strides.

#include <memory>
#include <vector>

#include "backends/cuda/kernels/strided_copy_host.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

class TransposeKernel : public Kernel {
 public:
  TransposeKernel(CudaDevice& device, TransposeAttrs attrs)
      : device_(device), perm_(std::move(attrs.perm)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& in = *inputs[0];
    Tensor& out = *outputs[0];
    if (out.num_elements() == 0) return absl::OkStatus();
    const std::vector<int64_t> in_strides =
        kernels::ContiguousStrides(in.shape().dims());
    std::vector<int64_t> src_strides;
    for (int64_t p : perm_) src_strides.push_back(in_strides[p]);
    SY_RETURN_IF_ERROR(device_.Activate());
    return RunStridedCopy(device_, "transpose", out.data<void>(),
                          in.data<void>(), DTypeSize(in.dtype()),
                          out.shape().dims(),
                          kernels::ContiguousStrides(out.shape().dims()),
                          src_strides);
  }

 private:
  CudaDevice& device_;
  std::vector<int64_t> perm_;
};

[[maybe_unused]] const bool kRegistered =
    RegisterEveryDType("transpose", &MakeWithAttrs<TransposeAttrs, TransposeKernel>);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
