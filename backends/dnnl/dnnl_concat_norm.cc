#include "backends/dnnl/dnnl_concat_norm.h"

#include <omp.h>

#include <algorithm>

namespace switchyard {
namespace onednn {
namespace {

// out[j] = in[j] * scale[j] + shift[j], clamped at 0 when `relu`: a run of
// channels (channels-last). `omp simd` vectorises these loops, which -O2's
// cost model leaves scalar.
inline void NormalizeRun(const float* in, const float* scale, const float* shift,
                         int64_t n, bool relu, float* out) {
  if (relu) {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) out[j] = std::max(0.0f, in[j] * scale[j] + shift[j]);
  } else {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) out[j] = in[j] * scale[j] + shift[j];
  }
}

// out[j] = in[j] * a + b (clamped): a run of one channel (plain layout).
inline void NormalizeChannel(const float* in, float a, float b, int64_t n, bool relu,
                             float* out) {
  if (relu) {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) out[j] = std::max(0.0f, in[j] * a + b);
  } else {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) out[j] = in[j] * a + b;
  }
}

}  // namespace

void ConcatNorm(const ConcatNormPlan& plan, const std::vector<const float*>& sources,
                float* out, int threads) {
  int64_t total = 0;
  for (int64_t c : plan.channels) total += c;
  const int k = static_cast<int>(sources.size());
  const bool relu = plan.relu;
  const float* scale = plan.scale.data();
  const float* shift = plan.shift.data();
  switch (plan.layout) {
    case ConcatNormLayout::kNhwc: {
      // Pixel by pixel: each source's channel run lands at its offset.
      const int64_t pixels = plan.batch * plan.pixels;
#pragma omp parallel for num_threads(threads) schedule(static)
      for (int64_t p = 0; p < pixels; ++p) {
        int64_t offset = 0;
        for (int i = 0; i < k; ++i) {
          const int64_t c = plan.channels[i];
          NormalizeRun(sources[i] + p * c, scale + offset, shift + offset, c, relu,
                       out + p * total + offset);
          offset += c;
        }
      }
      break;
    }
    case ConcatNormLayout::kNchw:
    case ConcatNormLayout::kBlocked8:
    case ConcatNormLayout::kBlocked16: {
      // Plain is blocks of 1: each (image, source, block) is a contiguous
      // run of pixels * block floats, in the output at the source's offset.
      const int64_t block = plan.layout == ConcatNormLayout::kNchw        ? 1
                            : plan.layout == ConcatNormLayout::kBlocked8 ? 8
                                                                         : 16;
      const int64_t run = plan.pixels * block;
      std::vector<int64_t> first_block(k + 1, 0);  // of each source, in the output
      for (int i = 0; i < k; ++i) first_block[i + 1] = first_block[i] + plan.channels[i] / block;
      const int64_t out_blocks = first_block[k];
      const int64_t jobs = plan.batch * out_blocks;
#pragma omp parallel for num_threads(threads) schedule(static)
      for (int64_t job = 0; job < jobs; ++job) {
        const int64_t n = job / out_blocks;
        const int64_t b = job % out_blocks;
        const int i = static_cast<int>(
            std::upper_bound(first_block.begin(), first_block.end(), b) -
            first_block.begin() - 1);
        const int64_t own_blocks = plan.channels[i] / block;
        const float* in = sources[i] + (n * own_blocks + (b - first_block[i])) * run;
        float* o = out + (n * out_blocks + b) * run;
        const int64_t channel = b * block;
        if (block == 1) {
          NormalizeChannel(in, scale[channel], shift[channel], run, relu, o);
        } else {
          for (int64_t p = 0; p < plan.pixels; ++p) {
            NormalizeRun(in + p * block, scale + channel, shift + channel, block, relu,
                         o + p * block);
          }
        }
      }
      break;
    }
  }
}

}  // namespace onednn
}  // namespace switchyard
