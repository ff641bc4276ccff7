#ifndef SWITCHYARD_CORE_PROFILER_H_
#define SWITCHYARD_CORE_PROFILER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/backend.h"
#include "core/graph.h"
#include "core/op_def.h"
#include "core/shape.h"

namespace switchyard {

// One timed span of a profile. Device events (nodes, copies, whole runs) are
// measured on the device's own clock (BackendDevice::CreateClock: CUDA
// events on a GPU, the host clock after a synchronize on the CPU) and then
// placed on the host timeline; host events are host-clock spans.
struct ProfileEvent {
  enum class Kind {
    kNode,  // one node of a plan: a kernel, or a copy node between devices
    kCopy,  // a host<->device copy outside a plan (input upload, output download)
    kRun,   // one ExecutablePlan::Run on one device, enclosing its node events
    kHost,  // a span on a host thread (loader, waiting for input, ...)
    // A part of a node's kernel (Kernel::set_part_sink: a primitive inside
    // a dnnl partition), on the host clock, within its node's span on the
    // same lane. Not work of its own: its node already counts it.
    kPart,
  };
  Kind kind = Kind::kNode;
  std::string name;   // "features.3/conv2d", "input h2d", "forward", "load"
  std::string op;     // "conv2d"; "h2d" / "d2h" for copies; a part's kind; "" otherwise
  std::string layer;  // "features.3" for nodes; "" otherwise
  // The lane it belongs to: a device ("cpu:0") for device events, whose
  // work is serialized on that device's stream; "host", "loader 0", ... for
  // host events.
  std::string lane;
  int iteration = 0;
  // Microseconds since the profiler's origin (a host steady_clock time).
  double start_us = 0;
  double duration_us = 0;
  std::vector<Shape> input_shapes;
  std::vector<Shape> output_shapes;
  int64_t flops = 0;  // OpDef::Flops (a multiply-add counts 2); 0 if none
  int64_t bytes = 0;  // operands + outputs of a node; the size of a copy

  bool on_device() const { return kind != Kind::kHost; }
  // Nodes and copies: the events whose times add up to the device's work.
  bool is_work() const { return kind == Kind::kNode || kind == Kind::kCopy; }
};

// FLOPs of one run of `node` (shape-inferred), from its OpDef; 0 for an op
// without a cost model.
absl::StatusOr<int64_t> NodeFlops(const Graph& graph, const Node& node,
                                  const OpRegistry& ops = OpRegistry::Global());
// Bytes a node must touch once: its operands (activations and weights) and
// its outputs.
int64_t NodeBytes(const Graph& graph, const Node& node);

// Times what runs on devices, node by node, on each device's own clock, and
// keeps the events for a Chrome trace (core/profiler_trace.h) or a summary
// by op and layer (core/profiler_summary.h).
//
// ExecutablePlan::Run calls the On* hooks when RunOptions::profiler is set;
// a run without a profiler pays nothing. Around each node the profiler puts
// a mark on the node's device clock. Nothing is timed with host timestamps
// around an asynchronous launch: a node's duration is the difference of two
// marks on its device's timeline.
//
// Mapping device time onto the host timeline: in each iteration, the first
// mark on a device (its anchor) is paired with the host time at which it was
// taken; every later mark on that device is placed at anchor host time +
// the device-clock time elapsed since the anchor. This is exact when the
// device is idle at its first mark of an iteration, which holds for every
// caller here because each iteration ends synchronized (Run synchronizes its
// devices; copies to the host are synchronous); the error is then the time
// between reading the host clock and the mark's execution (microseconds on
// a GPU, nanoseconds on the CPU). BeginIteration re-anchors, so drift
// between the device clock and the host clock never accumulates beyond one
// iteration.
//
// Not thread-safe: use one profiler from one thread at a time (a plan's
// runs are serialized anyway).
//
//   Profiler profiler;
//   RunOptions options;
//   options.profiler = &profiler;
//   for (int i = 0; i < 10; ++i) {
//     SY_RETURN_IF_ERROR(profiler.BeginIteration(i));
//     SY_ASSIGN_OR_RETURN(auto outputs, plan->Run({x}, options));
//   }
//   SY_RETURN_IF_ERROR(profiler.EndIteration());
//   WriteChromeTrace("trace.json", profiler.events());
class Profiler {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Profiler(Clock::time_point origin = Clock::now(),
                    const OpRegistry& ops = OpRegistry::Global());
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;
  ~Profiler();

  // Finishes the current iteration (EndIteration) and starts `iteration`:
  // later events carry its number, and each device gets a fresh anchor at
  // its first mark.
  absl::Status BeginIteration(int iteration);
  // Resolves the marks of the current iteration into events (waiting for the
  // devices' clocks) and drops its clocks. Called by BeginIteration; call it
  // once more after the last iteration.
  absl::Status EndIteration();

  // Runs `copy`, a copy between host memory and `device` (op "h2d" or
  // "d2h"), between two marks on the device's clock, and records it as a
  // kCopy event named `name` on the device's lane.
  absl::Status TimeCopy(BackendDevice& device, const std::string& name,
                        const std::string& op, const Shape& shape,
                        int64_t bytes, const std::function<absl::Status()>& copy);

  // A host-clock span on a host lane ("host", "loader 0", ...).
  void AddHostEvent(const std::string& lane, const std::string& name,
                    Clock::time_point start, Clock::time_point end);
  // Adds an event made elsewhere (times relative to this profiler's origin).
  void AddEvent(ProfileEvent event) { events_.push_back(std::move(event)); }

  // Hooks for ExecutablePlan::Run.
  absl::Status OnRunStart(const Graph& graph,
                          absl::Span<BackendDevice* const> devices);
  absl::Status OnNodeStart(const Node& node, BackendDevice& device);
  // `fused`: for a partition's kernel (core/partition.h), the graph nodes
  // it ran; `node` then names the group and its cost is theirs.
  absl::Status OnNodeEnd(const Node& node, BackendDevice& device,
                         absl::Span<const NodeId> fused = {});
  // The parts a kernel timed in its Run, which started on the host at
  // `run_start` (after OnNodeEnd for its node): kPart events on the node's
  // lane, placed at their offsets from `run_start` after the node's start on
  // the timeline, so they nest inside it whatever the device clock's anchor
  // error.
  absl::Status AddKernelParts(absl::Span<const KernelPart> parts,
                              Clock::time_point run_start);
  // After the run's devices were synchronized.
  absl::Status OnRunEnd();
  // When a run failed between OnRunStart and OnRunEnd: forgets the run, keeps
  // the nodes that finished.
  void OnRunAborted();

  // Events resolved so far (those of a finished EndIteration, and nodes of
  // finished runs), in the order they were recorded.
  const std::vector<ProfileEvent>& events() const { return events_; }
  int iteration() const { return iteration_; }
  Clock::time_point origin() const { return origin_; }
  // Microseconds from the origin to `t`.
  double ToUs(Clock::time_point t) const;

 private:
  // The clock of one device in the current iteration and its anchor.
  struct DeviceSession {
    BackendDevice* device = nullptr;
    std::unique_ptr<DeviceClock> clock;
    int anchor_mark = 0;
    double anchor_us = 0;  // host time of the anchor
  };
  // An event whose times are still two marks on a device clock.
  struct Pending {
    ProfileEvent event;
    DeviceSession* session = nullptr;
    int start_mark = 0;
    int end_mark = 0;
    // A node's kernel parts, start_us relative to the node's start.
    std::vector<ProfileEvent> parts;
  };
  struct NodeInfo {
    int64_t flops = 0;
    int64_t bytes = 0;
    std::vector<Shape> input_shapes;
    std::vector<Shape> output_shapes;
  };

  absl::StatusOr<DeviceSession*> Session(BackendDevice& device);
  absl::StatusOr<NodeInfo> Info(const Node& node,
                                absl::Span<const NodeId> fused) const;
  // Turns every pending mark pair into an event.
  absl::Status ResolvePending();

  Clock::time_point origin_;
  const OpRegistry& ops_;
  int iteration_ = 0;
  std::vector<std::unique_ptr<DeviceSession>> sessions_;
  std::vector<Pending> pending_;
  std::vector<ProfileEvent> events_;

  // The run in progress.
  const Graph* run_graph_ = nullptr;
  std::vector<std::pair<DeviceSession*, int>> run_start_marks_;
  int node_start_mark_ = -1;
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_PROFILER_H_
