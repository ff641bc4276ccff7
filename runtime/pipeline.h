#ifndef SWITCHYARD_RUNTIME_PIPELINE_H_
#define SWITCHYARD_RUNTIME_PIPELINE_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "core/backend_registry.h"
#include "core/executable_plan.h"
#include "core/profiler.h"
#include "core/tensor.h"
#include "core/timeline.h"
#include "data/loader_stages.h"

namespace switchyard {
namespace runtime {

struct PipelineOptions {
  int batches = 0;         // N batches in the stream
  int loader_threads = 1;  // T threads preparing batches
  int prefetch = 2;        // K: batches that may wait, ready, in the queue (>= 1)
  // What one batch costs its loader, in ms, besides filling it with values.
  double loader_cost_ms = 0;
  enum class LoaderWork {
    // C ms of the loader thread's own CPU time (CLOCK_THREAD_CPUTIME_ID),
    // spent transforming the batch as decoding and augmentation would: real
    // work that competes for cores with everything else.
    kBusy,
    // Sleep until C ms of wall time have passed since the batch was started:
    // a loader waiting for I/O, or for work done elsewhere; no CPU used.
    kSleep,
  };
  LoaderWork loader_work = LoaderWork::kBusy;
  uint64_t seed = 0;  // of the batches' values
  // When set, each batch is loaded by this instead of random values and
  // loader_cost_ms: `run --images` (data/image_batch_loader.h). Called from
  // every loader thread at once with the batch's index, the thread's number
  // and its staged host buffer; it appends each sample's stage spans, which
  // become loader events in the profile (data/loader_profile.h). An error
  // stops the stream and is the run's error.
  std::function<absl::Status(int index, int loader, absl::Span<float> batch,
                             std::vector<data::StageSpan>* spans)>
      load_batch;
  // When set, called on the driver thread with each batch's outputs (after
  // their copy to the host is timed), in stream order: `run --images`
  // prints and writes each file's (runtime/per_file_outputs.h). Its time
  // falls between batches. An error stops the stream and is the run's error.
  std::function<absl::Status(int index, absl::Span<const Tensor> outputs)> on_outputs;
};

// What a streamed run recorded: the timeline AnalyzeTimeline reads, and the
// events for a Chrome trace (device nodes and copies from the Profiler;
// loader and waiting spans on host lanes).
struct PipelineResult {
  Timeline timeline;
  std::vector<ProfileEvent> events;
  // The events' time 0 on the host's steady clock.
  Profiler::Clock::time_point origin;
};

// Streams `options.batches` batches through an input pipeline into `plan`:
//
//   loader threads (T)  -> bounded queue (K) -> [h2d -> forward -> d2h]
//   fill + C ms of work    of staged host        the calling thread drives the
//   into a staged buffer   buffers               device, one batch at a time
//
// Staged host buffers come from a pool of K + T + 1, reused (no allocation
// per batch), in the memory the device uploads from fastest
// (BackendDevice::AllocateHostStaging: page-locked on a GPU). The device
// input is `input` (the plan's input signature) and a second tensor like
// it: batch b is uploaded into slot b % 2 with CopyFromHostAsync, and when
// batch b + 1 is ready before batch b's forward starts, its upload is
// queued first, so that a device with a copy stream (cuda) moves it while
// batch b computes; each forward waits on its own upload's event. On host
// devices the copies finish before they return and nothing changes. h2d,
// forward and d2h are timed on the device's clock (Profiler); loads and the
// driver's waits for input on the host clock; downloads are not overlapped.
// With load_batch, each sample's stages (read, decode, ..., batch) are host
// events on its loader's lane.
absl::StatusOr<PipelineResult> RunPipeline(ExecutablePlan& plan,
                                           const Tensor& input,
                                           const PipelineOptions& options,
                                           BackendRegistry& registry);

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_PIPELINE_H_
