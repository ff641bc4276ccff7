#include "backends/dnnl/dnnl_channel_scale.h"

#include <omp.h>

#include <algorithm>

namespace switchyard {
namespace onednn {

void ChannelScale(const ChannelScalePlan& plan, const float* x, const float* s,
                  float* out, int threads) {
  const int64_t c = plan.channels;
  const int64_t pixels = plan.batch * plan.pixels;
  // Runs of whole pixels, a few per thread so that no thread waits long.
  const int64_t run = std::max<int64_t>(1, pixels / (8 * std::max(1, threads)));
  const int64_t runs = (pixels + run - 1) / run;
#pragma omp parallel for num_threads(std::max(1, threads)) schedule(static)
  for (int64_t r = 0; r < runs; ++r) {
    const int64_t end = std::min(pixels, (r + 1) * run);
    for (int64_t p = r * run; p < end; ++p) {
      const float* factor = s + (plan.per_image ? p / plan.pixels * c : 0);
      const float* in = x + p * c;
      float* o = out + p * c;
#pragma omp simd
      for (int64_t j = 0; j < c; ++j) o[j] = in[j] * factor[j];
    }
  }
}

}  // namespace onednn
}  // namespace switchyard
