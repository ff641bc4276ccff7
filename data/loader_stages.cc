#include "data/loader_stages.h"

namespace switchyard {
namespace data {

const char* LoaderStageName(LoaderStage stage) {
  switch (stage) {
    case LoaderStage::kRead:
      return "read";
    case LoaderStage::kDecode:
      return "decode";
    case LoaderStage::kResize:
      return "resize";
    case LoaderStage::kCrop:
      return "crop";
    case LoaderStage::kFlip:
      return "flip";
    case LoaderStage::kNormalize:
      return "normalize";
    case LoaderStage::kBatch:
      return "batch";
  }
  return "?";
}

std::chrono::steady_clock::time_point EndStage(LoaderStage stage,
                                               std::chrono::steady_clock::time_point start,
                                               std::vector<StageSpan>* spans) {
  const auto now = std::chrono::steady_clock::now();
  if (spans != nullptr) spans->push_back({stage, start, now});
  return now;
}

}  // namespace data
}  // namespace switchyard
