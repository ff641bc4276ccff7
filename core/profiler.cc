#include "core/profiler.h"

#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/copy_op.h"
#include "core/dtype.h"
#include "core/status_macros.h"

namespace switchyard {

absl::StatusOr<int64_t> NodeFlops(const Graph& graph, const Node& node,
                                  const OpRegistry& ops) {
  if (node.outputs.empty()) return 0;
  const Value& out = graph.value(node.outputs.front());
  if (!out.shape.has_value()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "node '", node.name, "' has no output shape; run shape inference first"));
  }
  absl::StatusOr<const OpDef*> op = ops.Find(node.op);
  if (!op.ok()) return op.status();
  return (*op)->Flops(node.attrs, graph.InputShapes(node), *out.shape);
}

int64_t NodeBytes(const Graph& graph, const Node& node) {
  int64_t bytes = 0;
  auto add = [&](ValueId id) {
    const Value& v = graph.value(id);
    if (v.shape.has_value()) {
      bytes += v.shape->num_elements() * static_cast<int64_t>(DTypeSize(v.dtype));
    }
  };
  for (ValueId id : node.inputs) add(id);
  for (ValueId id : node.outputs) add(id);
  return bytes;
}

Profiler::Profiler(Clock::time_point origin, const OpRegistry& ops)
    : origin_(origin), ops_(ops) {}

Profiler::~Profiler() = default;

double Profiler::ToUs(Clock::time_point t) const {
  return std::chrono::duration<double, std::micro>(t - origin_).count();
}

absl::Status Profiler::BeginIteration(int iteration) {
  SY_RETURN_IF_ERROR(EndIteration());
  iteration_ = iteration;
  return absl::OkStatus();
}

absl::Status Profiler::EndIteration() {
  if (run_graph_ != nullptr) {
    return absl::FailedPreconditionError(
        "Profiler::EndIteration called while a run is in progress");
  }
  SY_RETURN_IF_ERROR(ResolvePending());
  sessions_.clear();
  return absl::OkStatus();
}

absl::StatusOr<Profiler::DeviceSession*> Profiler::Session(
    BackendDevice& device) {
  for (const auto& session : sessions_) {
    if (session->device == &device) return session.get();
  }
  auto session = std::make_unique<DeviceSession>();
  session->device = &device;
  SY_ASSIGN_OR_RETURN(session->clock, device.CreateClock());
  // The anchor: the device is idle here (see the class comment), so the
  // mark happens right when it is queued. The host clock is read after the
  // mark returns: a clock that synchronizes to mark (HostClock) marks at its
  // return, and host events read just after the anchor (the pipeline's pop
  // of the next batch) must not land after device marks that followed them.
  SY_ASSIGN_OR_RETURN(session->anchor_mark, session->clock->Mark());
  session->anchor_us = ToUs(Clock::now());
  sessions_.push_back(std::move(session));
  return sessions_.back().get();
}

absl::StatusOr<Profiler::NodeInfo> Profiler::Info(
    const Node& node, absl::Span<const NodeId> fused) const {
  NodeInfo info;
  const Graph& graph = *run_graph_;
  if (fused.empty()) {
    SY_ASSIGN_OR_RETURN(info.flops, NodeFlops(graph, node, ops_));
  } else {
    for (NodeId id : fused) {
      SY_ASSIGN_OR_RETURN(int64_t flops, NodeFlops(graph, graph.node(id), ops_));
      info.flops = flops > INT64_MAX - info.flops ? INT64_MAX : info.flops + flops;
    }
  }
  info.bytes = NodeBytes(graph, node);
  info.input_shapes = graph.InputShapes(node);
  for (ValueId id : node.outputs) {
    if (graph.value(id).shape.has_value()) {
      info.output_shapes.push_back(*graph.value(id).shape);
    }
  }
  return info;
}

absl::Status Profiler::TimeCopy(BackendDevice& device, const std::string& name,
                                const std::string& op, const Shape& shape,
                                int64_t bytes,
                                const std::function<absl::Status()>& copy) {
  SY_ASSIGN_OR_RETURN(DeviceSession * session, Session(device));
  SY_ASSIGN_OR_RETURN(int start, session->clock->Mark());
  SY_RETURN_IF_ERROR(copy());
  SY_ASSIGN_OR_RETURN(int end, session->clock->Mark());
  Pending pending;
  pending.event.kind = ProfileEvent::Kind::kCopy;
  pending.event.name = name;
  pending.event.op = op;
  pending.event.lane = device.device().ToString();
  pending.event.iteration = iteration_;
  pending.event.bytes = bytes;
  if (op == "h2d") {
    pending.event.output_shapes.push_back(shape);
  } else {
    pending.event.input_shapes.push_back(shape);
  }
  pending.session = session;
  pending.start_mark = start;
  pending.end_mark = end;
  pending_.push_back(std::move(pending));
  return absl::OkStatus();
}

void Profiler::AddHostEvent(const std::string& lane, const std::string& name,
                            Clock::time_point start, Clock::time_point end) {
  ProfileEvent event;
  event.kind = ProfileEvent::Kind::kHost;
  event.name = name;
  event.lane = lane;
  event.iteration = iteration_;
  event.start_us = ToUs(start);
  event.duration_us = std::chrono::duration<double, std::micro>(end - start).count();
  events_.push_back(std::move(event));
}

absl::Status Profiler::AddKernelParts(absl::Span<const KernelPart> parts,
                                      Clock::time_point run_start) {
  if (parts.empty()) return absl::OkStatus();
  if (pending_.empty() || pending_.back().event.kind != ProfileEvent::Kind::kNode) {
    return absl::FailedPreconditionError(
        "Profiler::AddKernelParts without a node just ended (OnNodeEnd)");
  }
  Pending& node = pending_.back();
  for (const KernelPart& part : parts) {
    ProfileEvent event;
    event.kind = ProfileEvent::Kind::kPart;
    event.name = part.name;
    event.op = part.kind;
    event.lane = node.event.lane;
    event.iteration = iteration_;
    event.start_us = std::chrono::duration<double, std::micro>(part.start - run_start).count();
    event.duration_us = std::chrono::duration<double, std::micro>(part.end - part.start).count();
    node.parts.push_back(std::move(event));
  }
  return absl::OkStatus();
}

absl::Status Profiler::OnRunStart(const Graph& graph,
                                  absl::Span<BackendDevice* const> devices) {
  if (run_graph_ != nullptr) {
    return absl::FailedPreconditionError(
        "Profiler::OnRunStart: a profiled run is already in progress");
  }
  run_graph_ = &graph;
  run_start_marks_.clear();
  node_start_mark_ = -1;
  for (BackendDevice* device : devices) {
    SY_ASSIGN_OR_RETURN(DeviceSession * session, Session(*device));
    SY_ASSIGN_OR_RETURN(int mark, session->clock->Mark());
    run_start_marks_.emplace_back(session, mark);
  }
  return absl::OkStatus();
}

absl::Status Profiler::OnNodeStart(const Node& node, BackendDevice& device) {
  SY_ASSIGN_OR_RETURN(DeviceSession * session, Session(device));
  SY_ASSIGN_OR_RETURN(node_start_mark_, session->clock->Mark());
  return absl::OkStatus();
}

absl::Status Profiler::OnNodeEnd(const Node& node, BackendDevice& device,
                                 absl::Span<const NodeId> fused) {
  if (run_graph_ == nullptr || node_start_mark_ < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Profiler::OnNodeEnd for '", node.name, "' without OnNodeStart"));
  }
  SY_ASSIGN_OR_RETURN(DeviceSession * session, Session(device));
  SY_ASSIGN_OR_RETURN(int end, session->clock->Mark());
  // Costs are computed after the end mark, outside the timed span.
  SY_ASSIGN_OR_RETURN(NodeInfo info, Info(node, fused));
  Pending pending;
  pending.event.kind = node.op == kCopyOp ? ProfileEvent::Kind::kCopy
                                         : ProfileEvent::Kind::kNode;
  pending.event.name = node.name;
  pending.event.op = node.op;
  pending.event.layer = node.layer;
  pending.event.lane = device.device().ToString();
  pending.event.iteration = iteration_;
  pending.event.input_shapes = std::move(info.input_shapes);
  pending.event.output_shapes = std::move(info.output_shapes);
  pending.event.flops = info.flops;
  pending.event.bytes = info.bytes;
  pending.session = session;
  pending.start_mark = node_start_mark_;
  pending.end_mark = end;
  pending_.push_back(std::move(pending));
  node_start_mark_ = -1;
  return absl::OkStatus();
}

absl::Status Profiler::OnRunEnd() {
  if (run_graph_ == nullptr) {
    return absl::FailedPreconditionError("Profiler::OnRunEnd without OnRunStart");
  }
  for (const auto& [session, start] : run_start_marks_) {
    SY_ASSIGN_OR_RETURN(int end, session->clock->Mark());
    Pending pending;
    pending.event.kind = ProfileEvent::Kind::kRun;
    pending.event.name = "forward";
    pending.event.lane = session->device->device().ToString();
    pending.event.iteration = iteration_;
    pending.session = session;
    pending.start_mark = start;
    pending.end_mark = end;
    pending_.push_back(std::move(pending));
  }
  run_graph_ = nullptr;
  run_start_marks_.clear();
  // The devices are synchronized: reading the marks costs no waiting.
  return ResolvePending();
}

void Profiler::OnRunAborted() {
  run_graph_ = nullptr;
  run_start_marks_.clear();
  node_start_mark_ = -1;
}

absl::Status Profiler::ResolvePending() {
  for (Pending& p : pending_) {
    DeviceClock& clock = *p.session->clock;
    SY_ASSIGN_OR_RETURN(double offset_ms,
                        clock.ElapsedMs(p.session->anchor_mark, p.start_mark));
    SY_ASSIGN_OR_RETURN(double duration_ms,
                        clock.ElapsedMs(p.start_mark, p.end_mark));
    p.event.start_us = p.session->anchor_us + offset_ms * 1e3;
    p.event.duration_us = duration_ms * 1e3;
    const double node_start_us = p.event.start_us;
    events_.push_back(std::move(p.event));
    for (ProfileEvent& part : p.parts) {
      part.start_us += node_start_us;
      events_.push_back(std::move(part));
    }
  }
  pending_.clear();
  return absl::OkStatus();
}

}  // namespace switchyard
