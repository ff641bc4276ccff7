#include "ops/functional.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/compile.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/nms_attrs.h"

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
  // A variadic output (split's) has as many values as the op's shape
  // inference makes for these attributes.
  int num_outputs = static_cast<int>(schema.outputs.size());
  if (!schema.outputs.empty() && schema.outputs.back().variadic) {
    std::vector<TensorType> types;
    for (const Tensor& t : inputs) types.push_back({t.shape(), t.dtype()});
    SY_ASSIGN_OR_RETURN(std::vector<TensorType> out, def->InferTypes(attrs, types));
    num_outputs = static_cast<int>(out.size());
  }
  const std::vector<ValueId> outputs =
      graph.AddNodeWithOutputs(op, op, std::move(ids), attrs, num_outputs);
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

namespace {

// ------------------------------------------------------------------ NMS

// The same buffer seen with another shape (row-major, same element count).
Tensor Reshaped(const Tensor& t, const Shape& shape) {
  return Tensor(shape, t.dtype(), t.buffer());
}

// InvalidArgument unless `t` is a defined `dtype` tensor of `dims` (-1:
// any size), worded "Nms: boxes must be float32 [B, 4] (x1, y1, x2, y2),
// got float32 [3]".
absl::Status CheckOperand(const Tensor& t, const char* fn, const char* name,
                          DType dtype, const std::vector<int64_t>& dims,
                          const char* layout) {
  if (!t.defined()) {
    return absl::InvalidArgumentError(
        absl::StrCat(fn, ": ", name, " is an undefined tensor"));
  }
  bool ok = t.dtype() == dtype && t.shape().rank() == static_cast<int>(dims.size());
  for (size_t i = 0; ok && i < dims.size(); ++i) {
    ok = dims[i] < 0 || t.shape().dim(static_cast<int>(i)) == dims[i];
  }
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(fn, ": ", name, " must be ",
                                                 DTypeName(dtype), " ", layout,
                                                 ", got ", DTypeName(t.dtype()),
                                                 " ", t.shape().ToString()));
}

// torchvision's rule for (x1, y1, x2, y2) boxes: one with x1 > x2 or y1 > y2
// has intersection 0 with every box, so (for a threshold >= 0) it neither
// suppresses nor is suppressed. The op orders the corners instead (ONNX), so
// such a box becomes a point, which the op treats the same way. Returns
// whether any box changed.
bool InvertedToPoints(std::vector<float>& boxes) {
  bool changed = false;
  for (size_t i = 0; i + 3 < boxes.size(); i += 4) {
    if (boxes[i] > boxes[i + 2] || boxes[i + 1] > boxes[i + 3]) {
      boxes[i + 2] = boxes[i];
      boxes[i + 3] = boxes[i + 1];
      changed = true;
    }
  }
  return changed;
}

absl::StatusOr<double> TorchvisionIouThreshold(double iou, const char* fn) {
  if (!(iou >= 0)) {  // NaN too
    return absl::InvalidArgumentError(absl::StrCat(
        fn, ": iou_threshold must be >= 0, got ", iou,
        " (torchvision accepts a negative one and then drops every box that "
        "meets a kept box, even without overlap; use 0 for that)"));
  }
  return std::min(iou, 1.0);  // IoU never exceeds 1
}

// Runs the op and returns its selected rows, (batch, class, box) each.
absl::StatusOr<std::vector<int64_t>> SelectedRows(
    const Tensor& boxes, const Tensor& scores,
    const NonMaxSuppressionAttrs& attrs, BackendRegistry& registry) {
  SY_ASSIGN_OR_RETURN(std::vector<Tensor> out,
                      Call("non_max_suppression", {boxes, scores},
                           attrs.ToAttrMap(), registry));
  if (out.size() != 2) {
    return absl::InternalError(absl::StrCat(
        "non_max_suppression gave ", out.size(), " outputs, not 2"));
  }
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> count, out[1].ToHost<int64_t>());
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> rows, out[0].ToHost<int64_t>());
  if (count.size() != 1 || count[0] < 0 ||
      static_cast<size_t>(count[0]) * 3 > rows.size()) {
    return absl::InternalError(absl::StrCat(
        "non_max_suppression on ", boxes.device().ToString(),
        " says it selected ", count.empty() ? -1 : count[0], " of ",
        rows.size() / 3, " rows"));
  }
  rows.resize(count[0] * 3);
  return rows;
}

absl::StatusOr<Tensor> Int64Vector(const std::vector<int64_t>& values,
                                   BackendDevice& device) {
  return Tensor::FromValues<int64_t>(
      Shape({static_cast<int64_t>(values.size())}), values, device);
}

// Chunks of categories (each a list of box indices) run as one call each:
// [groups, largest, 4] boxes, padded. Sorted by size, largest first, a chunk
// takes the next category while the padded size stays within twice the
// real one.
std::vector<std::vector<const std::vector<int64_t>*>> Chunks(
    const std::vector<std::vector<int64_t>>& categories) {
  std::vector<const std::vector<int64_t>*> by_size;
  for (const auto& c : categories) by_size.push_back(&c);
  std::stable_sort(by_size.begin(), by_size.end(),
                   [](const auto* a, const auto* b) { return a->size() > b->size(); });
  std::vector<std::vector<const std::vector<int64_t>*>> chunks;
  size_t largest = 0, real = 0;
  for (const auto* c : by_size) {
    if (chunks.empty() ||
        (chunks.back().size() + 1) * largest > 2 * (real + c->size())) {
      chunks.emplace_back();
      largest = c->size();
      real = 0;
    }
    chunks.back().push_back(c);
    real += c->size();
  }
  return chunks;
}

}  // namespace

absl::StatusOr<Tensor> NonMaxSuppression(const Tensor& boxes,
                                         const Tensor& scores,
                                         const NonMaxSuppressionAttrs& attrs,
                                         BackendRegistry& registry) {
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> rows,
                      SelectedRows(boxes, scores, attrs, registry));
  return Tensor::FromValues<int64_t>(
      Shape({static_cast<int64_t>(rows.size() / 3), 3}), rows,
      boxes.backend_device());
}

absl::StatusOr<Tensor> Nms(const Tensor& boxes, const Tensor& scores,
                           double iou_threshold, BackendRegistry& registry) {
  constexpr char kFn[] = "Nms";
  SY_RETURN_IF_ERROR(CheckOperand(boxes, kFn, "boxes", DType::kFloat32,
                                  {-1, 4}, "[B, 4] (x1, y1, x2, y2)"));
  const int64_t count = boxes.shape().dim(0);
  const std::string one_per_box = absl::StrCat("[", count, "] (one per box)");
  SY_RETURN_IF_ERROR(CheckOperand(scores, kFn, "scores", DType::kFloat32,
                                  {count}, one_per_box.c_str()));
  NonMaxSuppressionAttrs attrs;
  SY_ASSIGN_OR_RETURN(attrs.iou_threshold,
                      TorchvisionIouThreshold(iou_threshold, kFn));
  attrs.max_output_boxes_per_class = count;
  SY_ASSIGN_OR_RETURN(std::vector<float> host, boxes.ToHost<float>());
  Tensor boxes3 = Reshaped(boxes, Shape({1, count, 4}));
  if (InvertedToPoints(host)) {
    SY_ASSIGN_OR_RETURN(boxes3, Tensor::FromVector(Shape({1, count, 4}), host,
                                                   boxes.backend_device()));
  }
  SY_ASSIGN_OR_RETURN(
      std::vector<int64_t> rows,
      SelectedRows(boxes3, Reshaped(scores, Shape({1, 1, count})), attrs,
                   registry));
  std::vector<int64_t> keep;
  for (size_t i = 2; i < rows.size(); i += 3) keep.push_back(rows[i]);
  return Int64Vector(keep, boxes.backend_device());
}

absl::StatusOr<Tensor> BatchedNms(const Tensor& boxes, const Tensor& scores,
                                  const Tensor& idxs, double iou_threshold,
                                  BackendRegistry& registry) {
  constexpr char kFn[] = "BatchedNms";
  SY_RETURN_IF_ERROR(CheckOperand(boxes, kFn, "boxes", DType::kFloat32,
                                  {-1, 4}, "[B, 4] (x1, y1, x2, y2)"));
  const int64_t count = boxes.shape().dim(0);
  const std::string one_per_box = absl::StrCat("[", count, "] (one per box)");
  SY_RETURN_IF_ERROR(CheckOperand(scores, kFn, "scores", DType::kFloat32,
                                  {count}, one_per_box.c_str()));
  const std::string categories_text =
      absl::StrCat("[", count, "] (the category of each box)");
  SY_RETURN_IF_ERROR(CheckOperand(idxs, kFn, "idxs", DType::kInt64, {count},
                                  categories_text.c_str()));
  if (scores.device() != boxes.device() || idxs.device() != boxes.device()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "BatchedNms: the operands are on different devices: boxes on ",
        boxes.device().ToString(), ", scores on ", scores.device().ToString(),
        ", idxs on ", idxs.device().ToString(),
        "; move them to one device (x.To(device))"));
  }
  SY_ASSIGN_OR_RETURN(double iou, TorchvisionIouThreshold(iou_threshold, kFn));
  SY_ASSIGN_OR_RETURN(std::vector<float> box_values, boxes.ToHost<float>());
  SY_ASSIGN_OR_RETURN(std::vector<float> score_values, scores.ToHost<float>());
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> categories, idxs.ToHost<int64_t>());
  InvertedToPoints(box_values);

  // Box indices by category, each list in index order.
  std::vector<int64_t> by_category(count);
  for (int64_t i = 0; i < count; ++i) by_category[i] = i;
  std::stable_sort(by_category.begin(), by_category.end(),
                   [&](int64_t a, int64_t b) {
                     return categories[a] < categories[b];
                   });
  std::vector<std::vector<int64_t>> groups;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t box = by_category[i];
    if (i == 0 || categories[box] != categories[by_category[i - 1]]) {
      groups.emplace_back();
    }
    groups.back().push_back(box);
  }

  BackendDevice& device = boxes.backend_device();
  std::vector<int64_t> keep;
  for (const auto& chunk : Chunks(groups)) {
    // Batch g of the call is category chunk[g], padded to the largest with
    // points (which overlap nothing) scored NaN (never candidates).
    const int64_t batches = static_cast<int64_t>(chunk.size());
    const int64_t width = static_cast<int64_t>(chunk.front()->size());
    std::vector<float> chunk_boxes(batches * width * 4, 0.0f);
    std::vector<float> chunk_scores(batches * width,
                                    std::numeric_limits<float>::quiet_NaN());
    for (int64_t g = 0; g < batches; ++g) {
      const std::vector<int64_t>& members = *chunk[g];
      for (size_t j = 0; j < members.size(); ++j) {
        const int64_t slot = g * width + static_cast<int64_t>(j);
        std::copy_n(&box_values[members[j] * 4], 4, &chunk_boxes[slot * 4]);
        chunk_scores[slot] = score_values[members[j]];
      }
    }
    SY_ASSIGN_OR_RETURN(
        Tensor chunk_boxes_t,
        Tensor::FromVector(Shape({batches, width, 4}), chunk_boxes, device));
    SY_ASSIGN_OR_RETURN(
        Tensor chunk_scores_t,
        Tensor::FromVector(Shape({batches, 1, width}), chunk_scores, device));
    NonMaxSuppressionAttrs attrs;
    attrs.iou_threshold = iou;
    attrs.max_output_boxes_per_class = width;
    SY_ASSIGN_OR_RETURN(
        std::vector<int64_t> rows,
        SelectedRows(chunk_boxes_t, chunk_scores_t, attrs, registry));
    for (size_t r = 0; r < rows.size(); r += 3) {
      keep.push_back((*chunk[rows[r]])[rows[r + 2]]);
    }
  }
  // No kept box has a NaN score, so this order is strict and total.
  std::sort(keep.begin(), keep.end(), [&](int64_t a, int64_t b) {
    const float sa = score_values[a], sb = score_values[b];
    return sa > sb || (sa == sb && a < b);
  });
  return Int64Vector(keep, device);
}

}  // namespace functional
}  // namespace switchyard
