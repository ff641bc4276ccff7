#ifndef SWITCHYARD_CORE_TIMELINE_H_
#define SWITCHYARD_CORE_TIMELINE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace switchyard {

// A span of time in milliseconds on one timeline (the host's steady clock,
// relative to any origin; device times are mapped onto it, see Profiler).
struct Interval {
  double start_ms = 0;
  double end_ms = 0;
  double duration_ms() const { return end_ms - start_ms; }
};

// One batch of a streamed run, from its preparation to its result on the
// host.
struct BatchTimeline {
  int index = 0;
  int loader = -1;   // the loader thread that prepared it
  Interval load;     // preparing it on that loader thread (host)
  // Of the load: the loader thread's CPU time, and the time it was ready to
  // run but waited for a free core (Linux schedstat); -1 when unknown.
  double load_cpu_ms = -1;
  double load_core_wait_ms = -1;
  // The thread that drives the device waiting for this batch to be ready
  // (host); zero length when it was already waiting in the queue.
  Interval wait;
  Interval h2d;      // host-to-device copy of the input (device clock)
  Interval forward;  // the plan's run (device clock)
  Interval d2h;      // device-to-host copy of the output (device clock)
};

// Something a device was busy with: a node or a copy.
struct DeviceSpan {
  std::string device;  // "cpu:0"
  std::string name;    // "features.3/conv2d", "input h2d"
  std::string op;      // "conv2d", "h2d"
  Interval interval;
};

// What a streamed run recorded: the input pipeline's batches and what the
// devices did. Analyzed by AnalyzeTimeline (core/timeline_analysis.h), a pure
// function, so the analysis is tested on synthetic timelines.
//
//   Timeline t;
//   t.device = "cpu:0"; t.batch_size = 8; t.loader_threads = 2; t.prefetch = 4;
//   t.run = {0, 1200};
//   t.batches.push_back({/*index=*/0, /*loader=*/0, /*load=*/{0, 300}, ...});
struct Timeline {
  std::string device;  // the device batches are fed to
  int64_t batch_size = 0;
  int loader_threads = 0;
  int prefetch = 0;
  Interval run;  // the whole streamed run
  std::vector<BatchTimeline> batches;
  // Every node and copy on every device. When empty, each batch's h2d,
  // forward and d2h count as `device`'s busy time.
  std::vector<DeviceSpan> device_spans;
  // Loader time per stage ("decode", "resize", ...), all samples and loader
  // threads, when the loader reports its stages (run --images); else empty.
  std::map<std::string, double> loader_stage_ms;
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_TIMELINE_H_
