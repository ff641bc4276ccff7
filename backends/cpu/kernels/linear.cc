// Linear: y = x W^T + b over the last dimension (Eigen GEMM / GEMV).
//
// The output features are split into one contiguous block per thread, so
// each thread streams its own rows of W: at batch 1 (a matrix-vector
// product, bound by memory bandwidth) and at larger batches alike. The bias,
// and the ReLU of a fused linear+relu partition, are applied to each block
// right after its GEMM, while it is in cache (epilogue.h).

#include "backends/cpu/kernels/linear.h"

#include <algorithm>

#include "Eigen/Core"
#include "backends/cpu/cpu_device.h"
#include "core/tensor.h"

namespace switchyard {
namespace cpu {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Output features per block below which splitting is not worth a thread.
constexpr int64_t kMinFeaturesPerThread = 16;

class LinearKernel : public Kernel {
 public:
  LinearKernel(int64_t rows, int64_t in, int64_t out, bool has_bias,
               Activation activation, std::shared_ptr<const CpuContext> context)
      : rows_(rows),
        in_(in),
        out_(out),
        has_bias_(has_bias),
        activation_(activation),
        context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    Eigen::Map<const RowMatrix> x(inputs[0]->data<float>(), rows_, in_);
    const float* weight = inputs[1]->data<float>();
    const float* bias = has_bias_ ? inputs[2]->data<float>() : nullptr;
    float* y = outputs[0]->data<float>();
    auto block = [&](int64_t begin, int64_t end) {
      const int64_t features = end - begin;
      Eigen::Map<const RowMatrix> w(weight + begin * in_, features, in_);
      Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>> out(
          y + begin, rows_, features, Eigen::OuterStride<>(out_));
      out.noalias() = x * w.transpose();
      if (bias != nullptr || !activation_.none()) {
        for (int64_t r = 0; r < rows_; ++r) {
          FinishRowPerColumn(y + r * out_ + begin, features,
                             bias != nullptr ? bias + begin : nullptr,
                             activation_);
        }
      }
    };
    if (out_ < 2 * kMinFeaturesPerThread) {
      block(0, out_);
    } else {
      context_->ParallelRange(out_, block);
    }
    return absl::OkStatus();
  }

 private:
  int64_t rows_, in_, out_;
  bool has_bias_;
  Activation activation_;
  std::shared_ptr<const CpuContext> context_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Kernel>> MakeLinearKernel(
    const Node& node, const Graph& graph,
    std::shared_ptr<const CpuContext> context, Activation activation) {
  const Shape& in = *graph.value(node.inputs[0]).shape;
  const Shape& wt = *graph.value(node.inputs[1]).shape;
  const int64_t features_in = wt.dim(1);
  const int64_t rows = features_in == 0 ? 0 : in.num_elements() / features_in;
  return std::make_unique<LinearKernel>(rows, features_in, wt.dim(0),
                                        node.inputs.size() > 2, activation,
                                        std::move(context));
}

SY_REGISTER_KERNEL(CpuKernels(), "linear", DType::kFloat32,
                   [](const Node& node, const Graph& graph, CpuDevice& device) {
                     return MakeLinearKernel(node, graph, device.context(),
                                             Activation::None());
                   });

}  // namespace cpu
}  // namespace switchyard
