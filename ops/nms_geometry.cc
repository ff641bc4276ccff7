#include "ops/nms_geometry.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace switchyard {
namespace {

// A float's bits mapped so that unsigned order is the float order (for
// non-NaN values, with -0 and +0 made equal first).
uint32_t OrderedBits(float value) {
  if (value == 0.0f) value = 0.0f;  // -0 -> +0
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
}

}  // namespace

NmsBox DecodeNmsBox(const float* box, int64_t center_point_box) {
  NmsBox b;
  const double v0 = box[0], v1 = box[1], v2 = box[2], v3 = box[3];
  if (center_point_box == 0) {
    // Two diagonal corners: [y1, x1, y2, x2] in any order.
    b.min0 = std::min(v0, v2);
    b.max0 = std::max(v0, v2);
    b.min1 = std::min(v1, v3);
    b.max1 = std::max(v1, v3);
  } else {
    // [x_center, y_center, width, height]; halving is exact in double.
    b.min0 = v1 - v3 / 2;
    b.max0 = v1 + v3 / 2;
    b.min1 = v0 - v2 / 2;
    b.max1 = v0 + v2 / 2;
  }
  const double extent0 = b.max0 - b.min0;
  const double extent1 = b.max1 - b.min1;
  b.area = extent0 * extent1;
  b.valid = extent0 > 0 && extent1 > 0 && std::isfinite(b.area);  // NaN: false
  if (!b.valid) b = NmsBox();
  return b;
}

int64_t NmsRowsPerClass(int64_t num_boxes, int64_t max_output_boxes_per_class) {
  return std::min(num_boxes, max_output_boxes_per_class);
}

void NmsCandidateOrder(const float* scores, int64_t count,
                       const NonMaxSuppressionAttrs& attrs,
                       std::vector<int64_t>* order) {
  // One 64-bit key per candidate: the complement of the score's ordered
  // bits (so ascending keys are descending scores), then the index; sorting
  // the keys gives score descending, index ascending, with cheap compares.
  std::vector<uint64_t> keys;
  keys.reserve(count);
  const bool threshold = attrs.has_score_threshold();
  for (int64_t i = 0; i < count; ++i) {
    const float s = scores[i];
    if (std::isnan(s)) continue;
    if (threshold && !(s > attrs.score_threshold)) continue;
    keys.push_back(static_cast<uint64_t>(~OrderedBits(s)) << 32 |
                   static_cast<uint64_t>(i));
  }
  std::sort(keys.begin(), keys.end());
  order->resize(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    (*order)[i] = static_cast<int64_t>(keys[i] & 0xffffffffu);
  }
}

double NmsIou(const NmsBox& a, const NmsBox& b) {
  const double w =
      std::max(0.0, std::min(a.max0, b.max0) - std::max(a.min0, b.min0));
  const double h =
      std::max(0.0, std::min(a.max1, b.max1) - std::max(a.min1, b.min1));
  // Stored and reloaded, so that no compiler fuses the product into the
  // subtraction below (GCC contracts a + b - c * d into one FMA even across
  // statements), which would round differently from the vectorized kernels.
  volatile double stored = w * h;
  const double intersection = stored;
  const double sum = a.area + b.area;
  return intersection / (sum - intersection);
}

}  // namespace switchyard
