// `switchyard bench`: a model on every device, copies and forward timed on
// the device's clock; a table, and JSON / Markdown on request (tools/cli/bench.h).

#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/status_macros.h"
#include "tools/cli/bench.h"
#include "tools/cli/commands.h"
#include "tools/cli/flags.h"

ABSL_FLAG(std::string, devices, "",
          "bench: comma-separated devices (cpu, cuda:0, ...); empty: every "
          "device the registry knows of, unavailable ones listed with the reason");
ABSL_FLAG(std::string, json, "", "bench: write the results as JSON to this file");
ABSL_FLAG(std::string, markdown, "",
          "bench: write the results as a Markdown section to this file");

namespace switchyard {
namespace cli {
namespace {

// bench's defaults for flags it shares with run (whose defaults are 1 and 5).
constexpr int kBenchWarmup = 2;
constexpr int kBenchIterations = 10;
const std::vector<int64_t> kBenchBatches = {1, 8};

absl::Status WriteText(const std::string& path, const std::string& text,
                       const char* what) {
  std::ofstream file(path);
  file << text;
  file.close();
  if (!file) {
    return absl::PermissionDeniedError(
        absl::StrCat("could not write the ", what, " to '", path, "'"));
  }
  std::printf("wrote %s\n", path.c_str());
  return absl::OkStatus();
}

std::string UtcNow() {
  std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
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
  options.seed = absl::GetFlag(FLAGS_seed);
  const std::string devices = absl::GetFlag(FLAGS_devices);
  options.devices = absl::StrSplit(devices, ',', absl::SkipEmpty());
  const std::string model_name = absl::GetFlag(FLAGS_model);

  BenchModel model = ZooModel(model_name, absl::GetFlag(FLAGS_seed));
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

  std::printf("%s", BenchReportTable(report).c_str());
  const std::string json_path = ResolveUserPath(absl::GetFlag(FLAGS_json));
  if (!json_path.empty()) {
    SY_RETURN_IF_ERROR(
        WriteText(json_path, BenchReportJson(report).dump(2) + "\n", "JSON results"));
  }
  const std::string markdown_path = ResolveUserPath(absl::GetFlag(FLAGS_markdown));
  if (!markdown_path.empty()) {
    SY_RETURN_IF_ERROR(
        WriteText(markdown_path, BenchReportMarkdown(report), "Markdown results"));
  }
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace switchyard
