#ifndef SWITCHYARD_OPS_FUNCTIONAL_H_
#define SWITCHYARD_OPS_FUNCTIONAL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attributes.h"
#include "core/backend_registry.h"
#include "core/tensor.h"
#include "ops/conv_attrs.h"
#include "ops/nms_attrs.h"
#include "ops/norm_attrs.h"
#include "ops/pool_attrs.h"
#include "ops/flatten_attrs.h"
#include "ops/softmax_attrs.h"
#include "ops/dropout_attrs.h"

namespace switchyard {
namespace functional {

// Eager calls on tensors, as torch.nn.functional. Each call is a one-node
// graph run through the same shape inference, strict placement and kernels
// as a whole model, so `Add(y_on_gpu, x_on_cpu, registry)` fails with the
// same error a model would give (naming each operand and its device),
// before any kernel runs. Each call compiles its graph: convenient, not
// fast. Attributes are the ops' typed structs (ops/*_attrs.h), `{}` for
// PyTorch's defaults.
//
// The registry is an argument, never defaulted: a tensor knows the device
// that owns its buffer but not the registry that device came from, and
// compiling needs the registry (for kernels, and for devices other than
// the operands'). A default of BackendRegistry::Global() would silently look
// in the wrong registry from a plugin or a test that built its own.
//
//   BackendRegistry& r = BackendRegistry::Global();
//   absl::StatusOr<Tensor> z = functional::Add(x, y, r);
//   Conv2dAttrs same;
//   same.pad_h = same.pad_w = 1;
//   absl::StatusOr<Tensor> h = functional::Conv2d(x, w, b, same, r);
//   absl::StatusOr<Tensor> p = functional::MaxPool2d(
//       *h, MaxPool2dAttrs::Square(2, 2), r);

// Any registered op by name, with its operands in the schema's order (an
// undefined Tensor() at the end for an optional operand left out) and its
// attributes as a map; every output of the node.
absl::StatusOr<std::vector<Tensor>> Call(const std::string& op,
                                         const std::vector<Tensor>& operands,
                                         const AttrMap& attrs,
                                         BackendRegistry& registry);

absl::StatusOr<Tensor> Add(const Tensor& input, const Tensor& other,
                           BackendRegistry& registry);
absl::StatusOr<Tensor> Relu(const Tensor& input, BackendRegistry& registry);
// `bias` may be an undefined Tensor() for none.
absl::StatusOr<Tensor> Linear(const Tensor& input, const Tensor& weight,
                              const Tensor& bias, BackendRegistry& registry);
// `bias` may be an undefined Tensor() for none.
absl::StatusOr<Tensor> Conv2d(const Tensor& input, const Tensor& weight,
                              const Tensor& bias, const Conv2dAttrs& attrs,
                              BackendRegistry& registry);
absl::StatusOr<Tensor> MaxPool2d(const Tensor& input,
                                 const MaxPool2dAttrs& attrs,
                                 BackendRegistry& registry);
absl::StatusOr<Tensor> AdaptiveAvgPool2d(const Tensor& input,
                                         const AdaptiveAvgPool2dAttrs& attrs,
                                         BackendRegistry& registry);
absl::StatusOr<Tensor> Flatten(const Tensor& input, const FlattenAttrs& attrs,
                               BackendRegistry& registry);
absl::StatusOr<Tensor> Softmax(const Tensor& input, const SoftmaxAttrs& attrs,
                               BackendRegistry& registry);
// The identity: this runtime only infers.
absl::StatusOr<Tensor> Dropout(const Tensor& input, const DropoutAttrs& attrs,
                               BackendRegistry& registry);
// At inference, with running statistics (torch's training=False).
absl::StatusOr<Tensor> BatchNorm(const Tensor& input, const Tensor& weight,
                                 const Tensor& bias, const Tensor& running_mean,
                                 const Tensor& running_var,
                                 const BatchNormAttrs& attrs,
                                 BackendRegistry& registry);

// Non-maximum suppression. All three run the non_max_suppression op
// (ops/non_max_suppression.cc has its rules: order, ties, NaN scores, IoU)
// on the operands' device and trim its padded result on the host, so each
// returns exactly the selected boxes (a host round trip: convenient, not
// fast; a model that runs NMS every step should use the op in its graph).
//
//   absl::StatusOr<Tensor> keep = functional::Nms(boxes, scores, 0.7, r);
//   // int64 [K]: indices into boxes, by decreasing score

// The op as ONNX defines it: boxes [N, B, 4], scores [N, C, B] (float32),
// attributes as ONNX's NonMaxSuppression; the selected rows, int64 [K, 3]
// (batch, class, box), in ONNX's order. Note ONNX's default
// max_output_boxes_per_class of 0 selects nothing.
absl::StatusOr<Tensor> NonMaxSuppression(const Tensor& boxes,
                                         const Tensor& scores,
                                         const NonMaxSuppressionAttrs& attrs,
                                         BackendRegistry& registry);

// torchvision.ops.nms(boxes, scores, iou_threshold): boxes [B, 4] float32 as
// (x1, y1, x2, y2), scores [B] float32; the int64 indices [K] of the kept
// boxes by decreasing score (equal scores: lower index first, as
// torchvision's stable sort). A box is dropped when its IoU with a kept box
// of higher score is > iou_threshold. As torchvision (and unlike the op), a
// box with x1 > x2 or y1 > y2 overlaps nothing; so does one of zero area.
// Unlike torchvision, a box with a NaN score is never kept (torchvision
// sorts NaN first). iou_threshold < 0 or NaN is InvalidArgument (torchvision
// would then suppress every box that meets another); above 1 it is 1.
absl::StatusOr<Tensor> Nms(const Tensor& boxes, const Tensor& scores,
                           double iou_threshold, BackendRegistry& registry);

// torchvision.ops.batched_nms(boxes, scores, idxs, iou_threshold): as Nms,
// but boxes of different categories (idxs [B], int64, any values) never
// suppress each other. The kept indices [K] are sorted by decreasing score,
// equal scores by lower index (torchvision leaves ties across categories
// unordered on its per-category path). The categories run as batches of
// the op, grouped by size so that padding at most doubles the work.
absl::StatusOr<Tensor> BatchedNms(const Tensor& boxes, const Tensor& scores,
                                  const Tensor& idxs, double iou_threshold,
                                  BackendRegistry& registry);

}  // namespace functional
}  // namespace switchyard

#endif  // SWITCHYARD_OPS_FUNCTIONAL_H_
