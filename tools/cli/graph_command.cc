#include <cstdio>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "core/buffer_plan.h"
#include "core/compile.h"
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
  const std::string model_name = absl::GetFlag(FLAGS_model);
  SY_ASSIGN_OR_RETURN(Shape input_shape,
                      ModelInputShape(model_name, absl::GetFlag(FLAGS_batch)));
  SY_ASSIGN_OR_RETURN(std::unique_ptr<Module> model,
                      CreateModel(model_name, registry));
  SY_RETURN_IF_ERROR(model->To(device));
  // The graph's structure does not depend on the values: zeros are cheaper
  // than the seeded initialisation.
  SY_RETURN_IF_ERROR(ZeroModel(*model));
  SY_ASSIGN_OR_RETURN(Graph graph, model->TraceGraph(input_shape, device));
  CompileOptions options;
  options.backends = &registry;
  SY_RETURN_IF_ERROR(InferAndPlace(graph, options));
  if (format == "dot") {
    std::printf("%s", graph.ToDot().c_str());
    return absl::OkStatus();
  }
  std::printf("%s", graph.ToText().c_str());
  SY_ASSIGN_OR_RETURN(BufferPlan plan, PlanBuffers(graph));
  std::printf("buffer plan: %zu slot%s, %.1f MiB for intermediates (%.1f MiB "
              "without reuse)\n",
              plan.slots.size(), plan.slots.size() == 1 ? "" : "s",
              plan.planned_bytes / 1048576.0, plan.unplanned_bytes / 1048576.0);
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace switchyard
