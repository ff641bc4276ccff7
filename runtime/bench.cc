#include "runtime/bench.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/backend.h"
#include "core/device_list.h"
#include "core/executable_plan.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "core/timeline_analysis.h"
#include "models/model_zoo.h"
#include "runtime/elapsed.h"
#include "runtime/model_inputs.h"
#include "runtime/seeded_input.h"
#include "runtime/session.h"
#include "runtime/text_columns.h"

namespace switchyard {
namespace runtime {
namespace {

constexpr char kSchema[] = "switchyard.bench/1";
constexpr char kBaseline[] = "cpu:0";

// One device and batch: compile, warm up, time. Samples go into `row`.
absl::Status MeasureRow(Module& model, const BenchModel& spec,
                        BackendDevice& device, const BenchOptions& options,
                        BackendRegistry& registry, BenchRow& row) {
  const Device& dev = device.device();
  std::vector<InputSpec> specs;
  if (spec.inputs) {
    SY_ASSIGN_OR_RETURN(specs, spec.inputs(row.batch));
  } else {
    SY_ASSIGN_OR_RETURN(Shape shape, spec.input_shape(row.batch));
    specs.push_back({shape, DType::kFloat32, dev});
  }
  for (InputSpec& s : specs) s.device = dev;
  // One static plan, or (a model whose shapes are decided while it runs)
  // Module::Run, the model's own chain of plans; forward then includes its
  // run-time copies. (A built-in model's Run is its static plan: its
  // compile error comes back from the first run.)
  absl::StatusOr<ExecutablePlan*> plan = model.Compiled(specs);
  auto run = [&](absl::Span<const Tensor> in) -> absl::StatusOr<std::vector<Tensor>> {
    if (plan.ok()) return (*plan)->Run(in);
    return model.Run(in);
  };

  // Seeded host inputs (runtime/seeded_input.h; float32 as it always was).
  std::mt19937_64 rng(options.seed + 1 + row.batch);
  std::vector<std::vector<char>> host_inputs;
  std::vector<Tensor> inputs;
  for (const InputSpec& s : specs) {
    host_inputs.push_back(SeededArray(s.shape, s.dtype, rng).bytes);
    SY_ASSIGN_OR_RETURN(Tensor input, Tensor::Empty(s.shape, s.dtype, dev, registry));
    inputs.push_back(std::move(input));
  }
  std::vector<std::vector<char>> host_outputs;

  std::vector<double> h2d, forward, d2h, end_to_end;
  for (int i = 0; i < options.warmup + options.iterations; ++i) {
    SY_ASSIGN_OR_RETURN(std::unique_ptr<DeviceClock> clock, device.CreateClock());
    const Clock::time_point start = Clock::now();
    SY_ASSIGN_OR_RETURN(int m0, clock->Mark());
    for (size_t k = 0; k < inputs.size(); ++k) {
      SY_RETURN_IF_ERROR(device.CopyFromHost(host_inputs[k].data(), *inputs[k].buffer(),
                                             host_inputs[k].size()));
    }
    SY_ASSIGN_OR_RETURN(int m1, clock->Mark());
    SY_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, run(inputs));
    SY_ASSIGN_OR_RETURN(int m2, clock->Mark());
    // Sized on the first iteration (a staged model's outputs may differ in
    // size from run to run, hence the resize).
    host_outputs.resize(outputs.size());
    for (size_t o = 0; o < outputs.size(); ++o) {
      host_outputs[o].resize(outputs[o].size_bytes());
      // Each from its own device: under auto placement the last node, and
      // so an output, may run on the fallback device.
      SY_ASSIGN_OR_RETURN(BackendDevice * out_device, registry.GetDevice(outputs[o].device()));
      SY_RETURN_IF_ERROR(out_device->CopyToHost(*outputs[o].buffer(), host_outputs[o].data(),
                                                outputs[o].size_bytes()));
    }
    SY_ASSIGN_OR_RETURN(int m3, clock->Mark());
    const Clock::time_point end = Clock::now();
    if (i < options.warmup) continue;
    SY_ASSIGN_OR_RETURN(double h2d_ms, clock->ElapsedMs(m0, m1));
    SY_ASSIGN_OR_RETURN(double forward_ms, clock->ElapsedMs(m1, m2));
    SY_ASSIGN_OR_RETURN(double d2h_ms, clock->ElapsedMs(m2, m3));
    h2d.push_back(h2d_ms);
    forward.push_back(forward_ms);
    d2h.push_back(d2h_ms);
    end_to_end.push_back(Ms(start, end));
  }
  row.h2d = ComputeBenchStats(h2d);
  row.forward = ComputeBenchStats(forward);
  row.d2h = ComputeBenchStats(d2h);
  row.end_to_end = ComputeBenchStats(end_to_end);
  row.images_per_s = row.batch / (row.end_to_end.median_ms / 1e3);
  return absl::OkStatus();
}

nlohmann::json StatsJson(const BenchStats& s) {
  return {{"median", s.median_ms}, {"p95", s.p95_ms}, {"min", s.min_ms},
          {"max", s.max_ms},       {"mean", s.mean_ms}, {"samples", s.samples_ms}};
}

std::string Speedup(const std::optional<double>& s) {
  return s.has_value() ? absl::StrFormat("%.2fx", *s) : "-";
}

std::string MedianP95(const BenchStats& s) {
  // Three significant decimals below 10 ms (copies), one above.
  const char* fmt = s.median_ms < 10 ? "%.3f / %.3f" : "%.1f / %.1f";
  return absl::StrFormat(fmt, s.median_ms, s.p95_ms);
}

// A Markdown table cell: '|' would end it.
std::string Cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string Header(const BenchReport& r) {
  std::string text = absl::StrFormat(
      "%s, batch %s, %d warm-up + %d timed iterations per device and batch",
      r.model, absl::StrJoin(r.options.batches, ","), r.options.warmup,
      r.options.iterations);
  return text;
}


}  // namespace

BenchModel ZooModel(const std::string& name, uint64_t seed,
                    std::optional<Shape> input_shape) {
  BenchModel model;
  model.name = name;
  model.create = [name, seed](const Device& device, BackendRegistry& registry)
      -> absl::StatusOr<std::unique_ptr<Module>> {
    SY_ASSIGN_OR_RETURN(std::unique_ptr<Module> m, CreateModel(name, registry));
    SY_RETURN_IF_ERROR(m->To(device));
    SY_RETURN_IF_ERROR(InitializeModel(*m, seed));
    return m;
  };
  model.input_shape = [name, input_shape](int64_t batch) -> absl::StatusOr<Shape> {
    std::optional<Shape> shape = input_shape;
    if (shape.has_value() && shape->rank() > 0) {
      std::vector<int64_t> dims = shape->dims();
      dims[0] = batch;
      shape = Shape(dims);
    }
    return ModelInputShape(name, batch, shape);
  };
  return model;
}

absl::StatusOr<BenchModel> FileModel(const std::string& path, uint64_t seed,
                                     const std::vector<std::string>& shapes,
                                     BackendRegistry& registry) {
  BenchModel model = ZooModel(path, seed);
  // The declarations alone: the graph is converted when each device loads it.
  SY_ASSIGN_OR_RETURN(const std::vector<ValueInfo> declared,
                      Session::DeclaredInputs(path, registry));
  model.inputs = [path, declared, shapes](int64_t batch)
      -> absl::StatusOr<std::vector<InputSpec>> {
    InputRequest request;
    request.shapes = shapes;
    request.batch = batch;
    request.batch_overrides_shapes = true;
    absl::StatusOr<std::vector<Shape>> resolved = InputShapes(declared, request);
    if (!resolved.ok()) {
      return absl::Status(resolved.status().code(),
                          absl::StrCat(path, ": ", resolved.status().message()));
    }
    std::vector<InputSpec> specs;
    for (size_t i = 0; i < declared.size(); ++i) {
      specs.push_back({(*resolved)[i], declared[i].dtype, Device::Cpu()});
    }
    return specs;
  };
  return model;
}

BenchModel WithPlacement(BenchModel model, PlacementPolicy placement) {
  model.create = [create = model.create, placement](const Device& device,
                                                   BackendRegistry& registry)
      -> absl::StatusOr<std::unique_ptr<Module>> {
    SY_ASSIGN_OR_RETURN(std::unique_ptr<Module> m, create(device, registry));
    m->set_placement(placement);
    return m;
  };
  return model;
}

BenchStats ComputeBenchStats(std::vector<double> samples_ms) {
  BenchStats s;
  if (samples_ms.empty()) return s;
  s.median_ms = Percentile(samples_ms, 0.5);
  s.p95_ms = Percentile(samples_ms, 0.95);
  s.min_ms = *std::min_element(samples_ms.begin(), samples_ms.end());
  s.max_ms = *std::max_element(samples_ms.begin(), samples_ms.end());
  double sum = 0;
  for (double v : samples_ms) sum += v;
  s.mean_ms = sum / samples_ms.size();
  s.samples_ms = std::move(samples_ms);
  return s;
}

absl::StatusOr<BenchReport> RunBench(
    const BenchModel& model, const BenchOptions& options,
    BackendRegistry& registry,
    const std::function<void(const std::string&)>& progress) {
  if (options.iterations < 1 || options.warmup < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--iterations must be >= 1 and --warmup >= 0, got ", options.iterations,
        " and ", options.warmup));
  }
  if (options.batches.empty()) {
    return absl::InvalidArgumentError("--batch needs at least one batch size");
  }
  for (int64_t b : options.batches) {
    if (b < 1) {
      return absl::InvalidArgumentError(absl::StrCat("batch must be >= 1, got ", b));
    }
    SY_RETURN_IF_ERROR(model.inputs ? model.inputs(b).status()
                                    : model.input_shape(b).status());
  }
  BenchReport report;
  report.model = model.name;
  report.options = options;
  std::vector<DeviceChoice> choices;
  if (options.devices.empty()) {
    choices = AllDevices(registry);
  } else {
    SY_ASSIGN_OR_RETURN(choices, ChooseDevices(registry, options.devices));
  }

  for (const DeviceChoice& choice : choices) {
    BenchDeviceEntry entry;
    entry.device = choice.name;
    entry.available = choice.available();
    entry.reason = choice.unavailable_reason;
    if (!choice.available()) {
      report.devices.push_back(std::move(entry));
      continue;
    }
    SY_ASSIGN_OR_RETURN(BackendDevice * device, registry.GetDevice(*choice.device));
    DeviceInfo info = device->Info();
    entry.name = info.name;
    entry.properties = info.properties;
    report.devices.push_back(std::move(entry));

    absl::StatusOr<std::unique_ptr<Module>> instance =
        model.create(*choice.device, registry);
    for (int64_t batch : options.batches) {
      BenchRow row;
      row.device = choice.name;
      row.batch = batch;
      if (!instance.ok()) {
        row.error = std::string(instance.status().message());
      } else {
        if (progress) {
          progress(absl::StrFormat("%s batch %d: %d + %d iterations", choice.name,
                                   batch, options.warmup, options.iterations));
        }
        absl::Status status =
            MeasureRow(**instance, model, *device, options, registry, row);
        if (!status.ok()) row.error = status.ToString();
      }
      report.rows.push_back(std::move(row));
    }
  }

  // Speed-ups against the CPU, batch by batch.
  for (const BenchRow& base : report.rows) {
    if (base.device != kBaseline || !base.error.empty()) continue;
    report.baseline = kBaseline;
    for (BenchRow& row : report.rows) {
      if (row.batch != base.batch || !row.error.empty()) continue;
      row.speedup_forward = base.forward.median_ms / row.forward.median_ms;
      row.speedup_end_to_end = base.end_to_end.median_ms / row.end_to_end.median_ms;
    }
  }
  return report;
}

nlohmann::json BenchReportJson(const BenchReport& r) {
  nlohmann::json context = nlohmann::json::object();
  for (const auto& [k, v] : r.context) context[k] = v;
  nlohmann::json devices = nlohmann::json::array();
  for (const BenchDeviceEntry& d : r.devices) {
    nlohmann::json props = nlohmann::json::object();
    for (const auto& [k, v] : d.properties) props[k] = v;
    nlohmann::json entry = {{"device", d.device}, {"available", d.available}};
    if (d.available) {
      entry["name"] = d.name;
      entry["properties"] = props;
    } else {
      entry["reason"] = d.reason;
    }
    devices.push_back(std::move(entry));
  }
  nlohmann::json results = nlohmann::json::array();
  for (const BenchRow& row : r.rows) {
    nlohmann::json j = {{"device", row.device}, {"batch", row.batch}};
    if (!row.error.empty()) {
      j["error"] = row.error;
      results.push_back(std::move(j));
      continue;
    }
    j["forward_ms"] = StatsJson(row.forward);
    j["h2d_ms"] = StatsJson(row.h2d);
    j["d2h_ms"] = StatsJson(row.d2h);
    j["end_to_end_ms"] = StatsJson(row.end_to_end);
    j["images_per_s"] = row.images_per_s;
    if (row.speedup_end_to_end.has_value()) {
      j["speedup_vs_cpu"] = {{"forward", *row.speedup_forward},
                             {"end_to_end", *row.speedup_end_to_end}};
    } else {
      j["speedup_vs_cpu"] = nullptr;
    }
    results.push_back(std::move(j));
  }
  return {{"schema", kSchema},
          {"framework", "switchyard"},
          {"model", r.model},
          {"warmup", r.options.warmup},
          {"iterations", r.options.iterations},
          {"batches", r.options.batches},
          {"context", context},
          {"devices", devices},
          {"results", results}};
}

std::string TailWarning(const BenchRow& row, double load, unsigned cores) {
  // OpenMP's barriers wait for every thread: one preempted thread holds up
  // the whole iteration. The median still stands; the tail says the
  // machine was not quiet.
  constexpr double kFarTail = 1.5;
  const BenchStats& e2e = row.end_to_end;
  if (!row.error.empty() || e2e.samples_ms.size() < 5 || e2e.median_ms <= 0 ||
      e2e.p95_ms < kFarTail * e2e.median_ms) {
    return "";
  }
  return absl::StrFormat(
      "%s batch %d: p95 %.3g ms is %.1fx the median %.3g ms: other work on the machine "
      "(load average %.2f on %u cores) took the cores the run waits for; more "
      "--iterations, fewer --threads or a quiet machine steady it",
      row.device, row.batch, e2e.p95_ms, e2e.p95_ms / e2e.median_ms, e2e.median_ms, load,
      cores);
}

std::string BenchReportTable(const BenchReport& r) {
  std::string out = absl::StrCat("switchyard bench: ", Header(r), "\n");
  for (const auto& [k, v] : r.context) {
    if (k != "command") absl::StrAppend(&out, "  ", k, ": ", v, "\n");
  }
  absl::StrAppend(&out,
                  "times in ms, median / p95; images/s from the end-to-end "
                  "median; speed-up = cpu:0 end-to-end median / this one\n\n");
  std::vector<std::vector<std::string>> rows = {
      {"device", "batch", "forward", "h2d", "d2h", "end to end", "images/s",
       absl::StrCat("vs ", r.baseline.empty() ? kBaseline : r.baseline)}};
  std::vector<std::string> notes;
  for (const BenchRow& row : r.rows) {
    if (!row.error.empty()) {
      notes.push_back(absl::StrCat(row.device, " batch ", row.batch,
                                   ": failed: ", row.error));
      continue;
    }
    rows.push_back({row.device, absl::StrCat(row.batch), MedianP95(row.forward),
                    MedianP95(row.h2d), MedianP95(row.d2h),
                    MedianP95(row.end_to_end),
                    absl::StrFormat("%.2f", row.images_per_s),
                    Speedup(row.speedup_end_to_end)});
  }
  absl::StrAppend(&out, TextColumns(rows, 1, ""));
  for (const BenchDeviceEntry& d : r.devices) {
    if (!d.available) notes.push_back(absl::StrCat(d.device, ": unavailable: ", d.reason));
  }
  for (const std::string& n : notes) absl::StrAppend(&out, n, "\n");
  return out;
}

std::string BenchReportMarkdown(const BenchReport& r) {
  std::string out = absl::StrCat("### switchyard bench: ", Header(r), "\n\n");
  for (const auto& [k, v] : r.context) {
    absl::StrAppend(&out, "- ", k, ": ", k == "command" ? absl::StrCat("`", v, "`") : v,
                    "\n");
  }
  for (const BenchDeviceEntry& d : r.devices) {
    if (d.available) absl::StrAppend(&out, "- ", d.device, ": ", d.name, "\n");
  }
  absl::StrAppend(
      &out,
      "\nTimes in ms (median / p95). h2d, forward and d2h on the device's own "
      "clock; end to end is host time from the input in host memory to the "
      "output in host memory. Speed-up: cpu:0 median / this median.\n\n",
      "| device | batch | forward | h2d | d2h | end to end | images/s | speed-up "
      "vs cpu:0 (forward) | speed-up vs cpu:0 (end to end) |\n",
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (const BenchRow& row : r.rows) {
    if (!row.error.empty()) {
      absl::StrAppend(&out, "| ", row.device, " | ", row.batch, " | failed: ",
                      Cell(row.error), " | | | | | | |\n");
      continue;
    }
    absl::StrAppend(&out, "| ", row.device, " | ", row.batch, " | ",
                    MedianP95(row.forward), " | ", MedianP95(row.h2d), " | ",
                    MedianP95(row.d2h), " | ", MedianP95(row.end_to_end), " | ",
                    absl::StrFormat("%.2f", row.images_per_s), " | ",
                    Speedup(row.speedup_forward), " | ",
                    Speedup(row.speedup_end_to_end), " |\n");
  }
  for (const BenchDeviceEntry& d : r.devices) {
    if (d.available) continue;
    absl::StrAppend(&out, "| ", d.device, " | - | unavailable: ", Cell(d.reason),
                    " | | | | | | |\n");
  }
  return out;
}

}  // namespace runtime
}  // namespace switchyard
