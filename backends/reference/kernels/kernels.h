#ifndef SWITCHYARD_BACKENDS_REFERENCE_KERNELS_KERNELS_H_
#define SWITCHYARD_BACKENDS_REFERENCE_KERNELS_KERNELS_H_

// The reference backend's kernels, one file per op in this folder. Each
// factory builds the kernel of one shape-inferred node (attributes valid,
// operand shapes known); the backend keeps them in one table
// (reference_backend.cc).
//
//   absl::StatusOr<std::unique_ptr<Kernel>> k = MakeReluKernel(node, graph, device);

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/backend.h"
#include "core/device.h"
#include "core/graph.h"
#include "core/tensor.h"

namespace switchyard {
namespace reference {

using KernelFactory = absl::StatusOr<std::unique_ptr<Kernel>> (*)(
    const Node& node, const Graph& graph, const Device& device);

absl::StatusOr<std::unique_ptr<Kernel>> MakeAdaptiveAvgPool2dKernel(
    const Node& node, const Graph& graph, const Device& device);
absl::StatusOr<std::unique_ptr<Kernel>> MakeAddKernel(
    const Node& node, const Graph& graph, const Device& device);
absl::StatusOr<std::unique_ptr<Kernel>> MakeConv2dKernel(
    const Node& node, const Graph& graph, const Device& device);
absl::StatusOr<std::unique_ptr<Kernel>> MakeDropoutKernel(
    const Node& node, const Graph& graph, const Device& device);
absl::StatusOr<std::unique_ptr<Kernel>> MakeFlattenKernel(
    const Node& node, const Graph& graph, const Device& device);
absl::StatusOr<std::unique_ptr<Kernel>> MakeLinearKernel(
    const Node& node, const Graph& graph, const Device& device);
absl::StatusOr<std::unique_ptr<Kernel>> MakeMaxPool2dKernel(
    const Node& node, const Graph& graph, const Device& device);
absl::StatusOr<std::unique_ptr<Kernel>> MakeReluKernel(
    const Node& node, const Graph& graph, const Device& device);
absl::StatusOr<std::unique_ptr<Kernel>> MakeSoftmaxKernel(
    const Node& node, const Graph& graph, const Device& device);

// The base of every reference kernel. Run checks what the executor hands
// over (operand count, float32, every tensor on this kernel's device), so a
// core bug that passes a tensor of another device fails loudly here instead
// of reading foreign memory; then Compute does the op on host pointers.
class RefKernel : public Kernel {
 public:
  RefKernel(Device device, int min_inputs, int max_inputs)
      : device_(std::move(device)),
        min_inputs_(min_inputs),
        max_inputs_(max_inputs) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) final;

 protected:
  virtual void Compute(absl::Span<const Tensor* const> inputs,
                       Tensor& output) = 0;

 private:
  Device device_;
  int min_inputs_, max_inputs_;
};

// Copies the input's elements to the output: Flatten (a new shape over the
// same row-major data) and Dropout at inference.
class CopyElementsKernel : public RefKernel {
 public:
  explicit CopyElementsKernel(Device device)
      : RefKernel(std::move(device), 1, 1) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs, Tensor& output) override;
};

}  // namespace reference
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_REFERENCE_KERNELS_KERNELS_H_
