#include "tools/cli/flags.h"

#include <cstdlib>
#include <set>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

ABSL_FLAG(std::string, model, "vgg11", "model name (vgg11, vgg13, vgg16, vgg19)");
ABSL_FLAG(std::string, weights, "",
          ".safetensors file with the model's parameters (torchvision names); "
          "empty: seeded initialisation (see --seed)");
ABSL_FLAG(std::string, input, "",
          ".npy float32 input [N, 3, H, W]; empty: a seeded random batch of "
          "--batch images of 224x224");
ABSL_FLAG(std::string, output, "",
          ".npy file to write the output to; for a model with several "
          "outputs, comma-separated files or a folder ending in '/' "
          "(output_0.npy, output_1.npy, ...)");
ABSL_FLAG(std::string, report, "", "JSON file to write the run's report to");
ABSL_FLAG(std::string, device, "cpu", "device to run on, e.g. cpu, cuda:0");
ABSL_FLAG(std::string, format, "text", "graph output format: text or dot");
ABSL_FLAG(std::string, batch, "1",
          "batch size when no --input is given; bench: a comma-separated list "
          "(default 1,8)");
ABSL_FLAG(int32_t, warmup, 1, "untimed forward passes before timing");
ABSL_FLAG(int32_t, iterations, 5, "timed forward passes");
ABSL_FLAG(int32_t, threads, 0,
          "CPU threads: short for --backend_option=cpu.threads=N (0: the "
          "default, SWITCHYARD_CPU_THREADS or all cores)");
ABSL_FLAG(uint64_t, seed, 0, "seed of the initialisation and of random input");
ABSL_FLAG(std::string, placement, "strict",
          "strict: every operand of a node on one device, else an error; auto: "
          "copy inputs to the model's device and fall back to the CPU for "
          "nodes the device cannot run, with a summary of what moved");
ABSL_FLAG(std::string, input_device, "",
          "device to put the input on (default: --device)");
ABSL_FLAG(bool, explain_placement, false,
          "print the device of every node and every copy before running");

namespace {
std::vector<std::string>& PluginPaths() {
  static auto* paths = new std::vector<std::string>();
  return *paths;
}
std::vector<std::string>& BackendOptions() {
  static auto* options = new std::vector<std::string>();
  return *options;
}
}  // namespace

// Abseil calls OnUpdate once per occurrence while parsing; each appends.
ABSL_FLAG(std::vector<std::string>, plugin, {},
          "backend plugin (.so) to load before the command runs; repeatable, "
          "or comma-separated. SWITCHYARD_PLUGIN_PATH (files or folders, "
          "colon-separated) is loaded first")
    .OnUpdate([] {
      for (const std::string& path : absl::GetFlag(FLAGS_plugin)) {
        PluginPaths().push_back(path);
      }
    });

// Like --plugin: every occurrence appends (Abseil keeps only the last).
ABSL_FLAG(std::vector<std::string>, backend_option, {},
          "type.key=value: sets an option of a backend before the command "
          "runs, e.g. cpu.threads=2 or cpu.fusion=off; repeatable, or "
          "comma-separated. `switchyard devices` lists each backend's options")
    .OnUpdate([] {
      for (const std::string& option : absl::GetFlag(FLAGS_backend_option)) {
        BackendOptions().push_back(option);
      }
    });

namespace switchyard {
namespace cli {

absl::StatusOr<std::vector<int64_t>> BatchListFlag() {
  const std::string text = absl::GetFlag(FLAGS_batch);
  std::vector<int64_t> sizes;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    int64_t size = 0;
    if (!absl::SimpleAtoi(part, &size)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--batch wants an integer or a comma-separated list of them, got '",
          text, "'"));
    }
    sizes.push_back(size);
  }
  return sizes;
}

absl::StatusOr<int64_t> BatchFlag() {
  absl::StatusOr<std::vector<int64_t>> sizes = BatchListFlag();
  if (!sizes.ok()) return sizes.status();
  if (sizes->size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "this command takes one --batch size, got '", absl::GetFlag(FLAGS_batch),
        "' (lists are for `switchyard bench`)"));
  }
  return sizes->front();
}

const std::vector<std::string>& PluginFlagPaths() { return PluginPaths(); }

const std::vector<std::string>& BackendOptionFlags() { return BackendOptions(); }

absl::Status ApplyBackendOptionFlags(BackendRegistry& registry) {
  const int threads = absl::GetFlag(FLAGS_threads);
  if (threads != 0) {
    absl::Status status =
        registry.SetOption("cpu", "threads", absl::StrCat(threads));
    if (!status.ok()) {
      return absl::Status(status.code(),
                          absl::StrCat("--threads: ", status.message()));
    }
  }
  // The registry's errors name the option ("backend option cpu.x=1: ...").
  for (const std::string& option : BackendOptions()) {
    absl::Status status = registry.SetOption(option);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

namespace {
std::set<std::string>& GivenFlags() {
  static auto* given = new std::set<std::string>();
  return *given;
}
}  // namespace

void RecordGivenFlags(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--") break;
    if (!absl::ConsumePrefix(&arg, "--") && !absl::ConsumePrefix(&arg, "-")) continue;
    GivenFlags().insert(std::string(arg.substr(0, arg.find('='))));
  }
}

bool FlagGiven(const std::string& name) { return GivenFlags().count(name) > 0; }

std::string ResolveUserPath(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (cwd == nullptr || *cwd == '\0') return path;
  return absl::StrCat(cwd, "/", path);
}

}  // namespace cli
}  // namespace switchyard
