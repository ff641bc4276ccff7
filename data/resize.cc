#include "data/resize.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace switchyard {
namespace data {
namespace {

// One output coordinate's two source indices and weights, as PyTorch's
// upsample_bilinear2d computes them (float arithmetic, same order).
struct Tap {
  int i0, i1;
  float w0, w1;
};

std::vector<Tap> Taps(int in, int out) {
  std::vector<Tap> taps(out);
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  for (int o = 0; o < out; ++o) {
    float src = scale * (static_cast<float>(o) + 0.5f) - 0.5f;
    if (src < 0) src = 0;
    const int i0 = static_cast<int>(src);  // src >= 0: truncation is floor
    const float lambda = std::min(std::max(src - static_cast<float>(i0), 0.0f), 1.0f);
    taps[o] = {i0, i0 < in - 1 ? i0 + 1 : i0, 1.0f - lambda, lambda};
  }
  return taps;
}

}  // namespace

void ShorterSideSize(int width, int height, int size, int* out_width, int* out_height) {
  const int64_t s = size;
  if (width <= height) {
    *out_width = size;
    *out_height = static_cast<int>(static_cast<double>(s * height) / width);
  } else {
    *out_height = size;
    *out_width = static_cast<int>(static_cast<double>(s * width) / height);
  }
}

Image ResizeBilinear(const Image& image, int width, int height) {
  Image out(width, height);
  if (image.empty() || width <= 0 || height <= 0) return out;
  const std::vector<Tap> xs = Taps(image.width, width);
  const std::vector<Tap> ys = Taps(image.height, height);
  // PyTorch's h0 * (w0 * a + w1 * b) + h1 * (w0 * c + w1 * d) is separable
  // with the same float operations: the horizontal part of each source row
  // once (two rows kept, as output rows walk down the image), then the
  // vertical blend per output row.
  const size_t n = static_cast<size_t>(width) * 3;
  std::vector<float> rows[2] = {std::vector<float>(n), std::vector<float>(n)};
  int cached[2] = {-1, -1};
  auto horizontal = [&](int source_row, std::vector<float>& dest) {
    const uint8_t* r = image.at(source_row, 0);
    float* d = dest.data();
    for (int x = 0; x < width; ++x) {
      const Tap& t = xs[x];
      const uint8_t* a = r + t.i0 * 3;
      const uint8_t* b = r + t.i1 * 3;
      d[x * 3 + 0] = t.w0 * a[0] + t.w1 * b[0];
      d[x * 3 + 1] = t.w0 * a[1] + t.w1 * b[1];
      d[x * 3 + 2] = t.w0 * a[2] + t.w1 * b[2];
    }
  };
  // The buffer holding source row `r` (computed if it is not cached),
  // never the one in `keep`.
  auto row = [&](int r, int keep) -> const float* {
    for (int k = 0; k < 2; ++k) {
      if (cached[k] == r) return rows[k].data();
    }
    const int k = keep == 0 ? 1 : 0;
    horizontal(r, rows[k]);
    cached[k] = r;
    return rows[k].data();
  };
  for (int y = 0; y < height; ++y) {
    const Tap& ty = ys[y];
    const float* r0 = row(ty.i0, -1);
    const int k0 = cached[0] == ty.i0 ? 0 : 1;
    const float* r1 = row(ty.i1, k0);
    uint8_t* o = out.at(y, 0);
    for (size_t i = 0; i < n; ++i) {
      // torch.round: half to even (the default rounding mode).
      o[i] = static_cast<uint8_t>(std::nearbyint(ty.w0 * r0[i] + ty.w1 * r1[i]));
    }
  }
  return out;
}

}  // namespace data
}  // namespace switchyard
