#ifndef SWITCHYARD_DATA_NORMALIZE_H_
#define SWITCHYARD_DATA_NORMALIZE_H_

#include <array>

#include "absl/types/span.h"
#include "data/image.h"

namespace switchyard {
namespace data {

// Per-channel mean and standard deviation of values in [0, 1].
struct Normalization {
  // ImageNet's, as torchvision's models expect.
  std::array<float, 3> mean = {0.485f, 0.456f, 0.406f};
  std::array<float, 3> std = {0.229f, 0.224f, 0.225f};
};

// RGB8 HWC -> float CHW, (v / 255 - mean) / std per channel: torchvision's
// ToTensor + Normalize in the same float32 operations. `out` holds
// 3 * height * width values.
void ToNormalizedChw(const Image& image, const Normalization& norm, absl::Span<float> out);

}  // namespace data
}  // namespace switchyard

#endif  // SWITCHYARD_DATA_NORMALIZE_H_
