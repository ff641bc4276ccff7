#ifndef SWITCHYARD_TOOLS_CLI_FLAGS_H_
#define SWITCHYARD_TOOLS_CLI_FLAGS_H_

#include <cstdint>
#include <string>

#include "absl/flags/declare.h"

// The command line's flags, shared by the subcommands (see main.cc).
ABSL_DECLARE_FLAG(std::string, model);
ABSL_DECLARE_FLAG(std::string, weights);
ABSL_DECLARE_FLAG(std::string, input);
ABSL_DECLARE_FLAG(std::string, output);
ABSL_DECLARE_FLAG(std::string, report);
ABSL_DECLARE_FLAG(std::string, device);
ABSL_DECLARE_FLAG(std::string, format);
ABSL_DECLARE_FLAG(int64_t, batch);
ABSL_DECLARE_FLAG(int32_t, warmup);
ABSL_DECLARE_FLAG(int32_t, iterations);
ABSL_DECLARE_FLAG(int32_t, threads);
ABSL_DECLARE_FLAG(uint64_t, seed);

namespace switchyard {
namespace cli {

// A user's path, relative to where they ran `bazel run` (which starts the
// binary in its runfiles tree and says where the user was in
// BUILD_WORKING_DIRECTORY); unchanged when absolute or outside bazel run.
std::string ResolveUserPath(const std::string& path);

}  // namespace cli
}  // namespace switchyard

#endif  // SWITCHYARD_TOOLS_CLI_FLAGS_H_
