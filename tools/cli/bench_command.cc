// `switchyard bench`: a model on every device, copies and forward timed on
// the device's clock; a table, and JSON / Markdown on request (runtime/bench.h).

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/compile.h"
#include "core/device_policy.h"
#include "core/file_transaction.h"
#include "core/status_macros.h"
#include "models/model_zoo.h"
#include "runtime/bench.h"
#include "runtime/model_inputs.h"
#include "runtime/replicas.h"
#include "runtime/seeded_input.h"
#include "runtime/session.h"
#include "tools/cli/build_info.h"
#include "tools/cli/commands.h"
#include "tools/cli/device_choice.h"
#include "tools/cli/flags.h"

ABSL_DECLARE_FLAG(std::string, replicas);   // run_command.cc
ABSL_DECLARE_FLAG(std::string, placement);  // flags.cc

ABSL_FLAG(std::string, devices, "",
          "bench: comma-separated devices (cpu, cuda:0, ...; default: the one "
          "`run` takes without --device); empty: every device the registry "
          "knows of, unavailable ones listed with the reason");
ABSL_FLAG(std::string, json, "",
          "bench: write the results as JSON to this file; devices: --json "
          "alone prints JSON on stdout, --json=FILE writes it");
ABSL_FLAG(std::string, markdown, "",
          "bench: write the results as a Markdown section to this file");

namespace switchyard {
namespace cli {

using runtime::BenchModel;
using runtime::BenchOptions;
using runtime::BenchReport;
using runtime::BenchReportJson;
using runtime::BenchReportMarkdown;
using runtime::BenchReportTable;
using runtime::BenchRow;
using runtime::BenchStats;
using runtime::ComputeBenchStats;
using runtime::InputRequest;
using runtime::InputShapes;
using runtime::ParseReplicaDevices;
using runtime::ReplicaRun;
using runtime::ReplicaSet;
using runtime::ReplicaSummary;
using runtime::RunBench;
using runtime::SeededArray;
using runtime::WithDeviceHint;
using runtime::ZooModel;

namespace {

// bench's defaults for flags it shares with run (whose defaults are 1 and 5).
constexpr int kBenchWarmup = 2;
constexpr int kBenchIterations = 10;
const std::vector<int64_t> kBenchBatches = {1, 8};


std::string UtcNow() {
  std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

// bench --replicas: for each batch size, the batch split over one replica per
// device (runtime/replicas.h), warm-up and timed runs of the whole batch;
// a per-device table per batch size, and JSON on request.
absl::Status BenchReplicas(const BenchModel& model, const BenchOptions& options,
                           const std::string& model_name, const std::string& json_path,
                           FileTransaction& files, BackendRegistry& registry) {
  SY_ASSIGN_OR_RETURN(std::vector<Device> devices,
                      ParseReplicaDevices(absl::GetFlag(FLAGS_replicas), registry));
  std::vector<std::string> names;
  for (const Device& d : devices) names.push_back(d.ToString());
  std::fprintf(stderr, "bench: making %zu replicas of %s (%s)\n", devices.size(),
               model_name.c_str(), absl::StrJoin(names, ", ").c_str());
  const ReplicaSet::MakeFn make = [&](const Device& d, int)
      -> absl::StatusOr<std::shared_ptr<Module>> {
    SY_ASSIGN_OR_RETURN(std::unique_ptr<Module> m, model.create(d, registry));
    return std::shared_ptr<Module>(std::move(m));
  };
  SY_ASSIGN_OR_RETURN(std::unique_ptr<ReplicaSet> replicas,
                      ReplicaSet::Create(devices, make, registry));
  const nlohmann::json machine_before = MachineJson();
  nlohmann::json results = nlohmann::json::array();
  std::string text = absl::StrFormat(
      "switchyard bench --replicas=%s: %s, batch %s, %d warm-up + %d timed runs "
      "of the whole batch per batch size\n",
      absl::StrJoin(names, ","), model_name, absl::StrJoin(options.batches, ","),
      options.warmup, options.iterations);
  for (int64_t batch : options.batches) {
    // Seeded inputs as bench draws them on one device.
    std::vector<InputSpec> specs;
    if (model.inputs) {
      SY_ASSIGN_OR_RETURN(specs, model.inputs(batch));
    } else {
      SY_ASSIGN_OR_RETURN(Shape shape, model.input_shape(batch));
      specs.push_back({shape, DType::kFloat32, Device::Cpu()});
    }
    std::mt19937_64 rng(options.seed + 1 + batch);
    std::vector<HostArray> inputs;
    for (const InputSpec& spec : specs) inputs.push_back(SeededArray(spec.shape, spec.dtype, rng));
    std::fprintf(stderr, "bench: batch %lld over %zu replicas: %d + %d runs\n",
                 static_cast<long long>(batch), devices.size(), options.warmup,
                 options.iterations);
    ReplicaSummary summary(devices);
    std::vector<double> wall;
    for (int i = 0; i < options.warmup + options.iterations; ++i) {
      SY_ASSIGN_OR_RETURN(ReplicaRun r, replicas->Run(inputs));
      if (i < options.warmup) continue;
      summary.Add(r);
      wall.push_back(r.wall_ms);
    }
    const BenchStats stats = ComputeBenchStats(wall);
    absl::StrAppendFormat(&text,
                          "\nbatch %d: end to end %.1f ms median, %.1f ms p95; "
                          "%.2f images/s from the median\n%s",
                          batch, stats.median_ms, stats.p95_ms,
                          batch * 1e3 / stats.median_ms, summary.Table());
    nlohmann::json entry = summary.Json();
    entry["batch"] = batch;
    entry["end_to_end_ms"] = {{"median", stats.median_ms}, {"p95", stats.p95_ms},
                              {"min", stats.min_ms}, {"max", stats.max_ms},
                              {"mean", stats.mean_ms}, {"samples", stats.samples_ms}};
    results.push_back(std::move(entry));
  }
  std::printf("%s", text.c_str());
  if (!json_path.empty()) {
    const nlohmann::json json = {
        {"schema", "switchyard.bench_replicas/1"},
        {"framework", "switchyard"},
        {"model", model_name},
        {"replicas", names},
        {"warmup", options.warmup},
        {"iterations", options.iterations},
        {"batches", options.batches},
        {"results", results},
        {"build", BuildInfoJson(registry)},
        {"machine", MachineJson()},
        {"machine_before", machine_before}};
    SY_RETURN_IF_ERROR(files.Stage(json_path, json.dump(2) + "\n"));
  }
  SY_RETURN_IF_ERROR(files.Commit());
  if (!json_path.empty()) std::printf("wrote %s\n", json_path.c_str());
  return absl::OkStatus();
}

}  // namespace

absl::Status BenchCommand(BackendRegistry& registry) {
  BenchOptions options;
  options.warmup = FlagGiven("warmup") ? absl::GetFlag(FLAGS_warmup) : kBenchWarmup;
  options.iterations =
      FlagGiven("iterations") ? absl::GetFlag(FLAGS_iterations) : kBenchIterations;
  if (FlagGiven("batch")) {
    SY_ASSIGN_OR_RETURN(options.batches, BatchListFlag());
  } else {
    options.batches = kBenchBatches;
  }
  SY_RETURN_IF_ERROR(CheckRange("--warmup", options.warmup, 0, 1000000));
  SY_RETURN_IF_ERROR(CheckRange("--iterations", options.iterations, 1, 1000000));
  for (int64_t batch : options.batches) {
    SY_RETURN_IF_ERROR(CheckRange("--batch", batch, 1, int64_t{1} << 20));
  }
  options.seed = absl::GetFlag(FLAGS_seed);
  if (FlagGiven("replicas") && FlagGiven("devices")) {
    return absl::InvalidArgumentError(
        "--replicas and --devices were both given: --devices benches each device "
        "on its own, one after another; --replicas splits every batch over one "
        "replica per device, run together (docs/scaling.md); give one of them");
  }
  if (FlagGiven("replicas") && FlagGiven("markdown")) {
    return absl::UnimplementedError(
        "--markdown is not written for --replicas yet; use --json=FILE (schema "
        "switchyard.bench_replicas/1) or the table");
  }
  // Both files are checked (and published together) before anything is timed.
  FileTransaction files;
  files.AddInput(ModelFlag(), "--model");  // a model file (.onnx), if it is one
  const std::string json_path = ResolveUserPath(absl::GetFlag(FLAGS_json));
  const std::string markdown_path = ResolveUserPath(absl::GetFlag(FLAGS_markdown));
  if (!json_path.empty()) SY_RETURN_IF_ERROR(files.AddOutput(json_path, "--json"));
  if (!markdown_path.empty()) {
    SY_RETURN_IF_ERROR(files.AddOutput(markdown_path, "--markdown"));
  }
  const nlohmann::json machine_before = MachineJson();
  const std::string devices = absl::GetFlag(FLAGS_devices);
  options.devices = absl::StrSplit(devices, ',', absl::SkipEmpty());
  // "default": the device `run` takes without --device (the fastest policy).
  for (std::string& d : options.devices) {
    if (d != "default") {
      // A type no backend has: the error with a near miss ("cuda0").
      absl::StatusOr<Device> parsed = Device::Parse(d);
      const absl::Status found =
          parsed.ok() ? registry.GetBackend(parsed->type()).status() : parsed.status();
      if (absl::IsNotFound(found) || absl::IsInvalidArgument(found)) {
        return WithDeviceHint(found, d, registry, "--devices");
      }
      continue;
    }
    SY_ASSIGN_OR_RETURN(const PolicyChoice choice,
                        ChooseDevice(registry, DevicePolicy::kFastest));
    d = choice.device.ToString();
  }
  const std::string model_name = ModelFlag();
  BenchModel model;
  if (runtime::IsModelFile(model_name)) {
    SY_ASSIGN_OR_RETURN(model, runtime::FileModel(model_name, absl::GetFlag(FLAGS_seed),
                                                  InputShapeFlagValues(), registry));
  } else {
    SY_ASSIGN_OR_RETURN(std::optional<Shape> input_shape, InputShapeFlag());
    model = ZooModel(model_name, absl::GetFlag(FLAGS_seed), input_shape);
  }
  // Auto placement unless --placement says otherwise: nodes a device has no
  // kernel for fall back to the CPU (dnnl:0 on models with ops oneDNN
  // lacks), as in `run` on the device the policy chose.
  SY_ASSIGN_OR_RETURN(const PlacementPolicy placement,
                      PlacementFromFlags(/*chosen_by_policy=*/true, PlacementPolicy::kAuto));
  model = runtime::WithPlacement(std::move(model), placement);
  if (FlagGiven("replicas")) {
    return BenchReplicas(model, options, model_name, json_path, files, registry);
  }
  SY_ASSIGN_OR_RETURN(
      BenchReport report,
      RunBench(model, options, registry, [](const std::string& line) {
        std::fprintf(stderr, "bench: %s\n", line.c_str());
      }));
  // The command that reproduces this run, every default spelled out.
  std::string command = absl::StrCat(
      "switchyard bench --model=", model_name, " --batch=",
      absl::StrJoin(options.batches, ","), " --warmup=", options.warmup,
      " --iterations=", options.iterations);
  if (!devices.empty()) absl::StrAppend(&command, " --devices=", devices);
  if (FlagGiven("placement")) {
    absl::StrAppend(&command, " --placement=", absl::GetFlag(FLAGS_placement));
  }
  if (absl::GetFlag(FLAGS_threads) != 0) {
    absl::StrAppend(&command, " --threads=", absl::GetFlag(FLAGS_threads));
  }
  for (const std::string& option : BackendOptionFlags()) {
    absl::StrAppend(&command, " --backend_option=", option);
  }
  // Every option of the CPU backend as the run had it: cpu_threads, cpu_fusion.
  absl::StatusOr<Backend*> cpu = registry.GetBackend("cpu");
  if (cpu.ok()) {
    for (const BackendOption& option : (*cpu)->Options()) {
      report.context.emplace_back(absl::StrCat("cpu_", option.key), option.value);
    }
  }
  report.context.emplace_back("date", UtcNow());
  report.context.emplace_back("command", command);
  // The machine: CPU model and its load before and after, so a busy machine
  // shows in the results.
  const nlohmann::json machine = MachineJson();
  report.context.emplace_back("cpu_model", machine["cpu_model"].get<std::string>());
  const unsigned cores = machine["cores"].get<unsigned>();
  double busiest = 0;
  for (const nlohmann::json* m : {&machine_before, &machine}) {
    if (!m->contains("load_average")) continue;
    busiest = std::max(busiest, (*m)["load_average"][0].get<double>());
  }
  if (machine.contains("load_average")) {
    report.context.emplace_back(
        "load_average", absl::StrFormat("%.2f %.2f %.2f (before: %.2f)",
                                        machine["load_average"][0].get<double>(),
                                        machine["load_average"][1].get<double>(),
                                        machine["load_average"][2].get<double>(),
                                        machine_before.value("load_average",
                                            nlohmann::json::array({0.0}))[0].get<double>()));
  }
  const nlohmann::json build = BuildInfoJson(registry);
  for (const auto& [key, value] : build.items()) {
    report.context.emplace_back(key, value.get<std::string>());
  }

  std::printf("%s", BenchReportTable(report).c_str());
  size_t measured = 0;
  for (const BenchRow& row : report.rows) measured += row.error.empty() ? 1 : 0;
  // Other work on the machine skews every number: say so (when there is
  // a number).
  if (measured > 0 && cores > 0 && busiest > 0.5 * cores) {
    std::fprintf(stderr,
                 "bench: warning: the machine was busy while measuring (load "
                 "average %.2f on %u cores); the times may be inflated\n",
                 busiest, cores);
  }
  for (const BenchRow& row : report.rows) {
    const std::string tail = runtime::TailWarning(row, busiest, cores);
    if (!tail.empty()) std::fprintf(stderr, "bench: warning: %s\n", tail.c_str());
  }
  if (!json_path.empty()) {
    nlohmann::json json = BenchReportJson(report);
    json["build"] = build;
    json["machine"] = machine;
    SY_RETURN_IF_ERROR(files.Stage(json_path, json.dump(2) + "\n"));
  }
  if (!markdown_path.empty()) {
    SY_RETURN_IF_ERROR(files.Stage(markdown_path, BenchReportMarkdown(report)));
  }
  // The files record failures too (each row says why), so they are written
  // even when nothing was measured; the exit code says so.
  SY_RETURN_IF_ERROR(files.Commit());
  if (!json_path.empty()) std::printf("wrote %s\n", json_path.c_str());
  if (!markdown_path.empty()) std::printf("wrote %s\n", markdown_path.c_str());
  if (measured == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "nothing was measured: every device and batch size failed or no "
        "device was available (", report.rows.size(), " attempts); see the table"));
  }
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace switchyard
