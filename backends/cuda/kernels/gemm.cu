// Batched y = alpha * op(a) op(b) + beta * c: the fallback of matmul and
// gemm for what cuBLASLt cannot take (gemm.cc lists it: k = 0, batches of
// more than 2^31 - 1 matrices, broadcasts needing many tiny calls, no
// heuristic algorithm, no cuBLASLt 13 on the machine). 16 x 16 output tiles
// per block, the K dimension walked in 16-wide tiles staged through shared
// memory, one output element per thread, accumulated in float. Transposes
// and batch broadcasting are strides (GemmParams), so every case is this one
// kernel. Output matrices beyond the grid's z limit are covered by a
// grid-stride loop over z.

#include "backends/cuda/kernels/gemm.cuh"

#include <cstdint>

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

constexpr int kTile = 16;
constexpr int64_t kMaxGridZ = 65535;

__global__ void Gemm(const float* __restrict__ a, const float* __restrict__ b,
                     const float* __restrict__ c, float* __restrict__ y,
                     GemmParams p) {
  __shared__ float a_tile[kTile][kTile + 1];  // +1: no bank conflicts
  __shared__ float b_tile[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t i = static_cast<int64_t>(blockIdx.y) * kTile + ty;
  const int64_t j = static_cast<int64_t>(blockIdx.x) * kTile + tx;
  for (int64_t z = blockIdx.z; z < p.batch_count; z += gridDim.z) {
    // The batch coordinates of z, into each operand's matrix offset.
    int64_t a_offset = 0, b_offset = 0, rest = z;
    for (int d = p.batch_rank - 1; d >= 0; --d) {
      const int64_t coord = rest % p.batch[d];
      rest /= p.batch[d];
      a_offset += coord * p.a_step[d];
      b_offset += coord * p.b_step[d];
    }
    const float* az = a + a_offset;
    const float* bz = b + b_offset;
    float acc = 0.0f;
    for (int64_t t0 = 0; t0 < p.k; t0 += kTile) {
      // Thread (ty, tx) stages op(a)[i, t0 + tx] and op(b)[t0 + ty, j].
      const int64_t ta = t0 + tx, tb = t0 + ty;
      a_tile[ty][tx] =
          (i < p.m && ta < p.k) ? az[i * p.a_row + ta * p.a_col] : 0.0f;
      b_tile[ty][tx] =
          (tb < p.k && j < p.n) ? bz[tb * p.b_row + j * p.b_col] : 0.0f;
      __syncthreads();
      for (int t = 0; t < kTile; ++t) acc += a_tile[ty][t] * b_tile[t][tx];
      __syncthreads();
    }
    if (i < p.m && j < p.n) {
      float value = p.alpha * acc;
      if (c != nullptr) value += p.beta * c[i * p.c_row + j * p.c_col];
      y[(z * p.m + i) * p.n + j] = value;
    }
  }
}

}  // namespace

cudaError_t LaunchGemm(const float* a, const float* b, const float* c, float* y,
                       const GemmParams& params, cudaStream_t stream) {
  if (params.m <= 0 || params.n <= 0 || params.batch_count <= 0) {
    return cudaSuccess;
  }
  const int64_t tiles_x = (params.n + kTile - 1) / kTile;
  const int64_t tiles_y = (params.m + kTile - 1) / kTile;
  // Grid x allows 2^31 - 1 blocks, y and z 65535.
  if (tiles_y > kMaxGridZ || tiles_x > 2147483647) {
    return cudaErrorInvalidConfiguration;
  }
  const dim3 grid(
      static_cast<unsigned int>(tiles_x), static_cast<unsigned int>(tiles_y),
      static_cast<unsigned int>(
          params.batch_count < kMaxGridZ ? params.batch_count : kMaxGridZ));
  Gemm<<<grid, dim3(kTile, kTile), 0, stream>>>(a, b, c, y, params);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
