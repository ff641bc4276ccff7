#include "passes/fold_batch_norm.h"

#include <cmath>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "core/optimization_pass_registry.h"
#include "core/tensor.h"
#include "ops/norm_attrs.h"
#include "ops/op_names.h"

namespace switchyard {
namespace {

// Operand positions of batch_norm (ops/batch_norm.cc) and conv2d
// (ops/conv2d.cc).
enum BatchNormOperand { kInput, kGamma, kBeta, kMean, kVar, kNumOperands };
constexpr int kConvWeight = 1;
constexpr int kConvBias = 2;

// A constant's elements as doubles; nullopt unless `id` is a floating-point
// constant of `elements` elements on `device` (folding constants from
// several devices would hide the mixed placement strict placement reports).
absl::StatusOr<std::optional<std::vector<double>>> ConstantValues(
    const Graph& graph, ValueId id, int64_t elements, const Device& device) {
  const Value& v = graph.value(id);
  if (!v.constant.has_value() || !v.constant->defined() ||
      !IsFloatingPoint(v.dtype) || v.constant->num_elements() != elements ||
      v.constant->device() != device) {
    return std::optional<std::vector<double>>();
  }
  SY_ASSIGN_OR_RETURN(const std::vector<char> bytes, v.constant->ToBytes());
  std::vector<double> values(static_cast<size_t>(elements));
  for (int64_t i = 0; i < elements; ++i) {
    values[i] = ElementAsDouble(bytes.data(), v.dtype, i);
  }
  return std::optional<std::vector<double>>(std::move(values));
}

// How many times each value is read: by node operands and as graph outputs.
std::vector<int> CountReaders(const Graph& graph) {
  std::vector<int> readers(graph.values().size(), 0);
  for (const Node& node : graph.nodes()) {
    for (ValueId v : node.inputs) ++readers[v];
  }
  for (ValueId v : graph.outputs()) ++readers[v];
  return readers;
}

// A new constant of `dtype` and `shape` holding `values`, on `device`.
absl::StatusOr<ValueId> AddFoldedConstant(Graph& graph, const std::string& name,
                                          const Shape& shape, DType dtype,
                                          const std::vector<double>& values,
                                          BackendDevice& device) {
  std::vector<char> bytes(values.size() * DTypeSize(dtype));
  for (size_t i = 0; i < values.size(); ++i) {
    SetElementFromDouble(bytes.data(), dtype, static_cast<int64_t>(i),
                         values[i]);
  }
  SY_ASSIGN_OR_RETURN(
      Tensor tensor,
      Tensor::FromBytes(shape, dtype, bytes.data(), bytes.size(), device));
  return graph.AddConstant(name, tensor);
}

// Folds batch_norm node `bn_id` into its producer when it can; returns
// whether it did.
absl::StatusOr<bool> TryFold(Graph& graph, NodeId bn_id,
                             const std::vector<int>& readers) {
  const Node& bn = graph.node(bn_id);
  if (bn.inputs.size() != kNumOperands) return false;
  const ValueId conv_out = bn.inputs[kInput];
  const NodeId conv_id = graph.value(conv_out).producer;
  if (conv_id < 0 || readers[conv_out] != 1) return false;
  const Node& conv = graph.node(conv_id);
  if (conv.op != op_names::kConv2d || conv.outputs.size() != 1 ||
      conv.inputs.size() < 2) {
    return false;
  }
  const Value& weight = graph.value(conv.inputs[kConvWeight]);
  if (!weight.constant.has_value() || !weight.constant->defined() ||
      weight.constant->shape().rank() < 1 || !IsFloatingPoint(weight.dtype)) {
    return false;
  }
  // Copies: adding constants below reallocates the graph's values.
  const Shape weight_shape = weight.constant->shape();
  const std::string weight_name = weight.name;
  const int64_t channels = weight_shape.dim(0);
  const Device device = weight.constant->device();

  std::vector<std::vector<double>> bn_values;
  for (int operand : {kGamma, kBeta, kMean, kVar}) {
    SY_ASSIGN_OR_RETURN(
        std::optional<std::vector<double>> values,
        ConstantValues(graph, bn.inputs[operand], channels, device));
    if (!values.has_value()) return false;
    bn_values.push_back(*std::move(values));
  }
  std::vector<double> bias(static_cast<size_t>(channels), 0.0);
  const bool has_bias = conv.inputs.size() > kConvBias;
  if (has_bias) {
    SY_ASSIGN_OR_RETURN(
        std::optional<std::vector<double>> values,
        ConstantValues(graph, conv.inputs[kConvBias], channels, device));
    if (!values.has_value()) return false;
    bias = *std::move(values);
  }
  SY_ASSIGN_OR_RETURN(std::optional<std::vector<double>> w,
                      ConstantValues(graph, conv.inputs[kConvWeight],
                                     weight_shape.num_elements(), device));
  if (!w.has_value()) return false;
  absl::StatusOr<BatchNormAttrs> attrs = BatchNormAttrs::FromAttrMap(bn.attrs);
  if (!attrs.ok()) return false;  // shape inference reports it
  const double epsilon = attrs->epsilon;

  const std::vector<double>& gamma = bn_values[0];
  const std::vector<double>& beta = bn_values[1];
  const std::vector<double>& mean = bn_values[2];
  const std::vector<double>& var = bn_values[3];
  const int64_t per_channel =
      channels > 0 ? static_cast<int64_t>(w->size()) / channels : 0;
  for (int64_t c = 0; c < channels; ++c) {
    const double scale = gamma[c] / std::sqrt(var[c] + epsilon);
    for (int64_t i = 0; i < per_channel; ++i) {
      (*w)[c * per_channel + i] *= scale;
    }
    bias[c] = (bias[c] - mean[c]) * scale + beta[c];
  }

  // New constants, so the module's own parameters stay as they are.
  BackendDevice& owner = weight.constant->backend_device();
  const std::string bn_label = bn.layer.empty() ? bn.name : bn.layer;
  const DType dtype = weight.dtype;
  const DType bias_dtype =
      has_bias ? graph.value(conv.inputs[kConvBias]).dtype : dtype;
  const std::string bias_name =
      has_bias
          ? graph.value(conv.inputs[kConvBias]).name
          : absl::StrCat(conv.layer.empty() ? conv.name : conv.layer, ".bias");
  SY_ASSIGN_OR_RETURN(
      const ValueId new_weight,
      AddFoldedConstant(graph, absl::StrCat(weight_name, "+", bn_label),
                        weight_shape, dtype, *w, owner));
  SY_ASSIGN_OR_RETURN(
      const ValueId new_bias,
      AddFoldedConstant(graph, absl::StrCat(bias_name, "+", bn_label),
                        Shape({channels}), bias_dtype, bias, owner));
  Node& mutable_conv = graph.mutable_node(conv_id);
  mutable_conv.inputs.resize(3);
  mutable_conv.inputs[kConvWeight] = new_weight;
  mutable_conv.inputs[kConvBias] = new_bias;
  const ValueId replacement[] = {conv_out};
  SY_RETURN_IF_ERROR(graph.RemoveNode(bn_id, replacement));
  return true;
}

}  // namespace

// First of the optimisation passes (room before and after it).
SY_REGISTER_OPTIMIZATION_PASS(100, FoldBatchNormPass);

absl::StatusOr<bool> FoldBatchNormPass::Run(Graph& graph) {
  bool changed = false;
  // Removing a node renumbers the ones after it, so walk from the end.
  for (NodeId id = static_cast<NodeId>(graph.nodes().size()) - 1; id >= 0;
       --id) {
    if (graph.node(id).op != op_names::kBatchNorm) continue;
    SY_ASSIGN_OR_RETURN(const bool folded,
                        TryFold(graph, id, CountReaders(graph)));
    changed |= folded;
  }
  return changed;
}

}  // namespace switchyard
