#include "data/crop.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace switchyard {
namespace data {

Image Crop(const Image& image, const CropBox& box) {
  Image out(box.width, box.height);  // zero-filled
  const int x0 = std::max(box.left, 0);
  const int x1 = std::min(box.left + box.width, image.width);
  if (x1 <= x0) return out;
  for (int y = 0; y < box.height; ++y) {
    const int sy = box.top + y;
    if (sy < 0 || sy >= image.height) continue;
    std::memcpy(out.at(y, x0 - box.left), image.at(sy, x0),
                static_cast<size_t>(x1 - x0) * 3);
  }
  return out;
}

CropBox CenterCropBox(int width, int height, int size) {
  // Pad (left/top gets the floor of half the shortfall), then centre in the
  // padded image, then shift back to the original's coordinates.
  const int pad_left = size > width ? (size - width) / 2 : 0;
  const int pad_top = size > height ? (size - height) / 2 : 0;
  const int padded_w = std::max(width, size);
  const int padded_h = std::max(height, size);
  CropBox box;
  box.top = static_cast<int>(std::nearbyint((padded_h - size) / 2.0)) - pad_top;
  box.left = static_cast<int>(std::nearbyint((padded_w - size) / 2.0)) - pad_left;
  box.height = size;
  box.width = size;
  return box;
}

CropBox RandomResizedCropBox(int width, int height, SampleRandom& random,
                             double scale_min, double scale_max, double ratio_min,
                             double ratio_max) {
  const double area = static_cast<double>(width) * height;
  const double log_min = std::log(ratio_min), log_max = std::log(ratio_max);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target = area * random.Uniform(scale_min, scale_max);
    const double aspect = std::exp(random.Uniform(log_min, log_max));
    const int w = static_cast<int>(std::nearbyint(std::sqrt(target * aspect)));
    const int h = static_cast<int>(std::nearbyint(std::sqrt(target / aspect)));
    if (w > 0 && w <= width && h > 0 && h <= height) {
      CropBox box;
      box.top = static_cast<int>(random.Below(height - h + 1));
      box.left = static_cast<int>(random.Below(width - w + 1));
      box.height = h;
      box.width = w;
      return box;
    }
  }
  const double in_ratio = static_cast<double>(width) / height;
  int w = width, h = height;
  if (in_ratio < ratio_min) {
    h = static_cast<int>(std::nearbyint(w / ratio_min));
  } else if (in_ratio > ratio_max) {
    w = static_cast<int>(std::nearbyint(h * ratio_max));
  }
  CropBox box;
  box.top = (height - h) / 2;
  box.left = (width - w) / 2;
  box.height = h;
  box.width = w;
  return box;
}

}  // namespace data
}  // namespace switchyard
