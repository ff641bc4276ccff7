// The unary elementwise ops in float32 (kernels/elementwise_family.cu);
// attributes rounded to float once, when the kernel is made.

#include <memory>

#include "backends/cuda/kernels/elementwise_family_launch.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "ops/elementwise_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

using kernels::UnaryCoefficients;
using kernels::UnaryOp;

class UnaryKernel : public Kernel {
 public:
  UnaryKernel(CudaDevice& device, UnaryOp op, UnaryCoefficients c)
      : device_(device), op_(op), c_(c) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchUnary(op_, inputs[0]->data<float>(),
                             outputs[0]->data<float>(),
                             outputs[0]->num_elements(), c_, device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  UnaryOp op_;
  UnaryCoefficients c_;
};

template <UnaryOp kOp>
absl::StatusOr<std::unique_ptr<Kernel>> MakeUnary(const Node& node,
                                                  const Graph&,
                                                  CudaDevice& device) {
  UnaryCoefficients c;
  if constexpr (kOp == UnaryOp::kHardSigmoid) {
    SY_ASSIGN_OR_RETURN(HardSigmoidAttrs a, HardSigmoidAttrs::FromAttrMap(node.attrs));
    c.alpha = static_cast<float>(a.alpha);
    c.beta = static_cast<float>(a.beta);
  } else if constexpr (kOp == UnaryOp::kLeakyRelu) {
    SY_ASSIGN_OR_RETURN(LeakyReluAttrs a, LeakyReluAttrs::FromAttrMap(node.attrs));
    c.alpha = static_cast<float>(a.alpha);
  } else if constexpr (kOp == UnaryOp::kClip) {
    SY_ASSIGN_OR_RETURN(ClipAttrs a, ClipAttrs::FromAttrMap(node.attrs));
    c.low = static_cast<float>(a.min);
    c.high = static_cast<float>(a.max);
  }
  return std::make_unique<UnaryKernel>(device, kOp, c);
}

SY_REGISTER_KERNEL(CudaKernels(), "sigmoid", DType::kFloat32,
                   &MakeUnary<UnaryOp::kSigmoid>);
SY_REGISTER_KERNEL(CudaKernels(), "erf", DType::kFloat32,
                   &MakeUnary<UnaryOp::kErf>);
SY_REGISTER_KERNEL(CudaKernels(), "sqrt", DType::kFloat32,
                   &MakeUnary<UnaryOp::kSqrt>);
SY_REGISTER_KERNEL(CudaKernels(), "exp", DType::kFloat32,
                   &MakeUnary<UnaryOp::kExp>);
SY_REGISTER_KERNEL(CudaKernels(), "tanh", DType::kFloat32,
                   &MakeUnary<UnaryOp::kTanh>);
SY_REGISTER_KERNEL(CudaKernels(), "neg", DType::kFloat32,
                   &MakeUnary<UnaryOp::kNeg>);
SY_REGISTER_KERNEL(CudaKernels(), "abs", DType::kFloat32,
                   &MakeUnary<UnaryOp::kAbs>);
SY_REGISTER_KERNEL(CudaKernels(), "reciprocal", DType::kFloat32,
                   &MakeUnary<UnaryOp::kReciprocal>);
SY_REGISTER_KERNEL(CudaKernels(), "hard_sigmoid", DType::kFloat32,
                   &MakeUnary<UnaryOp::kHardSigmoid>);
SY_REGISTER_KERNEL(CudaKernels(), "hard_swish", DType::kFloat32,
                   &MakeUnary<UnaryOp::kHardSwish>);
SY_REGISTER_KERNEL(CudaKernels(), "clip", DType::kFloat32,
                   &MakeUnary<UnaryOp::kClip>);
SY_REGISTER_KERNEL(CudaKernels(), "leaky_relu", DType::kFloat32,
                   &MakeUnary<UnaryOp::kLeakyRelu>);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
