#ifndef SWITCHYARD_TOOLS_CLI_FLAGS_H_
#define SWITCHYARD_TOOLS_CLI_FLAGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/backend_registry.h"
#include "core/shape.h"

// The command line's flags, shared by the subcommands (see main.cc).
ABSL_DECLARE_FLAG(std::string, model);  // use ModelFlag
ABSL_DECLARE_FLAG(std::string, input_shape);  // use InputShapeFlag(Values)
ABSL_DECLARE_FLAG(std::string, weights);
ABSL_DECLARE_FLAG(std::string, input);  // use InputFlagValues
ABSL_DECLARE_FLAG(std::string, output);
ABSL_DECLARE_FLAG(std::string, report);
ABSL_DECLARE_FLAG(std::string, device);
ABSL_DECLARE_FLAG(std::string, format);
ABSL_DECLARE_FLAG(std::string, batch);  // use BatchFlag / BatchListFlag
ABSL_DECLARE_FLAG(int32_t, warmup);
ABSL_DECLARE_FLAG(int32_t, iterations);
ABSL_DECLARE_FLAG(int32_t, threads);
ABSL_DECLARE_FLAG(uint64_t, seed);
ABSL_DECLARE_FLAG(std::string, placement);
ABSL_DECLARE_FLAG(std::string, input_device);
ABSL_DECLARE_FLAG(bool, explain_placement);
ABSL_DECLARE_FLAG(std::vector<std::string>, plugin);  // use PluginFlagPaths
ABSL_DECLARE_FLAG(std::vector<std::string>,
                  backend_option);  // use BackendOptionFlags

namespace switchyard {
namespace cli {

// A user's path, relative to where they ran `bazel run` (which starts the
// binary in its runfiles tree and says where the user was in
// BUILD_WORKING_DIRECTORY); unchanged when absolute or outside bazel run.
std::string ResolveUserPath(const std::string& path);

// --batch as one size (run, graph; InvalidArgument for a list) or as the
// list `switchyard bench` takes ("1,8,32"). Values are checked by the
// commands (ModelInputShape says "batch must be >= 1").
absl::StatusOr<int64_t> BatchFlag();

// --model: a built-in name as given, or a file path resolved like
// ResolveUserPath.
std::string ModelFlag();
// --input_shape ("1x3x224x224") for a built-in model's one input, or
// nullopt when not given; InvalidArgument for several or named shapes.
absl::StatusOr<std::optional<Shape>> InputShapeFlag();
// Every --input_shape and every --input value, in command-line order
// (repeated flags append; Abseil itself keeps only the last value), for
// model files (runtime/model_inputs.h).
const std::vector<std::string>& InputShapeFlagValues();
// --precompile: the sets of input shapes to compile for before the run, each
// in --input_shape's form ("1x3x224x224", or "ids:1x128" per input).
std::vector<std::vector<std::string>> PrecompileFlagSets();
const std::vector<std::string>& InputFlagValues();
absl::StatusOr<std::vector<int64_t>> BatchListFlag();

// Which flags the command line named, for commands whose defaults differ
// from the shared flag's (bench: --warmup=2 --iterations=10 --batch=1,8).
// main() records argv (flag names with underscores) before parsing.
void RecordGivenFlags(int argc, char** argv);
bool FlagGiven(const std::string& name);

// Every --plugin path in command-line order, repeated flags and
// comma-separated lists alike (Abseil itself keeps only the last value).
const std::vector<std::string>& PluginFlagPaths();

// Every --backend_option ("cpu.fusion=off") in command-line order.
const std::vector<std::string>& BackendOptionFlags();

// Sets --threads (as cpu.threads), then each --backend_option in order, in
// `registry`; main() calls it after loading plugins (whose backends take
// options too) and before any command. Errors name the flag.
absl::Status ApplyBackendOptionFlags(BackendRegistry& registry);

// InvalidArgument naming the flag, the value and the allowed range when
// `value` is outside [min, max]; `why` explains the upper limit.
absl::Status CheckRange(absl::string_view flag, int64_t value, int64_t min,
                        int64_t max, absl::string_view why = "");

// --threads, SWITCHYARD_CPU_THREADS and every cpu.threads backend option
// against core/thread_limit.h's MaxThreadCount().
absl::Status CheckThreadFlags();

// Whether a run of `input_shape` (float32 images) can fit in this machine's
// memory: the model's activations are estimated at kActivationFactor times
// the input; ResourceExhausted naming the flag and the largest batch that
// fits otherwise. Called before anything is allocated.
absl::Status CheckBatchFitsMemory(absl::string_view flag, const Shape& input_shape);

// Flags given that `command` does not take: InvalidArgument naming the flag
// and the commands that take it. Also refuses an empty --plugin=.
absl::Status CheckFlagsApply(const std::string& command);

// Help: every command with a line, and one command's flags grouped with
// their defaults ("" for the overview).
std::string CommandHelp(const std::string& command);
bool IsCommand(const std::string& command);

}  // namespace cli
}  // namespace switchyard

#endif  // SWITCHYARD_TOOLS_CLI_FLAGS_H_
