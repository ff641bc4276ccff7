#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_BLOCK_REDUCE_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_BLOCK_REDUCE_CUH_

// Block-wide reductions of the row kernels (reduce.cu, layer_norm.cu,
// softmax.cu): warp shuffles, then one value per warp through shared
// memory. Device code; include only from .cu files.
//
//   __shared__ float scratch[kBlockReduceThreads / 32];
//   const float total = BlockReduce(partial, BlockSum(), 0.0f, scratch);

#include <cmath>

namespace switchyard {
namespace cuda {
namespace kernels {

// Threads per block of the row kernels (a multiple of 32).
constexpr int kBlockReduceThreads = 256;

struct BlockSum {
  __device__ float operator()(float a, float b) const { return a + b; }
};
struct BlockProd {
  __device__ float operator()(float a, float b) const { return a * b; }
};
// NaN propagates: it wins against anything.
struct BlockMax {
  __device__ float operator()(float a, float b) const {
    return (a > b || isnan(a)) ? a : b;  // b NaN: a > b is false
  }
};
struct BlockMin {
  __device__ float operator()(float a, float b) const {
    return (a < b || isnan(a)) ? a : b;
  }
};

// Every thread of the block (blockDim.x == kBlockReduceThreads) passes one
// value and gets op over all of them; `identity` fills the empty lanes.
// `scratch` holds kBlockReduceThreads / 32 floats; it is free again on return.
template <typename Op>
__device__ float BlockReduce(float value, Op op, float identity,
                             float* scratch) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int offset = 16; offset > 0; offset /= 2) {
    value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
  }
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < kBlockReduceThreads / 32 ? scratch[lane] : identity;
    for (int offset = 16; offset > 0; offset /= 2) {
      value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
    }
    if (lane == 0) scratch[0] = value;
  }
  __syncthreads();
  const float result = scratch[0];
  __syncthreads();
  return result;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_BLOCK_REDUCE_CUH_
