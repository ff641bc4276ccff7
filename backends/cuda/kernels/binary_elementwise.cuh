#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_BINARY_ELEMENTWISE_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_BINARY_ELEMENTWISE_CUH_

// The launcher of the binary arithmetic ops' device code
// (binary_elementwise.cu), callable from plain C++: a functor of
// ops/binary_functors.h at float, device pointers, sizes and a stream in,
// the launch's cudaError_t out. binary_elementwise.cu instantiates it for
// every op of SY_BINARY_ELEMENTWISE_OPS; empty work launches nothing.
//
//   BroadcastIndexing b = ...;  // from ops/broadcast.h's BroadcastLayout
//   cudaError_t e = LaunchBinary(binary::Add<float>{}, a, b_ptr, out, n, &b,
//                                stream);

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

// out[i] = f(a, b) over n float32 outputs. `broadcast` null: a, b and out
// have one shape (a vectorised loop); else each output's operand offsets
// come from its multi-index.
template <typename F>
cudaError_t LaunchBinary(F f, const float* a, const float* b, float* out,
                         int64_t n, const BroadcastIndexing* broadcast,
                         cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_BINARY_ELEMENTWISE_CUH_
