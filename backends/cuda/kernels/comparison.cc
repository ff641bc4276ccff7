// The comparisons (ops/comparison_functors.h's SY_COMPARISON_OPS) at float32,
// int64, int32 and bool, with numpy broadcasting into bool bytes (device
// code: comparison.cu). The operands' layout is merged once, when the kernel
// is made; a layout of more than kMaxBroadcastRank merged dimensions is
// refused by `supports`, so such a node runs on the CPU under
// --placement=auto.

#include <cstdint>
#include <memory>

#include "absl/strings/str_cat.h"
#include "backends/cuda/kernels/comparison.cuh"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "ops/broadcast.h"
#include "ops/comparison_functors.h"

namespace switchyard {
namespace cuda {
namespace {

using kernels::BroadcastIndexing;
using kernels::kMaxBroadcastRank;

// The broadcast view a launch takes (a scalar output as one element).
absl::StatusOr<BroadcastIndexing> Indexing(const Node& node, const Graph& graph) {
  SY_ASSIGN_OR_RETURN(BroadcastLayout layout, BinaryBroadcastLayout(node, graph));
  if (layout.rank() > kMaxBroadcastRank) {
    return absl::UnimplementedError(absl::StrCat(
        "the broadcast needs ", layout.rank(),
        " dimensions after merging; the CUDA kernel takes at most ", kMaxBroadcastRank));
  }
  BroadcastIndexing b;
  b.rank = layout.rank() == 0 ? 1 : layout.rank();
  b.dims[0] = 1;
  for (int d = 0; d < layout.rank(); ++d) {
    b.dims[d] = layout.dims[d];
    b.strides_a[d] = layout.strides[0][d];
    b.strides_b[d] = layout.strides[1][d];
  }
  return b;
}

absl::Status Supports(const Node& node, const Graph& graph) {
  return Indexing(node, graph).status();
}

template <typename T, typename F>
class ComparisonKernel : public Kernel {
 public:
  ComparisonKernel(CudaDevice& device, BroadcastIndexing indexing)
      : device_(device), indexing_(indexing) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    using S = compare::Stored<T>;
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchComparison(F{}, inputs[0]->data<S>(), inputs[1]->data<S>(),
                                  outputs[0]->data<uint8_t>(), outputs[0]->num_elements(),
                                  indexing_, device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  BroadcastIndexing indexing_;
};

template <template <typename> class Functor, typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeComparison(const Node& node, const Graph& graph,
                                                       CudaDevice& device) {
  SY_ASSIGN_OR_RETURN(BroadcastIndexing indexing, Indexing(node, graph));
  return std::make_unique<ComparisonKernel<T, Functor<T>>>(device, indexing);
}

#define SY_REGISTER_COMPARISON_AT(op, Functor, T)                            \
  SY_REGISTER_KERNEL(CudaKernels(), op, DTypeOf<T>(), &Supports,             \
                     (&MakeComparison<compare::Functor, T>));
#define SY_REGISTER_COMPARISON(op, Functor)          \
  SY_REGISTER_COMPARISON_AT(op, Functor, float)      \
  SY_REGISTER_COMPARISON_AT(op, Functor, int64_t)    \
  SY_REGISTER_COMPARISON_AT(op, Functor, int32_t)    \
  SY_REGISTER_COMPARISON_AT(op, Functor, bool)
SY_COMPARISON_OPS(SY_REGISTER_COMPARISON)
#undef SY_REGISTER_COMPARISON
#undef SY_REGISTER_COMPARISON_AT

}  // namespace
}  // namespace cuda
}  // namespace switchyard
