#include "ops/functional.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/compile.h"
#include "core/status_macros.h"

namespace switchyard {
namespace functional {
namespace {

struct Operand {
  const char* name;
  const Tensor* tensor;
};

// Every operand is a graph input (not a constant), so placement sees each
// tensor's own device and names it in its error.
absl::StatusOr<Tensor> RunOne(const std::string& op, std::vector<Operand> operands,
                              AttrMap attrs, BackendRegistry& registry) {
  Graph graph;
  std::vector<ValueId> ids;
  std::vector<Tensor> inputs;
  for (const Operand& operand : operands) {
    if (operand.tensor == nullptr) continue;  // an absent optional operand
    if (!operand.tensor->defined()) {
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": operand '", operand.name, "' is an undefined tensor"));
    }
    ids.push_back(graph.AddInput(operand.name, operand.tensor->shape(),
                                 operand.tensor->device(), operand.tensor->dtype()));
    inputs.push_back(*operand.tensor);
  }
  graph.AddOutput(graph.AddNode(op, op, ids, std::move(attrs)));
  CompileOptions options;
  options.backends = &registry;
  SY_ASSIGN_OR_RETURN(std::unique_ptr<ExecutablePlan> plan,
                      Compile(std::move(graph), options));
  SY_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, plan->Run(inputs));
  return outputs[0];
}

const Tensor* Optional(const Tensor& t) { return t.defined() ? &t : nullptr; }

}  // namespace

absl::StatusOr<Tensor> Add(const Tensor& input, const Tensor& other,
                           BackendRegistry& registry) {
  return RunOne("add", {{"input", &input}, {"other", &other}}, AttrMap(), registry);
}

absl::StatusOr<Tensor> Relu(const Tensor& input, BackendRegistry& registry) {
  return RunOne("relu", {{"input", &input}}, AttrMap(), registry);
}

absl::StatusOr<Tensor> Linear(const Tensor& input, const Tensor& weight,
                              const Tensor& bias, BackendRegistry& registry) {
  return RunOne("linear",
                {{"input", &input}, {"weight", &weight}, {"bias", Optional(bias)}},
                AttrMap(), registry);
}

absl::StatusOr<Tensor> Conv2d(const Tensor& input, const Tensor& weight,
                              const Tensor& bias, const Conv2dArgs& args,
                              BackendRegistry& registry) {
  AttrMap attrs;
  attrs.Set("stride", args.stride);
  attrs.Set("padding", args.padding);
  attrs.Set("dilation", args.dilation);
  attrs.Set("groups", args.groups);
  return RunOne("conv2d",
                {{"input", &input}, {"weight", &weight}, {"bias", Optional(bias)}},
                std::move(attrs), registry);
}

absl::StatusOr<Tensor> MaxPool2d(const Tensor& input, std::vector<int64_t> kernel_size,
                                 std::vector<int64_t> stride,
                                 BackendRegistry& registry) {
  AttrMap attrs;
  attrs.Set("kernel_size", std::move(kernel_size));
  attrs.Set("stride", std::move(stride));
  return RunOne("max_pool2d", {{"input", &input}}, std::move(attrs), registry);
}

absl::StatusOr<Tensor> AdaptiveAvgPool2d(const Tensor& input,
                                         std::vector<int64_t> output_size,
                                         BackendRegistry& registry) {
  AttrMap attrs;
  attrs.Set("output_size", std::move(output_size));
  return RunOne("adaptive_avg_pool2d", {{"input", &input}}, std::move(attrs), registry);
}

absl::StatusOr<Tensor> Flatten(const Tensor& input, int64_t start_dim,
                               int64_t end_dim, BackendRegistry& registry) {
  AttrMap attrs;
  attrs.Set("start_dim", start_dim);
  attrs.Set("end_dim", end_dim);
  return RunOne("flatten", {{"input", &input}}, std::move(attrs), registry);
}

absl::StatusOr<Tensor> Softmax(const Tensor& input, int64_t dim,
                               BackendRegistry& registry) {
  AttrMap attrs;
  attrs.Set("dim", dim);
  return RunOne("softmax", {{"input", &input}}, std::move(attrs), registry);
}

}  // namespace functional
}  // namespace switchyard
