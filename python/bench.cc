// switchyard.bench(): what `switchyard bench` measures (runtime/bench.h), as
// a dict with the fields of its --json ("switchyard.bench/1") and the
// table it prints.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/device_policy.h"
#include "core/near_miss.h"
#include "core/status_macros.h"
#include "models/model_zoo.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "python/registration.h"
#include "python/status.h"
#include "runtime/bench.h"
#include "runtime/model_inputs.h"
#include "runtime/session.h"

namespace switchyard {
namespace python {
namespace {

namespace py = pybind11;

// A built-in model's one input shape from "1x3x224x224".
absl::StatusOr<std::optional<Shape>> BuiltinShape(const std::vector<std::string>& shapes) {
  if (shapes.empty()) return std::optional<Shape>();
  if (shapes.size() > 1 || absl::StrContains(shapes[0], ':')) {
    return absl::InvalidArgumentError(
        "input_shape: a built-in model has one input; give its shape alone, "
        "e.g. input_shape=(1, 3, 224, 224)");
  }
  SY_ASSIGN_OR_RETURN(Shape shape, runtime::ParseShapeDims(shapes[0], shapes[0]));
  return std::optional<Shape>(shape);
}

absl::StatusOr<runtime::BenchReport> Bench(const std::string& model,
                                           std::vector<std::string> devices,
                                           const std::vector<int64_t>& batches, int warmup,
                                           int iterations, uint64_t seed,
                                           const std::string& placement,
                                           const std::vector<std::string>& shapes) {
  BackendRegistry& registry = BackendRegistry::Global();
  SY_ASSIGN_OR_RETURN(const PlacementPolicy policy, ParsePlacementPolicy(placement));
  runtime::BenchModel bench_model;
  if (runtime::IsModelFile(model)) {
    SY_ASSIGN_OR_RETURN(bench_model, runtime::FileModel(model, seed, shapes, registry));
  } else if (runtime::IsBuiltinModel(model)) {
    SY_ASSIGN_OR_RETURN(const std::optional<Shape> shape, BuiltinShape(shapes));
    bench_model = runtime::ZooModel(model, seed, shape);
  } else {
    return runtime::Session::Open(model, registry).status();  // the zoo's NotFound
  }
  bench_model = runtime::WithPlacement(std::move(bench_model), policy);
  // A type no backend has ("cuda0"): the near miss, in Python's words.
  for (const std::string& d : devices) {
    if (d == "all") continue;
    absl::StatusOr<Device> parsed = Device::Parse(d);
    const absl::Status found =
        parsed.ok() ? registry.GetBackend(parsed->type()).status() : parsed.status();
    if (absl::IsNotFound(found) || absl::IsInvalidArgument(found)) {
      const std::string meant = MeantDevice(d, registry.Types());
      if (meant.empty() || meant == d) return found;
      return absl::Status(found.code(), absl::StrCat(found.message(), " (did you mean '",
                                                     meant, "'?)"));
    }
  }
  // None: the device a session takes without one, as the command does.
  if (devices.empty()) {
    SY_ASSIGN_OR_RETURN(const PolicyChoice choice,
                        ChooseDevice(registry, DevicePolicy::kFastest));
    devices.push_back(choice.device.ToString());
  } else if (devices.size() == 1 && devices[0] == "all") {
    devices.clear();  // every device the registry knows of
  }
  runtime::BenchOptions options;
  options.devices = devices;
  options.batches = batches;
  options.warmup = warmup;
  options.iterations = iterations;
  options.seed = seed;
  return runtime::RunBench(bench_model, options, registry);
}

}  // namespace

void RegisterBench(py::module_& m) {
  m.def(
      "_bench",
      [](const std::string& model, const std::vector<std::string>& devices,
         const std::vector<int64_t>& batches, int warmup, int iterations, uint64_t seed,
         const std::string& placement, const std::vector<std::string>& shapes) {
        absl::StatusOr<runtime::BenchReport> report;
        {
          py::gil_scoped_release nogil;
          report = Bench(model, devices, batches, warmup, iterations, seed, placement, shapes);
        }
        if (!report.ok()) {
          // The runtime words some errors for the command's flags.
          ThrowIfError(absl::Status(
              report.status().code(),
              absl::StrReplaceAll(report.status().message(),
                                  {{"--input_shape", "input_shape"},
                                   {"--iterations", "iterations"},
                                   {"--warmup", "warmup"},
                                   {"--batch", "batch"}})));
        }
        py::dict d = py::module_::import("json").attr("loads")(
            runtime::BenchReportJson(*report).dump());
        d["table"] = runtime::BenchReportTable(*report);
        return d;
      },
      py::arg("model"), py::arg("devices"), py::arg("batches"), py::arg("warmup"),
      py::arg("iterations"), py::arg("seed"), py::arg("placement"), py::arg("shapes"));
}

}  // namespace python
}  // namespace switchyard
