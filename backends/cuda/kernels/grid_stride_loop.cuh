#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_GRID_STRIDE_LOOP_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_GRID_STRIDE_LOOP_CUH_

// Launch geometry shared by the .cu files: grid-stride loops over int64
// indices, so any size runs with a bounded grid.

#include <cstdint>

namespace switchyard {
namespace cuda {
namespace kernels {

constexpr int kThreads = 256;
// Enough blocks to fill any current GPU many times over; grid-stride loops
// cover the rest.
constexpr int64_t kMaxBlocks = 1 << 16;

inline unsigned int Blocks(int64_t work) {
  int64_t blocks = (work + kThreads - 1) / kThreads;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  return static_cast<unsigned int>(blocks < 1 ? 1 : blocks);
}

#define SY_GRID_STRIDE_LOOP(i, n)                                         \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) +        \
                   threadIdx.x;                                           \
       i < (n); i += static_cast<int64_t>(blockDim.x) * gridDim.x)

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_GRID_STRIDE_LOOP_CUH_
