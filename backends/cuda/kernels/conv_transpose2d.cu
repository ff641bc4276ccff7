// Device code of conv_transpose2d (conv_transpose2d.cuh): one thread per
// output element in a grid-stride loop, gathering the input elements whose
// taps land on it (ops/conv_transpose_geometry.h's ConvTransposeSource).

#include "backends/cuda/kernels/conv_transpose2d.cuh"

#include <cstdint>

#include "backends/cuda/kernels/grid_stride_loop.cuh"
#include "ops/conv_transpose_geometry.h"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

__global__ void ConvTranspose2dKernel(const float* __restrict__ input,
                                      const float* __restrict__ weight,
                                      const float* __restrict__ bias, float* __restrict__ out,
                                      ConvTranspose2dParams p, int64_t total) {
  const int64_t c_g = p.c / p.groups, o_g = p.o / p.groups;
  SY_GRID_STRIDE_LOOP(i, total) {
    const int64_t ox = i % p.ow;
    const int64_t oy = (i / p.ow) % p.oh;
    const int64_t oc = (i / (p.ow * p.oh)) % p.o;
    const int64_t image = i / (p.ow * p.oh * p.o);
    const int64_t g = oc / o_g, o = oc % o_g;
    float sum = bias != nullptr ? bias[oc] : 0.0f;
    for (int64_t ky = 0; ky < p.kh; ++ky) {
      const int64_t iy = ConvTransposeSource(oy, ky, p.h, p.stride_h, p.pad_top, p.dilation_h);
      if (iy < 0) continue;
      for (int64_t kx = 0; kx < p.kw; ++kx) {
        const int64_t ix =
            ConvTransposeSource(ox, kx, p.w, p.stride_w, p.pad_left, p.dilation_w);
        if (ix < 0) continue;
        for (int64_t ic = g * c_g; ic < (g + 1) * c_g; ++ic) {
          sum += input[((image * p.c + ic) * p.h + iy) * p.w + ix] *
                 weight[((ic * o_g + o) * p.kh + ky) * p.kw + kx];
        }
      }
    }
    out[i] = sum;
  }
}

}  // namespace

cudaError_t LaunchConvTranspose2d(const float* input, const float* weight, const float* bias,
                                  float* out, const ConvTranspose2dParams& params,
                                  cudaStream_t stream) {
  const int64_t total = params.n * params.o * params.oh * params.ow;
  if (total <= 0) return cudaSuccess;
  if (params.groups < 1 || params.c % params.groups != 0 || params.o % params.groups != 0) {
    return cudaErrorInvalidValue;
  }
  ConvTranspose2dKernel<<<Blocks(total), kThreads, 0, stream>>>(input, weight, bias, out,
                                                                params, total);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
