// The Profile class: a run's profiler events as Python data.

#include "python/profile.h"

#include <string>
#include <vector>

#include "core/profiler_summary.h"
#include "core/profiler_trace.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "python/registration.h"
#include "python/status.h"

namespace switchyard {
namespace python {

namespace py = pybind11;

namespace {

const char* KindName(ProfileEvent::Kind kind) {
  switch (kind) {
    case ProfileEvent::Kind::kNode: return "node";
    case ProfileEvent::Kind::kCopy: return "copy";
    case ProfileEvent::Kind::kRun: return "run";
    case ProfileEvent::Kind::kHost: return "host";
    case ProfileEvent::Kind::kPart: return "part";
  }
  return "?";
}

py::list Shapes(const std::vector<Shape>& shapes) {
  py::list out;
  for (const Shape& s : shapes) out.append(py::cast(s.dims()));
  return out;
}

py::dict EventDict(const ProfileEvent& e) {
  py::dict d;
  d["kind"] = KindName(e.kind);
  d["name"] = e.name;
  d["op"] = e.op;
  d["layer"] = e.layer;
  d["lane"] = e.lane;
  d["iteration"] = e.iteration;
  d["start_us"] = e.start_us;
  d["duration_us"] = e.duration_us;
  d["input_shapes"] = Shapes(e.input_shapes);
  d["output_shapes"] = Shapes(e.output_shapes);
  d["flops"] = e.flops;
  d["bytes"] = e.bytes;
  return d;
}

}  // namespace

void RegisterProfile(py::module_& m) {
  py::class_<RunProfile>(m, "Profile",
                         "The profile of one Session.run(..., profile=True): each node "
                         "timed on its device's own clock.")
      .def_property_readonly(
          "events",
          [](const RunProfile& p) {
            py::list out;
            for (const ProfileEvent& e : p.events) out.append(EventDict(e));
            return out;
          },
          "Every event (nodes, copies, whole runs) as dicts, in recording order.")
      .def_property_readonly(
          "nodes",
          [](const RunProfile& p) {
            py::list out;
            for (const ProfileEvent& e : p.events) {
              if (e.kind == ProfileEvent::Kind::kNode) out.append(EventDict(e));
            }
            return out;
          },
          "The node events alone (one per kernel; a fused group is one).")
      .def_property_readonly(
          "total_ms",
          [](const RunProfile& p) { return SummarizeProfile(p.events).total_ms; },
          "Device time of every node and copy, in milliseconds.")
      .def(
          "by_op",
          [](const RunProfile& p) {
            py::list out;
            for (const ProfileSummaryRow& row : SummarizeProfile(p.events).by_op) {
              py::dict d;
              d["op"] = row.key;
              d["device"] = row.device;
              d["calls"] = row.calls;
              d["total_ms"] = row.total_ms;
              d["share"] = row.share;
              d["flops"] = row.flops;
              out.append(d);
            }
            return out;
          },
          "Device time per op, largest first (as torch.profiler's key_averages()).")
      .def(
          "summary",
          [](const RunProfile& p, int max_rows) {
            return FormatProfileSummary(SummarizeProfile(p.events), max_rows);
          },
          py::arg("max_rows") = 10,
          "The table `switchyard run --profile-summary` prints: time by op and by layer, "
          "the max_rows largest rows of each table (0: every row).")
      .def(
          "chrome_trace",
          [](const RunProfile& p) { return ChromeTraceJson(p.events, p.metadata); },
          "The Chrome trace (chrome://tracing, Perfetto) as a JSON string.")
      .def(
          "save_chrome_trace",
          [](const RunProfile& p, const std::string& path) {
            ThrowIfError(WriteChromeTrace(path, p.events, p.metadata));
          },
          py::arg("path"), "Writes the Chrome trace to `path`.")
      .def("__repr__", [](const RunProfile& p) {
        int nodes = 0;
        for (const ProfileEvent& e : p.events) nodes += e.kind == ProfileEvent::Kind::kNode;
        return "<switchyard.Profile " + std::to_string(nodes) + " nodes, " +
               std::to_string(SummarizeProfile(p.events).total_ms) + " ms>";
      });
}

}  // namespace python
}  // namespace switchyard
