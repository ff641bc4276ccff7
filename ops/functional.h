#ifndef SWITCHYARD_OPS_FUNCTIONAL_H_
#define SWITCHYARD_OPS_FUNCTIONAL_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/backend_registry.h"
#include "core/tensor.h"

namespace switchyard {
namespace functional {

// Eager calls on tensors, as torch.nn.functional. Each call is a one-node
// graph run through the same shape inference, strict placement and kernels
// as a whole model, so `Add(y_on_gpu, x_on_cpu)` fails with the same error
// a model would give (naming each operand and its device), before any
// kernel runs. Each call compiles its graph: convenient, not fast.
//
//   absl::StatusOr<Tensor> z = functional::Add(x, y);
//   absl::StatusOr<Tensor> h = functional::Linear(x, w, b);

absl::StatusOr<Tensor> Add(const Tensor& input, const Tensor& other,
                           BackendRegistry& registry = BackendRegistry::Global());
absl::StatusOr<Tensor> Relu(const Tensor& input,
                            BackendRegistry& registry = BackendRegistry::Global());
// `bias` may be an undefined Tensor() for none.
absl::StatusOr<Tensor> Linear(const Tensor& input, const Tensor& weight,
                              const Tensor& bias,
                              BackendRegistry& registry = BackendRegistry::Global());

struct Conv2dArgs {
  std::vector<int64_t> stride = {1, 1};
  std::vector<int64_t> padding = {0, 0};
  std::vector<int64_t> dilation = {1, 1};
  int64_t groups = 1;
};
absl::StatusOr<Tensor> Conv2d(const Tensor& input, const Tensor& weight,
                              const Tensor& bias, const Conv2dArgs& args = {},
                              BackendRegistry& registry = BackendRegistry::Global());

absl::StatusOr<Tensor> MaxPool2d(const Tensor& input,
                                 std::vector<int64_t> kernel_size,
                                 std::vector<int64_t> stride,
                                 BackendRegistry& registry = BackendRegistry::Global());
absl::StatusOr<Tensor> AdaptiveAvgPool2d(
    const Tensor& input, std::vector<int64_t> output_size,
    BackendRegistry& registry = BackendRegistry::Global());
absl::StatusOr<Tensor> Flatten(const Tensor& input, int64_t start_dim = 1,
                               int64_t end_dim = -1,
                               BackendRegistry& registry = BackendRegistry::Global());
absl::StatusOr<Tensor> Softmax(const Tensor& input, int64_t dim,
                               BackendRegistry& registry = BackendRegistry::Global());

}  // namespace functional
}  // namespace switchyard

#endif  // SWITCHYARD_OPS_FUNCTIONAL_H_
