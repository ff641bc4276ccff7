// The logical ops on bool tensors (device code: logical.cu). The operands'
// broadcast layout is merged once, when the kernel is made; one of more
// than kMaxShapeRank merged dims is refused, so --placement=auto runs such
// a node on the CPU.

#include <memory>

#include "absl/strings/str_cat.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/logical.cuh"
#include "ops/broadcast.h"
#include "ops/logical_functors.h"

namespace switchyard {
namespace cuda {
namespace {

class NotKernel : public Kernel {
 public:
  explicit NotKernel(CudaDevice& device) : device_(device) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchLogicalNot(inputs[0]->data<uint8_t>(),
                                  outputs[0]->data<uint8_t>(),
                                  outputs[0]->num_elements(), device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
};

absl::StatusOr<kernels::LogicalParams> Params(const Node& node, const Graph& graph) {
  SY_ASSIGN_OR_RETURN(BroadcastLayout layout, BinaryBroadcastLayout(node, graph));
  if (layout.rank() > kernels::kMaxShapeRank) {
    return absl::UnimplementedError(absl::StrCat(
        "the broadcast needs ", layout.rank(),
        " dimensions after merging; the CUDA kernel takes at most ",
        kernels::kMaxShapeRank));
  }
  kernels::LogicalParams p;
  p.rank = layout.rank();
  for (int d = 0; d < layout.rank(); ++d) {
    p.dims[d] = layout.dims[d];
    p.strides[0][d] = layout.strides[0][d];
    p.strides[1][d] = layout.strides[1][d];
  }
  return p;
}

absl::Status Supports(const Node& node, const Graph& graph) {
  return Params(node, graph).status();
}

template <typename F>
class BinaryKernel : public Kernel {
 public:
  BinaryKernel(CudaDevice& device, kernels::LogicalParams params)
      : device_(device), params_(params) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchLogical(F{}, inputs[0]->data<uint8_t>(),
                               inputs[1]->data<uint8_t>(),
                               outputs[0]->data<uint8_t>(), params_,
                               device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  kernels::LogicalParams params_;
};

template <typename F>
absl::StatusOr<std::unique_ptr<Kernel>> MakeBinary(const Node& node,
                                                   const Graph& graph,
                                                   CudaDevice& device) {
  SY_ASSIGN_OR_RETURN(kernels::LogicalParams params, Params(node, graph));
  return std::make_unique<BinaryKernel<F>>(device, params);
}

SY_REGISTER_KERNEL(CudaKernels(), "logical_not", DType::kBool,
                   &MakeKernel<NotKernel, CudaDevice>);
#define SY_REGISTER_LOGICAL(op, Functor)                                \
  SY_REGISTER_KERNEL(CudaKernels(), op, DType::kBool, &Supports,       \
                     &MakeBinary<logical::Functor>);
SY_LOGICAL_BINARY_OPS(SY_REGISTER_LOGICAL)
#undef SY_REGISTER_LOGICAL

}  // namespace
}  // namespace cuda
}  // namespace switchyard
