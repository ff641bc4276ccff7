#include "ops/functional.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/compile.h"
#include "core/op_def.h"
#include "core/status_macros.h"

namespace switchyard {
namespace functional {
namespace {

// The name of operand `i` in the schema ("input", "weight"; "inputs.2" for
// the third value of a variadic one).
std::string OperandName(const OpSchema& schema, size_t i) {
  if (schema.inputs.empty()) return absl::StrCat("operand ", i);
  if (i < schema.inputs.size() && !schema.inputs[i].variadic) {
    return schema.inputs[i].name;
  }
  const size_t last = schema.inputs.size() - 1;
  return absl::StrCat(schema.inputs[last].name, ".", i - last);
}

absl::StatusOr<Tensor> Single(absl::StatusOr<std::vector<Tensor>> outputs) {
  if (!outputs.ok()) return outputs.status();
  if (outputs->size() != 1) {
    return absl::InternalError(absl::StrCat("a single-output call gave ",
                                            outputs->size(), " outputs"));
  }
  return std::move((*outputs)[0]);
}

}  // namespace

// Every operand is a graph input (not a constant), so placement sees each
// tensor's own device and names it in its error.
absl::StatusOr<std::vector<Tensor>> Call(const std::string& op,
                                         const std::vector<Tensor>& operands,
                                         const AttrMap& attrs,
                                         BackendRegistry& registry) {
  CompileOptions options;
  options.backends = &registry;
  SY_ASSIGN_OR_RETURN(const OpDef* def, options.ops->Find(op));
  const OpSchema& schema = def->schema();
  // Undefined tensors at the end, past the required operands, are optional
  // operands left out.
  size_t count = operands.size();
  while (count > static_cast<size_t>(schema.min_inputs()) &&
         !operands[count - 1].defined()) {
    --count;
  }

  Graph graph;
  std::vector<ValueId> ids;
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < count; ++i) {
    const std::string name = OperandName(schema, i);
    if (!operands[i].defined()) {
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": operand '", name,
                       "' is an undefined tensor; only optional operands (",
                       schema.InputsToString(), ") may be left out"));
    }
    ids.push_back(graph.AddInput(name, operands[i].shape(),
                                 operands[i].device(), operands[i].dtype()));
    inputs.push_back(operands[i]);
  }
  const std::vector<ValueId> outputs = graph.AddNodeWithOutputs(
      op, op, std::move(ids), attrs, static_cast<int>(schema.outputs.size()));
  for (ValueId id : outputs) graph.AddOutput(id);
  SY_ASSIGN_OR_RETURN(std::unique_ptr<ExecutablePlan> plan,
                      Compile(std::move(graph), options));
  return plan->Run(inputs);
}

absl::StatusOr<Tensor> Add(const Tensor& input, const Tensor& other,
                           BackendRegistry& registry) {
  return Single(Call("add", {input, other}, AttrMap(), registry));
}

absl::StatusOr<Tensor> Relu(const Tensor& input, BackendRegistry& registry) {
  return Single(Call("relu", {input}, AttrMap(), registry));
}

absl::StatusOr<Tensor> Linear(const Tensor& input, const Tensor& weight,
                              const Tensor& bias, BackendRegistry& registry) {
  return Single(Call("linear", {input, weight, bias}, AttrMap(), registry));
}

absl::StatusOr<Tensor> Conv2d(const Tensor& input, const Tensor& weight,
                              const Tensor& bias, const Conv2dAttrs& attrs,
                              BackendRegistry& registry) {
  return Single(
      Call("conv2d", {input, weight, bias}, attrs.ToAttrMap(), registry));
}

absl::StatusOr<Tensor> MaxPool2d(const Tensor& input,
                                 const MaxPool2dAttrs& attrs,
                                 BackendRegistry& registry) {
  return Single(Call("max_pool2d", {input}, attrs.ToAttrMap(), registry));
}

absl::StatusOr<Tensor> AdaptiveAvgPool2d(const Tensor& input,
                                         const AdaptiveAvgPool2dAttrs& attrs,
                                         BackendRegistry& registry) {
  return Single(
      Call("adaptive_avg_pool2d", {input}, attrs.ToAttrMap(), registry));
}

absl::StatusOr<Tensor> Flatten(const Tensor& input, const FlattenAttrs& attrs,
                               BackendRegistry& registry) {
  return Single(Call("flatten", {input}, attrs.ToAttrMap(), registry));
}

absl::StatusOr<Tensor> Softmax(const Tensor& input, const SoftmaxAttrs& attrs,
                               BackendRegistry& registry) {
  return Single(Call("softmax", {input}, attrs.ToAttrMap(), registry));
}

absl::StatusOr<Tensor> Dropout(const Tensor& input, const DropoutAttrs& attrs,
                               BackendRegistry& registry) {
  return Single(Call("dropout", {input}, attrs.ToAttrMap(), registry));
}

absl::StatusOr<Tensor> BatchNorm(const Tensor& input, const Tensor& weight,
                                 const Tensor& bias, const Tensor& running_mean,
                                 const Tensor& running_var,
                                 const BatchNormAttrs& attrs,
                                 BackendRegistry& registry) {
  return Single(Call("batch_norm",
                     {input, weight, bias, running_mean, running_var},
                     attrs.ToAttrMap(), registry));
}

}  // namespace functional
}  // namespace switchyard
