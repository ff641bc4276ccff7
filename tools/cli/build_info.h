#ifndef SWITCHYARD_TOOLS_CLI_BUILD_INFO_H_
#define SWITCHYARD_TOOLS_CLI_BUILD_INFO_H_

// What this binary is: `switchyard --version`, and the "build" object of every
// JSON report (run --report, bench --json).

#include <string>

#include "core/backend_registry.h"
#include "nlohmann/json.hpp"

namespace switchyard {
namespace cli {

// {"version", "git_commit", "build_mode" (opt: NDEBUG, else dbg), "cuda"
// (whether the CUDA backend has devices, or why not), "target_cpu" (the
// instruction sets compiled for: avx2, fma, ...)}.
nlohmann::json BuildInfoJson(BackendRegistry& registry);

// The same as lines of text.
std::string BuildInfoText(BackendRegistry& registry);

// The machine a measurement ran on: CPU model, cores, load average (1, 5,
// 15 min).
nlohmann::json MachineJson();

}  // namespace cli
}  // namespace switchyard

#endif  // SWITCHYARD_TOOLS_CLI_BUILD_INFO_H_
