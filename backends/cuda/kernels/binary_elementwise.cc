// The binary arithmetic ops (ops/binary_functors.h's
// SY_BINARY_ELEMENTWISE_OPS) in float32 with numpy broadcasting, one kernel
// class over the functors (device code: binary_elementwise.cu). The
// operands' layout is merged once, when the kernel is made (ops/broadcast.h);
// a layout of more than kMaxBroadcastRank merged dimensions is refused by
// `supports`, so such a node falls back to the CPU under --placement=auto.

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/cuda/kernels/binary_elementwise.cuh"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "ops/binary_functors.h"
#include "ops/broadcast.h"
#include "ops/functor_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

using kernels::BroadcastIndexing;
using kernels::kMaxBroadcastRank;

absl::Status Supports(const Node& node, const Graph& graph) {
  SY_ASSIGN_OR_RETURN(BroadcastLayout layout,
                      BinaryBroadcastLayout(node, graph));
  if (layout.rank() > kMaxBroadcastRank) {
    return absl::UnimplementedError(absl::StrCat(
        "the broadcast needs ", layout.rank(),
        " dimensions after merging; the CUDA kernel takes at most ",
        kMaxBroadcastRank));
  }
  return absl::OkStatus();
}

template <typename F>
class BinaryKernel : public Kernel {
 public:
  BinaryKernel(CudaDevice& device, F f,
               std::optional<BroadcastIndexing> broadcast)
      : device_(device), f_(f), broadcast_(broadcast) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchBinary(f_, inputs[0]->data<float>(),
                              inputs[1]->data<float>(), outputs[0]->data<float>(),
                              outputs[0]->num_elements(),
                              broadcast_ ? &*broadcast_ : nullptr,
                              device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  F f_;
  std::optional<BroadcastIndexing> broadcast_;  // none: one shape
};

template <typename F, typename Attrs>
absl::StatusOr<std::unique_ptr<Kernel>> MakeBinary(const Node& node,
                                                   const Graph& graph,
                                                   CudaDevice& device) {
  SY_RETURN_IF_ERROR(Supports(node, graph));
  SY_ASSIGN_OR_RETURN(F f, (FunctorFromAttrs<F, Attrs>(node.attrs)));
  SY_ASSIGN_OR_RETURN(BroadcastLayout layout,
                      BinaryBroadcastLayout(node, graph));
  std::optional<BroadcastIndexing> broadcast;
  if (!layout.SameShape()) {
    BroadcastIndexing b;
    b.rank = layout.rank();
    for (int d = 0; d < layout.rank(); ++d) {
      b.dims[d] = layout.dims[d];
      b.strides_a[d] = layout.strides[0][d];
      b.strides_b[d] = layout.strides[1][d];
    }
    broadcast = b;
  }
  return std::make_unique<BinaryKernel<F>>(device, f, broadcast);
}

#define SY_REGISTER_BINARY(op, Functor, Types, flops, Attrs)          \
  SY_REGISTER_KERNEL(CudaKernels(), op, DType::kFloat32, &Supports,  \
                     (&MakeBinary<binary::Functor<float>, Attrs>));
SY_BINARY_ELEMENTWISE_OPS(SY_REGISTER_BINARY)
#undef SY_REGISTER_BINARY

}  // namespace
}  // namespace cuda
}  // namespace switchyard
