#ifndef SWITCHYARD_TOOLS_CLI_COMMANDS_H_
#define SWITCHYARD_TOOLS_CLI_COMMANDS_H_

#include "absl/status/status.h"
#include "core/backend_registry.h"

namespace switchyard {
namespace cli {

// `switchyard devices`: every backend, its devices, or why it has none.
absl::Status DevicesCommand(BackendRegistry& registry);

// `switchyard run`: a model on one device; top-5, timing, optional outputs.
absl::Status RunCommand(BackendRegistry& registry);

// `switchyard graph`: the traced, placed IR as text or Graphviz DOT.
absl::Status GraphCommand(BackendRegistry& registry);

// `switchyard bench`: a model on every device and batch size; forward, copies
// and end to end, median and p95 (runtime/bench.h).
absl::Status BenchCommand(BackendRegistry& registry);

}  // namespace cli
}  // namespace switchyard

#endif  // SWITCHYARD_TOOLS_CLI_COMMANDS_H_
