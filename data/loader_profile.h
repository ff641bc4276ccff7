#ifndef SWITCHYARD_DATA_LOADER_PROFILE_H_
#define SWITCHYARD_DATA_LOADER_PROFILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "core/profiler.h"
#include "data/loader_stages.h"

namespace switchyard {
namespace data {

// How the input pipeline's stages appear in a profile (core/profiler.h), in
// the Chrome trace and for any component that analyses it later:
//
//   one event per sample per stage:
//     kind        ProfileEvent::Kind::kHost
//     lane        "loader <t>"  (t: the loader thread, 0-based; a lane each)
//     op          "loader"      (kLoaderCategory: the category; the Chrome
//                                trace's "cat" and args.op)
//     name        the stage: "read", "decode", "resize", "crop", "flip",
//                 "normalize", "batch" (LoaderStageName)
//     iteration   the batch's index in the stream
//     start_us, duration_us   host steady clock, the profiler's origin
//   one per batch, enclosing its samples' stages on the same lane:
//     kind kHost, op "", name "load batch <index>"
//   the copy to the device, one per batch on the driver thread:
//     kind kCopy, op "h2d", name "input h2d", lane = the device
//
// A sample's stages follow one another without gaps on its lane, so a
// stage's share of a loader's time is its total over the stages' total.
inline constexpr char kLoaderCategory[] = "loader";

// Adds `spans` (loader thread `loader`, batch `batch`) to `profiler` in the
// form above.
void AddLoaderEvents(Profiler& profiler, int loader, int batch,
                     absl::Span<const StageSpan> spans);

// `switchyard run --images --profile-summary`'s loader table: per stage,
// its share of the loaders' time and its ms per sample.
struct LoaderStageRow {
  std::string stage;  // a stage name, or "copy to device"
  int64_t count = 0;  // events
  double total_ms = 0;
  double ms_per_sample = 0;  // total_ms / samples
  double share = 0;          // of all stages' total (0 for the copy)
};
struct LoaderSummary {
  std::vector<LoaderStageRow> stages;  // in pipeline order, stages that ran
  LoaderStageRow copy;                 // "copy to device": the h2d copies
  int64_t samples = 0;                 // images that reached a batch
  int loader_threads = 0;              // distinct loader lanes
  double stage_ms = 0;                 // all stages, all threads
  double ms_per_sample = 0;            // stage_ms / samples
};

// From the events of a profile; `samples` is the number of images batched
// (batches x batch size). A profile without loader events gives no stages.
LoaderSummary SummarizeLoader(absl::Span<const ProfileEvent> events, int64_t samples);

// E.g.
//   loader: 2 threads, 48 samples   ms/sample    share
//     read                              0.04     1.5%
//     decode                            1.90    70.2%
//     ...
//     all stages                        2.71   100.0%   369 images/s per loader thread
//     copy to device (driver)           0.06            one upload per batch
std::string FormatLoaderSummary(const LoaderSummary& summary);

}  // namespace data
}  // namespace switchyard

#endif  // SWITCHYARD_DATA_LOADER_PROFILE_H_
