#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "core/buffer_plan.h"
#include "core/compile.h"
#include "core/executable_plan.h"
#include "core/partition.h"
#include "core/status_macros.h"
#include "models/model_zoo.h"
#include "runtime/model_inputs.h"
#include "runtime/seeded_input.h"
#include "runtime/session.h"
#include "tools/cli/commands.h"
#include "tools/cli/device_choice.h"
#include "tools/cli/flags.h"

namespace switchyard {
namespace cli {

using runtime::InputRequest;
using runtime::InputShapes;
using runtime::SeededArray;
using runtime::Session;

namespace {

// `graph` on a model whose shapes are decided while it runs: one run on
// seeded inputs, printed step by step (Session::DescribeRun). Other data
// may take other branches, sizes or trip counts.
absl::Status DescribeStagedRun(Session& session, const std::vector<InputSpec>& specs,
                               const std::string& format, BackendRegistry& registry,
                               const absl::Status& static_error) {
  if (format == "dot") {
    return absl::UnimplementedError(absl::StrCat(
        "this model's shapes are decided while it runs, so it has no single graph "
        "to draw (", static_error.message(), "); `graph --format=text` prints the "
        "steps of one run"));
  }
  std::mt19937_64 rng(absl::GetFlag(FLAGS_seed));
  std::vector<Tensor> inputs;
  for (const InputSpec& spec : specs) {
    const HostArray host = SeededArray(spec.shape, spec.dtype, rng);
    SY_ASSIGN_OR_RETURN(BackendDevice * device, registry.GetDevice(spec.device));
    SY_ASSIGN_OR_RETURN(Tensor t, Tensor::FromBytes(host.shape, host.dtype, host.bytes.data(),
                                                    host.bytes.size(), *device));
    inputs.push_back(std::move(t));
  }
  SY_ASSIGN_OR_RETURN(std::vector<std::string> steps, session.DescribeRun(inputs));
  std::printf("shapes decided while the model runs: %zu step%s of one run on seeded "
              "inputs (--seed; other data may take other branches and sizes)\n",
              steps.size(), steps.size() == 1 ? "" : "s");
  for (size_t i = 0; i < steps.size(); ++i) {
    std::printf("step %zu: %s", i + 1, steps[i].c_str());
  }
  return absl::OkStatus();
}

}  // namespace

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
  // A built-in model's input shape is checked before the model is built; a
  // model file declares its own inputs (any number, any dtypes).
  std::vector<InputSpec> specs;
  const std::vector<std::string> zoo = ModelNames();
  if (std::find(zoo.begin(), zoo.end(), model_name) != zoo.end()) {
    SY_ASSIGN_OR_RETURN(std::optional<Shape> input_shape_flag, InputShapeFlag());
    SY_ASSIGN_OR_RETURN(Shape input_shape,
                        ModelInputShape(model_name, batch, input_shape_flag));
    specs.push_back({input_shape, DType::kFloat32, input_device});
  }
  SY_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Open(model_name, registry));
  if (!session->builtin()) {
    InputRequest request;
    request.shapes = InputShapeFlagValues();
    if (FlagGiven("batch")) request.batch = batch;
    absl::StatusOr<std::vector<Shape>> shapes = InputShapes(session->inputs(), request);
    if (!shapes.ok()) {
      return absl::Status(shapes.status().code(),
                          absl::StrCat(model_name, ": ", shapes.status().message()));
    }
    for (size_t i = 0; i < shapes->size(); ++i) {
      specs.push_back({(*shapes)[i], session->inputs()[i].dtype, input_device});
    }
  }
  SY_RETURN_IF_ERROR(session->To(device));
  // The graph's structure does not depend on the values: zeros are cheaper
  // than the seeded initialisation (a model file has its own weights).
  SY_RETURN_IF_ERROR(ZeroModel(session->module()));
  absl::StatusOr<Graph> traced = session->module().TraceGraph(specs);
  if (!traced.ok() && session->supports_staged_run()) {
    // Shapes decided while the model runs: no one graph, but the steps of
    // one run (each segment's graph, the waits for run-time data).
    return DescribeStagedRun(*session, specs, format, registry, traced.status());
  }
  if (!traced.ok()) return traced.status();
  Graph graph = *std::move(traced);
  CompileOptions options;
  options.backends = &registry;
  options.placement = chosen.placement;
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
