#ifndef SWITCHYARD_TOOLS_CLI_UTILIZATION_H_
#define SWITCHYARD_TOOLS_CLI_UTILIZATION_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "core/backend_registry.h"
#include "core/executable_plan.h"
#include "core/file_transaction.h"
#include "nlohmann/json.hpp"
#include "core/tensor.h"

namespace switchyard {
namespace cli {

// `switchyard run --batches=N [--loader-threads=T] [--prefetch=K]
// [--loader-cost-ms=C] [--loader-work=busy|sleep]`: streams N batches
// through an input pipeline (runtime/pipeline.h) and prints the
// utilization report (core/timeline_analysis.h): per-phase times, the
// device's busy share, time waiting for input, a one-line diagnosis.
// --profile / --profile-summary cover the stream; --report writes the
// report as JSON.

// Whether --batches asks for a stream.
bool PipelineRequested();

// What `run` adds to a stream.
struct StreamHooks {
  // Samples one batch holds (runtime/samples_per_run.h); 0: dimension 0
  // of the input.
  int64_t samples_per_batch = 0;
  // --images: each batch's outputs, with a test for the files found bad so
  // far (a bad file's slot holds another file).
  std::function<absl::Status(int index, absl::Span<const Tensor> outputs,
                             const std::function<bool(const std::string& path)>& is_bad)>
      image_outputs;
};

// Runs the stream on `plan`, whose input is `input` (the device tensor each
// batch is copied into).
// --report and --profile are staged in `files` (added by the caller before
// the run); `extra` is merged into the report (build and machine facts).
absl::Status RunPipelineCommand(ExecutablePlan& plan, const Tensor& input,
                                BackendRegistry& registry, FileTransaction& files,
                                const nlohmann::json& extra,
                                const StreamHooks& hooks = {});

// --batches, --loader-threads, --prefetch, --loader-cost-ms, --loader-work
// range-checked (and refused without --batches), before any work.
absl::Status CheckPipelineFlags();

}  // namespace cli
}  // namespace switchyard

#endif  // SWITCHYARD_TOOLS_CLI_UTILIZATION_H_
