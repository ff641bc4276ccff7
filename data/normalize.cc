#include "data/normalize.h"

#include <cstddef>

namespace switchyard {
namespace data {

void ToNormalizedChw(const Image& image, const Normalization& norm, absl::Span<float> out) {
  const size_t plane = static_cast<size_t>(image.width) * image.height;
  const uint8_t* p = image.pixels.data();
  for (int c = 0; c < 3; ++c) {
    const float mean = norm.mean[c], std = norm.std[c];
    float* o = out.data() + c * plane;
    for (size_t i = 0; i < plane; ++i) {
      o[i] = (static_cast<float>(p[i * 3 + c]) / 255.0f - mean) / std;
    }
  }
}

}  // namespace data
}  // namespace switchyard
