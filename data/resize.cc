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
  for (int y = 0; y < height; ++y) {
    const Tap& ty = ys[y];
    const uint8_t* r0 = image.at(ty.i0, 0);
    const uint8_t* r1 = image.at(ty.i1, 0);
    uint8_t* o = out.at(y, 0);
    for (int x = 0; x < width; ++x) {
      const Tap& tx = xs[x];
      const int a = tx.i0 * 3, b = tx.i1 * 3;
      for (int c = 0; c < 3; ++c) {
        const float v = ty.w0 * (tx.w0 * r0[a + c] + tx.w1 * r0[b + c]) +
                        ty.w1 * (tx.w0 * r1[a + c] + tx.w1 * r1[b + c]);
        // torch.round: half to even (the default rounding mode).
        o[x * 3 + c] = static_cast<uint8_t>(std::nearbyint(v));
      }
    }
  }
  return out;
}

}  // namespace data
}  // namespace switchyard
