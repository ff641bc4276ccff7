// Transpose: one strided copy (strided_copy.cu), the output written in order,
// the input read with the permuted strides.

#include <memory>
#include <vector>

#include "backends/cuda/kernels/strided_copy_host.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

class TransposeKernel : public OneToOneAttrsKernel<TransposeAttrs> {
 public:
  using OneToOneAttrsKernel::OneToOneAttrsKernel;

 private:
  absl::Status RunOne(const Tensor& in, Tensor& out) override {
    const std::vector<int64_t> in_strides =
        kernels::ContiguousStrides(in.shape().dims());
    std::vector<int64_t> src_strides;
    for (int64_t p : attrs().perm) src_strides.push_back(in_strides[p]);
    SY_RETURN_IF_ERROR(device().Activate());
    return RunStridedCopy(device(), "transpose", out.data<void>(),
                          in.data<void>(), DTypeSize(in.dtype()),
                          out.shape().dims(),
                          kernels::ContiguousStrides(out.shape().dims()),
                          src_strides);
  }

};

[[maybe_unused]] const bool kRegistered = RegisterEveryDType(
    "transpose", &MakeWithAttrs<TransposeAttrs, TransposeKernel>);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
