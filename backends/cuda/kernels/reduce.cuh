#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_REDUCE_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_REDUCE_CUH_

// Launcher of reduce.cu, the reduce ops' passes (ops/reduce_geometry.h
// ReducePasses). Plain C++ as every kernels/*.cuh: device pointers, sizes
// and a stream in, the launch's cudaError_t out; empty work launches
// nothing and succeeds.
//
//   cudaError_t e = LaunchReducePass(ReduceKind::kSum, x, y, outer, n, inner,
//                                    1.0f, /*chunks=*/1, n, nullptr, stream);

#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// One reduction pass: in as [outer, n, inner] reduced over n into out
// [outer, inner], each result divided by `divisor` (the mean's count on its
// last pass; 1 otherwise). max and min propagate NaN; an empty pass (n ==
// 0) writes 0, -inf, +inf or 1 (prod).
//
// chunks > 1 (backends/cuda/reduce_plan.h, PlanReduceSplit): two launches.
// The first reduces each chunk of n (chunk_length long, the last shorter)
// into `partial`, [outer, chunks, inner] floats; the second reduces
// `partial` over its chunks into out and divides. chunks == 1: one launch,
// chunk_length and partial unused.
enum class ReduceKind { kSum, kMax, kMin, kProd };
cudaError_t LaunchReducePass(ReduceKind kind, const float* in, float* out,
                             int64_t outer, int64_t n, int64_t inner,
                             float divisor, int64_t chunks,
                             int64_t chunk_length, float* partial,
                             cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_REDUCE_CUH_
