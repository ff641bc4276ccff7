#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "core/compile.h"
#include "core/status_macros.h"
#include "models/model_zoo.h"
#include "runtime/graph_description.h"
#include "runtime/model_inputs.h"
#include "runtime/session.h"
#include "tools/cli/commands.h"
#include "tools/cli/device_choice.h"
#include "tools/cli/flags.h"

namespace switchyard {
namespace cli {

using runtime::InputRequest;
using runtime::InputShapes;
using runtime::Session;

absl::Status GraphCommand(BackendRegistry& registry) {
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "text" && format != "dot") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--format must be text or dot, got '", format, "'"));
  }
  SY_ASSIGN_OR_RETURN(const FlagDevice chosen, DeviceFromFlags(registry));
  const Device device = chosen.device;
  const std::string model_name = ModelFlag();
  SY_ASSIGN_OR_RETURN(int64_t batch, BatchFlag());
  const std::string input_flag = absl::GetFlag(FLAGS_input_device);
  SY_ASSIGN_OR_RETURN(Device input_device,
                      input_flag.empty() ? absl::StatusOr<Device>(device)
                                         : Device::Parse(input_flag));
  SY_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Open(model_name, registry));
  InputRequest request;
  request.shapes = InputShapeFlagValues();
  if (FlagGiven("batch")) request.batch = batch;
  absl::StatusOr<std::vector<InputSpec>> specs = session->InputSpecsFor(request, input_device);
  if (!specs.ok()) {
    return absl::Status(specs.status().code(),
                        absl::StrCat(model_name, ": ", specs.status().message()));
  }
  SY_RETURN_IF_ERROR(session->To(device));
  // The graph's structure does not depend on the values: zeros are cheaper
  // than the seeded initialisation (a model file has its own weights).
  SY_RETURN_IF_ERROR(ZeroModel(session->module()));
  SY_ASSIGN_OR_RETURN(const runtime::GraphDescription d,
                      runtime::DescribeGraph(*session, *specs, chosen.placement, device,
                                             absl::GetFlag(FLAGS_seed), registry,
                                             format == "dot"
                                                 ? runtime::GraphDetail::kPlacedGraph
                                                 : runtime::GraphDetail::kEverything));
  if (d.staged) {
    // Shapes decided while the model runs: no one graph, but the steps of
    // one run (each segment's graph, the waits for run-time data).
    if (format == "dot") {
      return absl::UnimplementedError(absl::StrCat(
          "this model's shapes are decided while it runs, so it has no single graph "
          "to draw (", d.static_error, "); `graph --format=text` prints the "
          "steps of one run"));
    }
    std::printf("shapes decided while the model runs: %zu step%s of one run on seeded "
                "inputs (--seed; other data may take other branches and sizes)\n",
                d.steps.size(), d.steps.size() == 1 ? "" : "s");
    for (size_t i = 0; i < d.steps.size(); ++i) {
      std::printf("step %zu: %s", i + 1, d.steps[i].c_str());
    }
    return absl::OkStatus();
  }
  if (format == "dot") {
    std::printf("%s", d.dot.c_str());
    return absl::OkStatus();
  }
  std::printf("%s", d.text.c_str());
  if (!d.placement_report.empty()) std::printf("%s\n", d.placement_report.c_str());
  std::printf("fused: %d group%s\n%s", d.partition_count, d.partition_count == 1 ? "" : "s",
              d.partitions.c_str());
  std::printf("buffer plan: %d slot%s, %.1f MiB for intermediates (%.1f MiB "
              "without reuse)\n",
              d.buffer_slots, d.buffer_slots == 1 ? "" : "s", d.planned_bytes / 1048576.0,
              d.unplanned_bytes / 1048576.0);
  if (!d.lowering_error.empty()) {
    std::printf("kernels: not lowered here (%s)\n", d.lowering_error.c_str());
  } else {
    std::printf("kernels:\n%s", d.kernels.c_str());
  }
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace switchyard
