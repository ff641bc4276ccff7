#ifndef SWITCHYARD_MODELS_PARAMETERLESS_LAYERS_H_
#define SWITCHYARD_MODELS_PARAMETERLESS_LAYERS_H_

#include <cstdint>
#include <string>

#include "models/module.h"

namespace switchyard {
namespace nn {

// Layers without parameters: each emits one op with its attributes.
// Attribute checks happen in shape inference, with the layer path.

// torch.nn.ReLU.
class ReLU : public Module {
 public:
  std::string type_name() const override { return "ReLU"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override;
};

struct MaxPool2dOptions {
  int64_t kernel_h = 2, kernel_w = 2;
  // Negative: same as the kernel, PyTorch's default.
  int64_t stride_h = -1, stride_w = -1;
  int64_t padding_h = 0, padding_w = 0;
  int64_t dilation_h = 1, dilation_w = 1;
  bool ceil_mode = false;
};

// torch.nn.MaxPool2d.
class MaxPool2d : public Module {
 public:
  explicit MaxPool2d(MaxPool2dOptions options) : options_(options) {}
  // Square kernel and stride, as MaxPool2d(kernel_size=2, stride=2).
  MaxPool2d(int64_t kernel, int64_t stride);
  std::string type_name() const override { return "MaxPool2d"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override;

 private:
  MaxPool2dOptions options_;
};

// torch.nn.AdaptiveAvgPool2d((output_h, output_w)).
class AdaptiveAvgPool2d : public Module {
 public:
  AdaptiveAvgPool2d(int64_t output_h, int64_t output_w)
      : output_h_(output_h), output_w_(output_w) {}
  std::string type_name() const override { return "AdaptiveAvgPool2d"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override;

 private:
  int64_t output_h_, output_w_;
};

// torch.nn.Flatten(start_dim, end_dim).
class Flatten : public Module {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1)
      : start_dim_(start_dim), end_dim_(end_dim) {}
  std::string type_name() const override { return "Flatten"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override;

 private:
  int64_t start_dim_, end_dim_;
};

// torch.nn.Dropout: the identity at inference, which is all Switchyard runs.
class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5) : p_(p) {}
  std::string type_name() const override { return "Dropout"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override;

 private:
  double p_;
};

// torch.nn.Softmax(dim).
class Softmax : public Module {
 public:
  explicit Softmax(int64_t dim) : dim_(dim) {}
  std::string type_name() const override { return "Softmax"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override;

 private:
  int64_t dim_;
};

}  // namespace nn
}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_PARAMETERLESS_LAYERS_H_
