#ifndef SWITCHYARD_OPS_FUNCTIONAL_H_
#define SWITCHYARD_OPS_FUNCTIONAL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attributes.h"
#include "core/backend_registry.h"
#include "core/tensor.h"
#include "ops/conv_attrs.h"
#include "ops/norm_attrs.h"
#include "ops/pool_attrs.h"
#include "ops/tensor_attrs.h"

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

}  // namespace functional
}  // namespace switchyard

#endif  // SWITCHYARD_OPS_FUNCTIONAL_H_
