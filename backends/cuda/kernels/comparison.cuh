#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_COMPARISON_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_COMPARISON_CUH_

// The launcher of the comparisons' device code (comparison.cu), callable
// from plain C++: a functor of ops/comparison_functors.h, device pointers,
// the operands' broadcast view and a stream in, the launch's cudaError_t
// out; empty work launches nothing. comparison.cu instantiates it for every
// op of SY_COMPARISON_OPS at each element type the CUDA kernels take
// (float, int64, int32, bool as bytes).
//
//   BroadcastIndexing b = ...;  // comparison.cc fills it from ops/broadcast.h
//   cudaError_t e = LaunchComparison(compare::Less<float>{}, a, b_ptr, out, n, b,
//                                    stream);

#include <cstdint>

#include "backends/cuda/kernels/binary_elementwise.cuh"
#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// out[i] = f(a at i's offset, b at i's offset) over n bool outputs.
template <typename F, typename S>
cudaError_t LaunchComparison(F f, const S* a, const S* b, uint8_t* out, int64_t n,
                             const BroadcastIndexing& broadcast, cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_COMPARISON_CUH_
