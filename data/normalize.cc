#include "data/normalize.h"

#include <cstddef>

namespace switchyard {
namespace data {

void ToNormalizedChw(const Image& image, const Normalization& norm, absl::Span<float> out) {
  // A table per channel of (v / 255 - mean) / std for the 256 values of v:
  // the same float operations as torchvision, once per value, not per pixel.
  float table[3][256];
  for (int c = 0; c < 3; ++c) {
    for (int v = 0; v < 256; ++v) {
      table[c][v] = (static_cast<float>(v) / 255.0f - norm.mean[c]) / norm.std[c];
    }
  }
  const size_t plane = static_cast<size_t>(image.width) * image.height;
  const uint8_t* p = image.pixels.data();
  float* r = out.data();
  float* g = r + plane;
  float* b = g + plane;
  for (size_t i = 0; i < plane; ++i) {
    r[i] = table[0][p[i * 3 + 0]];
    g[i] = table[1][p[i * 3 + 1]];
    b[i] = table[2][p[i * 3 + 2]];
  }
}

}  // namespace data
}  // namespace switchyard
