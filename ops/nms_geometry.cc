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

}  // namespace switchyard
