#ifndef SWITCHYARD_DATA_LOADER_STAGES_H_
#define SWITCHYARD_DATA_LOADER_STAGES_H_

#include <chrono>
#include <vector>

namespace switchyard {
namespace data {

// The stages a sample goes through on a loader thread, in order (eval
// pipeline: read, decode, resize, crop, normalize, batch; train pipeline:
// read, decode, crop, resize, flip, normalize, batch). The device upload
// ("copy to the device") happens once per batch on the driver thread and is
// a profiler copy event, not a stage here.
enum class LoaderStage { kRead, kDecode, kResize, kCrop, kFlip, kNormalize, kBatch };
inline constexpr int kNumLoaderStages = 7;

// "read", "decode", "resize", "crop", "flip", "normalize", "batch".
const char* LoaderStageName(LoaderStage stage);

// One stage of one sample on the host's steady clock.
struct StageSpan {
  LoaderStage stage;
  std::chrono::steady_clock::time_point start, end;
};

// Appends a span for `stage` that started at `start` and ends now; returns
// now (the next stage's start).
std::chrono::steady_clock::time_point EndStage(
    LoaderStage stage, std::chrono::steady_clock::time_point start,
    std::vector<StageSpan>* spans);

}  // namespace data
}  // namespace switchyard

#endif  // SWITCHYARD_DATA_LOADER_STAGES_H_
