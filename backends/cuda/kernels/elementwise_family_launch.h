#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_ELEMENTWISE_FAMILY_LAUNCH_H_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_ELEMENTWISE_FAMILY_LAUNCH_H_

// Launchers of the elementwise family's device code (elementwise_family.cu):
// the binary arithmetic ops with numpy broadcasting, the unary ops and cast.
// Plain C++ for the host side: device pointers, sizes and a stream in, the
// launch's cudaError_t out (cudaGetLastError after the launch). Empty work
// launches nothing and succeeds.
//
//   BroadcastIndexing b = ...;  // from ops/broadcast.h's BroadcastLayout
//   cudaError_t e = LaunchBinary(BinaryOp::kAdd, a, b_ptr, out, n, &b, stream);

#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// The most merged broadcast dimensions a launch takes (BroadcastLayout
// merges what it can; more than this is refused before launch).
inline constexpr int kMaxBroadcastRank = 6;

// A BroadcastLayout of two operands, by value for the kernel's parameters.
struct BroadcastIndexing {
  int rank = 0;
  int64_t dims[kMaxBroadcastRank] = {};
  int64_t strides_a[kMaxBroadcastRank] = {};
  int64_t strides_b[kMaxBroadcastRank] = {};
};

enum class BinaryOp : int { kAdd, kSub, kMul, kDiv, kPow };

// out[i] = a op b over n outputs, float32. `broadcast` null: a, b and out
// have one shape (a vectorised loop); else each output's operand offsets
// come from its multi-index.
cudaError_t LaunchBinary(BinaryOp op, const float* a, const float* b,
                         float* out, int64_t n,
                         const BroadcastIndexing* broadcast,
                         cudaStream_t stream);

enum class UnaryOp : int {
  kSigmoid, kErf, kSqrt, kExp, kTanh, kNeg, kAbs, kReciprocal,
  kHardSigmoid, kHardSwish, kClip, kLeakyRelu,
};

// The attributes, already float: alpha and beta (hard_sigmoid,
// leaky_relu), low and high (clip).
struct UnaryCoefficients {
  float alpha = 0, beta = 0, low = 0, high = 0;
};

// out = op(in) over n float32 elements; NaN stays NaN.
cudaError_t LaunchUnary(UnaryOp op, const float* in, float* out, int64_t n,
                        UnaryCoefficients c, cudaStream_t stream);

// The dtypes cast runs in on CUDA.
enum class CastType : int { kFloat32, kFloat16, kInt32, kInt64 };

// out[i] = in[i] converted, by ops/elementwise_attrs.h's CastAttrs rules:
// floating -> integer truncates and saturates, NaN -> 0; integer -> integer
// wraps; -> float16 rounds to nearest even (overflow to inf).
cudaError_t LaunchCast(const void* in, CastType from, void* out, CastType to,
                       int64_t n, cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_ELEMENTWISE_FAMILY_LAUNCH_H_
