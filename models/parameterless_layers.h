#ifndef SWITCHYARD_MODELS_PARAMETERLESS_LAYERS_H_
#define SWITCHYARD_MODELS_PARAMETERLESS_LAYERS_H_

#include <cstdint>
#include <string>

#include "models/module.h"
#include "ops/pool_attrs.h"
#include "ops/flatten_attrs.h"
#include "ops/softmax_attrs.h"
#include "ops/dropout_attrs.h"

namespace switchyard {
namespace nn {

// Layers without parameters: each emits one op with its attributes, kept as
// the op's typed attribute struct (ops/pool_attrs.h, ops/tensor_attrs.h:
// their defaults are the ops'). Attribute checks happen in shape inference,
// with the layer path.

// torch.nn.ReLU.
class ReLU : public Module {
 public:
  std::string type_name() const override { return "ReLU"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override;
};

// kernel_h/kernel_w (required), stride (0: the kernel's, PyTorch's
// default), pad_h/pad_w, dilation, ceil_mode.
using MaxPool2dOptions = MaxPool2dAttrs;

// torch.nn.MaxPool2d.
class MaxPool2d : public Module {
 public:
  explicit MaxPool2d(const MaxPool2dAttrs& options) : options_(options) {}
  // Square kernel and stride, as MaxPool2d(kernel_size=2, stride=2).
  MaxPool2d(int64_t kernel, int64_t stride)
      : options_(MaxPool2dAttrs::Square(kernel, stride)) {}
  std::string type_name() const override { return "MaxPool2d"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override;

 private:
  MaxPool2dAttrs options_;
};

// torch.nn.AdaptiveAvgPool2d((output_h, output_w)).
class AdaptiveAvgPool2d : public Module {
 public:
  AdaptiveAvgPool2d(int64_t output_h, int64_t output_w)
      : attrs_{output_h, output_w} {}
  explicit AdaptiveAvgPool2d(const AdaptiveAvgPool2dAttrs& attrs)
      : attrs_(attrs) {}
  std::string type_name() const override { return "AdaptiveAvgPool2d"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override;

 private:
  AdaptiveAvgPool2dAttrs attrs_;
};

// torch.nn.Flatten(start_dim, end_dim).
class Flatten : public Module {
 public:
  Flatten() = default;
  explicit Flatten(int64_t start_dim, int64_t end_dim = FlattenAttrs().end_dim)
      : attrs_{start_dim, end_dim} {}
  explicit Flatten(const FlattenAttrs& attrs) : attrs_(attrs) {}
  std::string type_name() const override { return "Flatten"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override;

 private:
  FlattenAttrs attrs_;
};

// torch.nn.Dropout: the identity at inference, which is all Switchyard runs.
class Dropout : public Module {
 public:
  Dropout() = default;
  explicit Dropout(double p) : attrs_{p} {}
  std::string type_name() const override { return "Dropout"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override;

 private:
  DropoutAttrs attrs_;
};

// torch.nn.Softmax(dim).
class Softmax : public Module {
 public:
  explicit Softmax(int64_t dim) : attrs_{dim} {}
  std::string type_name() const override { return "Softmax"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override;

 private:
  SoftmaxAttrs attrs_;
};

}  // namespace nn
}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_PARAMETERLESS_LAYERS_H_
