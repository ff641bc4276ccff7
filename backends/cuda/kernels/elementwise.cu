// Elementwise device code: the bias fill of a Linear with no input
// features, and the bias + ReLU epilogue of a fused conv2d+relu (relu
// itself is relu.cu).

#include <cstdint>

#include "backends/cuda/kernels/grid.h"
#include "backends/cuda/kernels/launch.h"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

// x <= 0 is false for NaN, so NaN passes through as in PyTorch.
__device__ __forceinline__ float Relu(float x) { return x <= 0.0f ? 0.0f : x; }

__global__ void FillRows(const float* __restrict__ bias, float* __restrict__ out,
                         int64_t rows, int64_t cols) {
  SY_GRID_STRIDE_LOOP(i, rows * cols) {
    out[i] = bias == nullptr ? 0.0f : bias[i % cols];
  }
}

__global__ void BiasReluInPlace(float* __restrict__ out,
                                const float* __restrict__ bias, int64_t n,
                                int64_t channels, int64_t inner) {
  SY_GRID_STRIDE_LOOP(i, n) {
    const float b = bias == nullptr ? 0.0f : bias[(i / inner) % channels];
    out[i] = Relu(out[i] + b);
  }
}

}  // namespace

cudaError_t LaunchFillRows(const float* bias, float* out, int64_t rows,
                           int64_t cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  FillRows<<<Blocks(rows * cols), kThreads, 0, stream>>>(bias, out, rows, cols);
  return cudaGetLastError();
}

cudaError_t LaunchBiasReluInPlace(float* out, const float* bias, int64_t batch,
                                  int64_t channels, int64_t inner,
                                  cudaStream_t stream) {
  const int64_t n = batch * channels * inner;
  if (n <= 0) return cudaSuccess;
  BiasReluInPlace<<<Blocks(n), kThreads, 0, stream>>>(out, bias, n, channels,
                                                      inner);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
