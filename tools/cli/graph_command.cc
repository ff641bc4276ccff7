#include <cstdio>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "core/buffer_plan.h"
#include "core/compile.h"
#include "core/executable_plan.h"
#include "core/partition.h"
#include "core/status_macros.h"
#include "models/model_zoo.h"
#include "tools/cli/commands.h"
#include "tools/cli/flags.h"

namespace switchyard {
namespace cli {

absl::Status GraphCommand(BackendRegistry& registry) {
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "text" && format != "dot") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--format must be text or dot, got '", format, "'"));
  }
  SY_ASSIGN_OR_RETURN(Device device, Device::Parse(absl::GetFlag(FLAGS_device)));
  const std::string model_name = ModelFlag();
  SY_ASSIGN_OR_RETURN(int64_t batch, BatchFlag());
  SY_ASSIGN_OR_RETURN(std::optional<Shape> input_shape_flag, InputShapeFlag());
  SY_ASSIGN_OR_RETURN(Shape input_shape,
                      ModelInputShape(model_name, batch, input_shape_flag));
  SY_ASSIGN_OR_RETURN(std::unique_ptr<Module> model,
                      CreateModel(model_name, registry));
  SY_RETURN_IF_ERROR(model->To(device));
  // The graph's structure does not depend on the values: zeros are cheaper
  // than the seeded initialisation (a model file has its own weights).
  SY_RETURN_IF_ERROR(ZeroModel(*model));
  const std::string input_flag = absl::GetFlag(FLAGS_input_device);
  SY_ASSIGN_OR_RETURN(Device input_device,
                      input_flag.empty() ? absl::StatusOr<Device>(device)
                                         : Device::Parse(input_flag));
  SY_ASSIGN_OR_RETURN(Graph graph, model->TraceGraph(input_shape, input_device));
  CompileOptions options;
  options.backends = &registry;
  SY_ASSIGN_OR_RETURN(options.placement,
                      ParsePlacementPolicy(absl::GetFlag(FLAGS_placement)));
  options.target = device;
  PlacementReport report;
  options.report = &report;
  SY_RETURN_IF_ERROR(InferAndPlace(graph, options));
  if (format == "dot") {
    std::printf("%s", graph.ToDot().c_str());
    return absl::OkStatus();
  }
  std::printf("%s", graph.ToText().c_str());
  if (options.placement == PlacementPolicy::kAuto) {
    std::printf("%s\n", report.ToString().c_str());
  }
  // What each backend runs as one kernel (fusion), as lowering will.
  SY_ASSIGN_OR_RETURN(std::vector<Partition> partitions,
                      ClaimPartitions(graph, registry));
  std::printf("fused: %zu group%s\n%s", partitions.size(),
              partitions.size() == 1 ? "" : "s",
              PartitionsToString(graph, partitions).c_str());
  SY_ASSIGN_OR_RETURN(BufferPlan plan,
                      PlanBuffers(graph, PlannedSteps(graph, partitions)));
  std::printf("buffer plan: %zu slot%s, %.1f MiB for intermediates (%.1f MiB "
              "without reuse)\n",
              plan.slots.size(), plan.slots.size() == 1 ? "" : "s",
              plan.planned_bytes / 1048576.0, plan.unplanned_bytes / 1048576.0);
  // What each kernel chose (the cpu's conv2d algorithm), from a lowered
  // plan: kernels decide at creation.
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> lowered =
      ExecutablePlan::Lower(std::move(graph), registry);
  if (!lowered.ok()) {
    std::printf("kernels: not lowered here (%s)\n",
                std::string(lowered.status().message()).c_str());
  } else {
    std::printf("kernels:\n%s", (*lowered)->KernelsToString().c_str());
  }
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace switchyard
