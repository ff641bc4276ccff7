#ifndef SWITCHYARD_TOOLS_CLI_RANK_COMMAND_H_
#define SWITCHYARD_TOOLS_CLI_RANK_COMMAND_H_

// A `switchyard` command run as one rank of an MPI job:
//
//   mpirun -np 4 switchyard bench --model=vgg11 --devices=cuda
//   mpirun -np 2 switchyard run --model=det.onnx --images=photos/ --output=out/
//
// Every rank runs the ordinary command on its own device with its own share
// of the work, and rank 0 merges what they did (docs/scaling.md):
//   - devices: a bare type ("cuda") means the rank's local device
//     (cuda:<local rank>); the CPU is one device every rank on a host
//     shares, so without --threads each rank gets the host's cores divided by
//     the ranks on it;
//   - --images: each rank takes a contiguous block of the sorted files;
//   - files: each rank writes its --output, --report, --profile and --json
//     into a private temporary folder; rank 0 gathers them, merges the
//     reports (one table, per-rank rows, totals, a straggler verdict) and the
//     traces (one process per rank), and publishes everything in one
//     FileTransaction only when every rank succeeded;
//   - what a rank prints goes to rank 0, which prints it once per rank
//     (ranks that printed the same text together);
//   - a rank that fails is named, with its host, device and error, and every
//     rank exits 1; a rank that dies makes mpirun end the job; a rank that
//     stops answering is named after --rank-timeout and the job is aborted.

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "core/backend_registry.h"
#include "runtime/mpi_world.h"

namespace switchyard {
namespace cli {

using CommandFn = std::function<absl::Status(BackendRegistry&)>;

// Runs `command` ("run", "bench", ...) as this process's rank of `world`.
// Returns the process's exit code, the same on every rank: 0 when every rank
// succeeded and rank 0 published the results, else 1.
int RunCommandAsRank(runtime::MpiWorld& world, const std::string& command_name,
                     const CommandFn& command, BackendRegistry& registry);

}  // namespace cli
}  // namespace switchyard

#endif  // SWITCHYARD_TOOLS_CLI_RANK_COMMAND_H_
