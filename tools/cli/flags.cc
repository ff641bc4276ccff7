#include "tools/cli/flags.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/status_macros.h"
#include "core/thread_limit.h"
#include "runtime/mpi_world.h"
#include "runtime/model_inputs.h"

ABSL_FLAG(std::string, model, "vgg11",
          "model name (vgg11, vgg13, vgg16, vgg19) or a path to an .onnx file");

ABSL_FLAG(std::string, weights, "",
          ".safetensors file with the model's parameters (torchvision names); "
          "empty: seeded initialisation (see --seed)");

ABSL_FLAG(std::string, output, "",
          ".npy file to write the output to; for a model with several "
          "outputs, comma-separated files or a folder ending in '/' "
          "(<output name>.npy, else output_0.npy, ...; created if missing). "
          "With --images, a folder: each file's outputs as "
          "DIR/<stem>.<output name>.npy (a batch model's as that file's [1, ...] "
          "slice; files sharing a stem keep their extension, 'cat.jpg.logits.npy', "
          "and same names from several folders are numbered, '2_cat.jpg...'). Not "
          "with --batches alone: its batches are random");
ABSL_FLAG(std::string, report, "", "JSON file to write the run's report to");
ABSL_FLAG(std::string, device, "",
          "device to run on, e.g. cpu:0, dnnl:0, cuda:0; empty: the one "
          "--device-policy chooses (`switchyard devices` shows which and why)");
ABSL_FLAG(std::string, format, "text", "graph output format: text or dot");
ABSL_FLAG(std::string, batch, "1",
          "batch size when no --input is given; bench: a comma-separated list "
          "(default 1,8)");
ABSL_FLAG(int32_t, warmup, 1, "untimed forward passes before timing");
ABSL_FLAG(int32_t, iterations, 5, "timed forward passes");
ABSL_FLAG(int32_t, threads, 0,
          "CPU threads: short for --backend_option=<type>.threads=N for every "
          "backend with a threads option (cpu, dnnl) (0: the "
          "default, SWITCHYARD_CPU_THREADS or all cores)");
ABSL_FLAG(uint64_t, seed, 0, "seed of the initialisation and of random input");
ABSL_FLAG(std::string, placement, "",
          "strict: every operand of a node on one device, else an error; auto: "
          "copy inputs to the model's device and fall back to the CPU for "
          "nodes the device cannot run, with a summary of what moved. Empty: "
          "auto when the device policy chose the device (and for bench), "
          "strict when --device names it");
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

namespace {
std::vector<std::string>& InputValues() {
  static auto* values = new std::vector<std::string>();
  return *values;
}
std::vector<std::string>& InputShapeValues() {
  static auto* values = new std::vector<std::string>();
  return *values;
}
std::vector<std::string>& PrecompileValues() {
  static auto* values = new std::vector<std::string>;
  return *values;
}
}  // namespace

// Repeatable like --plugin: every occurrence appends.
ABSL_FLAG(std::string, input_shape, "",
          "an input's shape, NAME:DIMS (e.g. input:1x3x224x224; repeatable or "
          "comma-separated, one per input), or DIMS alone for a model with "
          "one input; for symbolic dimensions or other sizes when no --input "
          "is given (the whole shape: --batch does not change it)")
    .OnUpdate([] {
      // Also called once at registration, with the empty default.
      std::string value = absl::GetFlag(FLAGS_input_shape);
      if (!value.empty()) InputShapeValues().push_back(std::move(value));
    });
// Repeatable like --input_shape: every occurrence appends.
ABSL_FLAG(std::string, precompile, "",
          "input shapes to compile for before the run, so that the first run of "
          "each is as fast as the rest: DIMS for a model with one input, several "
          "comma-separated (1x3x224x224,8x3x224x224); for several inputs one "
          "occurrence per set of shapes, NAME:DIMS comma-separated "
          "(--precompile=ids:1x128,mask:1x128 --precompile=ids:8x128,mask:8x128)")
    .OnUpdate([] {
      std::string value = absl::GetFlag(FLAGS_precompile);
      if (!value.empty()) PrecompileValues().push_back(std::move(value));
    });
ABSL_FLAG(std::string, input, "",
          ".npy file per model input, in the model's input order or as "
          "NAME=PATH (repeatable or comma-separated), of the dtypes the model "
          "declares; vgg: float32 [N, 3, H, W]. Empty: seeded inputs (--batch, "
          "--input_shape)")
    .OnUpdate([] {
      std::string value = absl::GetFlag(FLAGS_input);
      if (!value.empty()) InputValues().push_back(std::move(value));
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

#define SY_RETURN_IF_ERROR_CLI(expr)            \
  do {                                          \
    absl::Status status_ = (expr);              \
    if (!status_.ok()) return status_;          \
  } while (0)

namespace switchyard {
namespace cli {

using runtime::MpiBuilt;
using runtime::MpiMissingReason;

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

std::string ModelFlag() {
  const std::string model = absl::GetFlag(FLAGS_model);
  // A file, not a built-in name: relative to where the user ran the command.
  if (absl::StrContains(model, '/') || absl::StrContains(model, '.')) {
    return ResolveUserPath(model);
  }
  return model;
}

absl::StatusOr<std::optional<Shape>> InputShapeFlag() {
  std::vector<std::string> parts;
  for (const std::string& value : InputShapeValues()) {
    for (absl::string_view part : absl::StrSplit(value, ',', absl::SkipEmpty())) {
      parts.emplace_back(part);
    }
  }
  if (parts.empty()) return std::optional<Shape>();
  const std::string text = parts.back();
  if (parts.size() > 1 || absl::StrContains(text, ':')) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--input_shape=", absl::StrJoin(parts, ","), ": ", ModelFlag(),
        " has one input; give its shape alone, e.g. --input_shape=1x3x224x224"));
  }
  SY_ASSIGN_OR_RETURN(Shape shape, runtime::ParseShapeDims(text, text));
  return std::optional<Shape>(shape);
}

const std::vector<std::string>& InputShapeFlagValues() { return InputShapeValues(); }

std::vector<std::vector<std::string>> PrecompileFlagSets() {
  std::vector<std::vector<std::string>> sets;
  for (const std::string& value : PrecompileValues()) {
    std::vector<std::string> parts = absl::StrSplit(value, ',', absl::SkipEmpty());
    if (absl::StrContains(value, ':')) {
      sets.push_back(std::move(parts));  // NAME:DIMS of one set
    } else {
      for (std::string& dims : parts) sets.push_back({std::move(dims)});
    }
  }
  return sets;
}

const std::vector<std::string>& InputFlagValues() { return InputValues(); }

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
  SY_RETURN_IF_ERROR_CLI(CheckThreadFlags());
  const int threads = absl::GetFlag(FLAGS_threads);
  if (threads != 0) {
    // Every CPU-side backend with a thread count (cpu, dnnl from a plugin):
    // a peer comparison at --threads=2 means 2 threads everywhere.
    for (const std::string& type : registry.Types()) {
      if (!registry.GetOption(type, "threads").ok()) continue;
      absl::Status status =
          registry.SetOption(type, "threads", absl::StrCat(threads));
      if (!status.ok()) {
        return absl::Status(status.code(),
                            absl::StrCat("--threads: ", status.message()));
      }
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

absl::Status CheckRange(absl::string_view flag, int64_t value, int64_t min,
                        int64_t max, absl::string_view why) {
  if (value >= min && value <= max) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      flag, "=", value, " is out of range: it must be between ", min, " and ",
      max, why.empty() ? "" : " (", why, why.empty() ? "" : ")"));
}

absl::Status CheckThreadFlags() {
  const std::string why = absl::StrCat(
      "4 per core of this machine's ", CoreCount(), ", at least 8; 0 means the default");
  SY_RETURN_IF_ERROR_CLI(CheckRange("--threads", absl::GetFlag(FLAGS_threads),
                                    0, MaxThreadCount(), why));
  // The default thread count, bounded as --threads is; checked before the
  // CPU backend starts its threads (it would clamp, with a warning).
  if (const char* env = std::getenv("SWITCHYARD_CPU_THREADS")) {
    int64_t threads = 0;
    // Not a count >= 1: the backend warns and uses all cores.
    if (absl::SimpleAtoi(env, &threads) && threads >= 1) {
      SY_RETURN_IF_ERROR_CLI(CheckRange(
          "SWITCHYARD_CPU_THREADS", threads, 1, MaxThreadCount(),
          absl::StrCat("4 per core of this machine's ", CoreCount(),
                       ", at least 8; unset it for all cores, or give --threads")));
    }
  }
  for (const std::string& option : BackendOptions()) {
    absl::string_view rest = option;
    if (!absl::ConsumePrefix(&rest, "cpu.threads=")) continue;
    int64_t threads = 0;
    if (!absl::SimpleAtoi(rest, &threads)) continue;  // the backend says why
    SY_RETURN_IF_ERROR_CLI(CheckRange(
        absl::StrCat("--backend_option=cpu.threads"), threads, 0, MaxThreadCount(),
        why));
  }
  return absl::OkStatus();
}

namespace {
// A run of VGG on a [N, 3, H, W] input holds its widest activations (64
// channels at full resolution, twice for input and output of a layer) and
// the plan's other buffers: about 64 times the input's bytes per image.
constexpr double kActivationFactor = 64;

int64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return int64_t{1} << 40;
  return static_cast<int64_t>(pages) * page;
}
}  // namespace

absl::Status CheckBatchFitsMemory(absl::string_view flag, const Shape& shape) {
  if (shape.rank() < 1 || shape.dim(0) < 1) return absl::OkStatus();
  const int64_t batch = shape.dim(0);
  const double per_image =
      static_cast<double>(shape.num_elements() / batch) * 4.0 * kActivationFactor;
  const int64_t memory = PhysicalMemoryBytes();
  const int64_t fits = static_cast<int64_t>(static_cast<double>(memory) / per_image);
  if (batch <= fits) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrFormat(
      "%s: a batch of %d images of %s needs about %.1f GiB (about %.0f MiB "
      "per image) and this machine has %.1f GiB of memory; use a batch of at "
      "most %d",
      flag, batch, shape.ToString(), batch * per_image / (1 << 30),
      per_image / (1 << 20), static_cast<double>(memory) / (1 << 30), fits));
}

namespace {

struct FlagUse {
  const char* name;
  const char* group;
  std::vector<std::string> commands;
};

constexpr const char* kGroups[] = {
    "model and input", "device and placement", "timing", "outputs",
    "profiling", "input pipeline (run --batches)", "backends and plugins",
    "MPI jobs (mpirun -np N switchyard ...)"};

const std::vector<FlagUse>& FlagUses() {
  static const auto* uses = new std::vector<FlagUse>{
      {"model", kGroups[0], {"run", "graph", "bench"}},
      {"weights", kGroups[0], {"run"}},
      {"input", kGroups[0], {"run"}},
      {"batch", kGroups[0], {"run", "graph", "bench"}},
      {"input_shape", kGroups[0], {"run", "graph", "bench"}},
      {"precompile", kGroups[0], {"run"}},
      {"seed", kGroups[0], {"run", "bench"}},
      {"max_loop_iterations", kGroups[0], {"run"}},
      {"device", kGroups[1], {"run", "graph"}},
      {"device_policy", kGroups[1], {"run", "graph"}},
      {"devices", kGroups[1], {"bench"}},
      {"replicas", kGroups[1], {"run", "bench"}},
      {"placement", kGroups[1], {"run", "graph", "bench"}},
      {"input_device", kGroups[1], {"run", "graph"}},
      {"explain_placement", kGroups[1], {"run"}},
      {"warmup", kGroups[2], {"run", "bench"}},
      {"iterations", kGroups[2], {"run", "bench"}},
      {"output", kGroups[3], {"run"}},
      {"report", kGroups[3], {"run"}},
      {"labels", kGroups[3], {"run"}},
      {"detections_shown", kGroups[3], {"run"}},
      {"format", kGroups[3], {"graph"}},
      {"json", kGroups[3], {"bench", "devices"}},
      {"markdown", kGroups[3], {"bench"}},
      {"profile", kGroups[4], {"run"}},
      {"profile_summary", kGroups[4], {"run"}},
      {"profile_rows", kGroups[4], {"run"}},
      {"batches", kGroups[5], {"run"}},
      {"loader_threads", kGroups[5], {"run"}},
      {"prefetch", kGroups[5], {"run"}},
      {"loader_cost_ms", kGroups[5], {"run"}},
      {"loader_work", kGroups[5], {"run"}},
      {"images", kGroups[5], {"run"}},
      {"bad_images", kGroups[5], {"run"}},
      {"image_size", kGroups[5], {"run"}},
      {"resize", kGroups[5], {"run"}},
      {"augment", kGroups[5], {"run"}},
      {"rank_timeout", kGroups[7], {"run", "graph", "bench", "devices"}},
      {"threads", kGroups[6], {"run", "graph", "bench", "devices"}},
      {"backend_option", kGroups[6], {"run", "graph", "bench", "devices"}},
      {"plugin", kGroups[6], {"run", "graph", "bench", "devices"}},
  };
  return *uses;
}

const std::vector<std::pair<std::string, std::string>>& Commands() {
  static const auto* commands = new std::vector<std::pair<std::string, std::string>>{
      {"devices", "list every backend, its devices (or why it has none) and options"},
      {"run", "run a model: each output (top-5 for class scores), forward time; files and a report"},
      {"graph", "print the traced, placed graph IR (text or Graphviz dot)"},
      {"bench", "time a model on every device and batch size: forward, copies, end to end"},
      {"help", "`switchyard help COMMAND`: that command's flags"},
  };
  return *commands;
}

// bench's defaults differ from the shared flags' (bench_command.cc).
std::string DefaultFor(const std::string& command, const std::string& flag) {
  if (command == "bench") {
    if (flag == "warmup") return "2";
    if (flag == "iterations") return "10";
    if (flag == "batch") return "1,8";
  }
  if (command == "devices" && flag == "json") return "\"\" (--json alone: stdout)";
  absl::CommandLineFlag* found = absl::FindCommandLineFlag(flag);
  if (found == nullptr) return "";
  std::string value = found->DefaultValue();
  return value.empty() ? "\"\"" : value;
}

}  // namespace

bool IsCommand(const std::string& command) {
  for (const auto& [name, line] : Commands()) {
    if (name == command && name != "help") return true;
  }
  return false;
}

absl::Status CheckFlagsApply(const std::string& command) {
  for (const FlagUse& use : FlagUses()) {
    if (!FlagGiven(use.name)) continue;
    if (std::find(use.commands.begin(), use.commands.end(), command) !=
        use.commands.end()) {
      continue;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "--", use.name, " does not apply to `switchyard ", command,
        "`; it is taken by: ", absl::StrJoin(use.commands, ", "),
        " (see `switchyard help ", command, "`)"));
  }
  if (FlagGiven("plugin") && PluginPaths().empty()) {
    return absl::InvalidArgumentError(
        "--plugin is empty; give the path of a backend plugin (.so)");
  }
  for (const std::string& path : PluginPaths()) {
    if (path.empty()) {
      return absl::InvalidArgumentError(
          "--plugin is empty; give the path of a backend plugin (.so)");
    }
  }
  return absl::OkStatus();
}

std::string CommandHelp(const std::string& command) {
  std::string text;
  if (!IsCommand(command)) {
    text = "usage: switchyard COMMAND [flags]\n\ncommands:\n";
    for (const auto& [name, line] : Commands()) {
      absl::StrAppendFormat(&text, "  %-8s %s\n", name, line);
    }
    text +=
        "\nflag names take dashes or underscores (--loader-threads, "
        "--loader_threads).\n`switchyard --version`: version, commit, build "
        "mode, CUDA, target CPU.\nTry: switchyard run --model=vgg11 --batch=1\n";
    text += MpiBuilt()
                ? "\nMPI: `mpirun -np N switchyard run|bench ...` runs one rank per device "
                  "and rank 0 merges their results (docs/scaling.md).\n"
                : absl::StrCat("\nMPI: not in this build (", MpiMissingReason(),
                               "); mpirun -np N switchyard ... needs it.\n");
    return text;
  }
  for (const auto& [name, line] : Commands()) {
    if (name == command) {
      text = absl::StrCat("usage: switchyard ", command, " [flags]\n  ", line, "\n");
    }
  }
  for (const char* group : kGroups) {
    std::string lines;
    for (const FlagUse& use : FlagUses()) {
      if (use.group != group ||
          std::find(use.commands.begin(), use.commands.end(), command) ==
              use.commands.end()) {
        continue;
      }
      absl::CommandLineFlag* flag = absl::FindCommandLineFlag(use.name);
      std::string name = use.name;
      std::replace(name.begin(), name.end(), '_', '-');
      absl::StrAppend(&lines, "  --", name, "  (default ",
                      DefaultFor(command, use.name), ")\n      ",
                      flag != nullptr ? flag->Help() : std::string(), "\n");
    }
    if (!lines.empty()) absl::StrAppend(&text, "\n", group, ":\n", lines);
  }
  return text;
}

std::string ResolveUserPath(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (cwd == nullptr || *cwd == '\0') return path;
  return absl::StrCat(cwd, "/", path);
}

}  // namespace cli
}  // namespace switchyard
