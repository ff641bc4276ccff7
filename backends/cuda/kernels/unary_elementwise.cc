// The unary elementwise ops (ops/unary_functors.h's SY_UNARY_ELEMENTWISE_OPS)
// in float32, one kernel class over the functors (device code:
// unary_elementwise.cu); attributes rounded to float once, when the kernel
// is made.

#include <memory>

#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/unary_elementwise.cuh"
#include "ops/functor_attrs.h"
#include "ops/unary_functors.h"

namespace switchyard {
namespace cuda {
namespace {

template <typename F>
class UnaryKernel : public Kernel {
 public:
  UnaryKernel(CudaDevice& device, F f) : device_(device), f_(f) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchUnary(f_, inputs[0]->data<float>(),
                             outputs[0]->data<float>(),
                             outputs[0]->num_elements(), device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  F f_;
};

template <typename F, typename Attrs>
absl::StatusOr<std::unique_ptr<Kernel>> MakeUnary(const Node& node,
                                                  const Graph&,
                                                  CudaDevice& device) {
  SY_ASSIGN_OR_RETURN(F f, (FunctorFromAttrs<F, Attrs>(node.attrs)));
  return std::make_unique<UnaryKernel<F>>(device, f);
}

#define SY_REGISTER_UNARY(op, Functor, Types, flops, Attrs)      \
  SY_REGISTER_KERNEL(CudaKernels(), op, DType::kFloat32,         \
                     (&MakeUnary<unary::Functor<float>, Attrs>));
SY_UNARY_ELEMENTWISE_OPS(SY_REGISTER_UNARY)
#undef SY_REGISTER_UNARY

}  // namespace
}  // namespace cuda
}  // namespace switchyard
