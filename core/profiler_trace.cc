#include "core/profiler_trace.h"

#include "core/file_transaction.h"

#include <algorithm>
#include <fstream>
#include <map>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace switchyard {
namespace {

constexpr int kPid = 1;

const char* Category(ProfileEvent::Kind kind) {
  switch (kind) {
    case ProfileEvent::Kind::kNode:
      return "node";
    case ProfileEvent::Kind::kCopy:
      return "copy";
    case ProfileEvent::Kind::kRun:
      return "run";
    case ProfileEvent::Kind::kHost:
      return "host";
    case ProfileEvent::Kind::kPart:
      return "part";
  }
  return "other";
}

nlohmann::json Shapes(const std::vector<Shape>& shapes) {
  nlohmann::json list = nlohmann::json::array();
  for (const Shape& s : shapes) list.push_back(s.dims());
  return list;
}

}  // namespace

std::string ChromeTraceJson(
    absl::Span<const ProfileEvent> events,
    const std::vector<std::pair<std::string, std::string>>& metadata) {
  // Lanes: device streams first, then host lanes, each in order of first
  // appearance.
  std::vector<std::string> device_lanes, host_lanes;
  for (const ProfileEvent& e : events) {
    std::vector<std::string>& lanes = e.on_device() ? device_lanes : host_lanes;
    if (std::find(lanes.begin(), lanes.end(), e.lane) == lanes.end()) {
      lanes.push_back(e.lane);
    }
  }
  std::map<std::pair<bool, std::string>, int> tid;
  nlohmann::json trace_events = nlohmann::json::array();
  trace_events.push_back({{"ph", "M"},
                          {"pid", kPid},
                          {"name", "process_name"},
                          {"args", {{"name", "switchyard"}}}});
  int next_tid = 1;
  for (bool device : {true, false}) {
    for (const std::string& lane : device ? device_lanes : host_lanes) {
      const int t = next_tid++;
      tid[{device, lane}] = t;
      trace_events.push_back(
          {{"ph", "M"},
           {"pid", kPid},
           {"tid", t},
           {"name", "thread_name"},
           {"args", {{"name", device ? absl::StrCat(lane, " stream") : lane}}}});
      trace_events.push_back({{"ph", "M"},
                              {"pid", kPid},
                              {"tid", t},
                              {"name", "thread_sort_index"},
                              {"args", {{"sort_index", t}}}});
    }
  }

  // By lane and start, the enclosing (longer) event first, so viewers nest
  // node events inside their run.
  std::vector<const ProfileEvent*> order;
  for (const ProfileEvent& e : events) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(),
                   [&](const ProfileEvent* a, const ProfileEvent* b) {
                     const int ta = tid[{a->on_device(), a->lane}];
                     const int tb = tid[{b->on_device(), b->lane}];
                     if (ta != tb) return ta < tb;
                     if (a->start_us != b->start_us) return a->start_us < b->start_us;
                     return a->duration_us > b->duration_us;
                   });
  for (const ProfileEvent* e : order) {
    nlohmann::json args = {{"iteration", e->iteration}};
    if (!e->op.empty()) args["op"] = e->op;
    if (!e->layer.empty()) args["layer"] = e->layer;
    if (e->on_device()) args["device"] = e->lane;
    if (!e->input_shapes.empty()) args["input_shapes"] = Shapes(e->input_shapes);
    if (!e->output_shapes.empty()) args["output_shapes"] = Shapes(e->output_shapes);
    if (e->flops > 0) {
      args["flops"] = e->flops;
      if (e->duration_us > 0) args["gflop_per_s"] = e->flops / (e->duration_us * 1e3);
    }
    if (e->bytes > 0) {
      args["bytes"] = e->bytes;
      if (e->duration_us > 0) args["gb_per_s"] = e->bytes / (e->duration_us * 1e3);
    }
    trace_events.push_back({{"name", e->name},
                            // A host event's op, when it has one, is its
                            // category ("loader": data/loader_profile.h).
                            {"cat", e->kind == ProfileEvent::Kind::kHost && !e->op.empty()
                                        ? e->op
                                        : std::string(Category(e->kind))},
                            {"ph", "X"},
                            {"pid", kPid},
                            {"tid", tid[{e->on_device(), e->lane}]},
                            {"ts", e->start_us},
                            {"dur", e->duration_us},
                            {"args", std::move(args)}});
  }
  nlohmann::json other = nlohmann::json::object();
  for (const auto& [key, value] : metadata) other[key] = value;
  other["clock"] =
      "device events: the device's own clock, anchored to the host clock at "
      "each device's first mark of an iteration; host events: host steady clock";
  nlohmann::json doc = {{"traceEvents", std::move(trace_events)},
                        {"displayTimeUnit", "ms"},
                        {"otherData", std::move(other)}};
  return doc.dump();
}

absl::Status WriteChromeTrace(
    const std::string& path, absl::Span<const ProfileEvent> events,
    const std::vector<std::pair<std::string, std::string>>& metadata) {
  return WriteFileAtomically(path, ChromeTraceJson(events, metadata) + "\n",
                             "trace");
}

}  // namespace switchyard
