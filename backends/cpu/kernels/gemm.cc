// gemm: y = alpha * op(a) op(b) + beta * c through Eigen's GEMM. The output
// is first filled with beta * c broadcast (or zeros), then
// y.noalias() += alpha * op(a) * op(b): Eigen folds alpha into the product
// and reads the transposes straight from memory (no copies). The output is
// split into one block of rows (or of columns, when it is wider than tall)
// per thread.

#include <algorithm>

#include "Eigen/Core"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/tensor.h"
#include "ops/gemm_attrs.h"
#include "ops/matmul_geometry.h"

namespace switchyard {
namespace cpu {
namespace {

using RowMatrix =
    Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

class GemmKernel : public Kernel {
 public:
  GemmKernel(GemmAttrs attrs, int64_t m, int64_t k, int64_t n, bool has_c,
             GemmBiasSteps c_steps, std::shared_ptr<const CpuContext> context)
      : attrs_(attrs),
        m_(m),
        k_(k),
        n_(n),
        has_c_(has_c),
        c_steps_(c_steps),
        context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    if (m_ * n_ == 0) return absl::OkStatus();
    const float* a = inputs[0]->data<float>();
    const float* b = inputs[1]->data<float>();
    // beta == 0 leaves c unread, as BLAS does.
    const float* c =
        has_c_ && attrs_.beta != 0.0 ? inputs[2]->data<float>() : nullptr;
    float* y = outputs[0]->data<float>();
    const float alpha = static_cast<float>(attrs_.alpha);
    const float beta = static_cast<float>(attrs_.beta);
    // Stored shapes: a [M, K] or [K, M], b [K, N] or [N, K].
    Eigen::Map<const RowMatrix> a_stored(a, attrs_.trans_a ? k_ : m_,
                                         attrs_.trans_a ? m_ : k_);
    Eigen::Map<const RowMatrix> b_stored(b, attrs_.trans_b ? n_ : k_,
                                         attrs_.trans_b ? k_ : n_);
    const bool by_rows = m_ >= n_;
    auto block = [&](int64_t begin, int64_t end) {
      const int64_t r0 = by_rows ? begin : 0, rows = by_rows ? end - begin : m_;
      const int64_t c0 = by_rows ? 0 : begin, cols = by_rows ? n_ : end - begin;
      Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>> out(
          y + r0 * n_ + c0, rows, cols, Eigen::OuterStride<>(n_));
      if (c == nullptr) {
        out.setZero();
      } else {
        for (int64_t i = 0; i < rows; ++i) {
          const float* c_row = c + (r0 + i) * c_steps_.row_step;
          for (int64_t j = 0; j < cols; ++j) {
            out(i, j) = beta * c_row[(c0 + j) * c_steps_.col_step];
          }
        }
      }
      if (k_ == 0) return;
      // op(a) rows [r0, r0 + rows), op(b) columns [c0, c0 + cols).
      if (attrs_.trans_a && attrs_.trans_b) {
        out.noalias() += alpha * a_stored.middleCols(r0, rows).transpose() *
                         b_stored.middleRows(c0, cols).transpose();
      } else if (attrs_.trans_a) {
        out.noalias() += alpha * a_stored.middleCols(r0, rows).transpose() *
                         b_stored.middleCols(c0, cols);
      } else if (attrs_.trans_b) {
        out.noalias() += alpha * a_stored.middleRows(r0, rows) *
                         b_stored.middleRows(c0, cols).transpose();
      } else {
        out.noalias() += alpha * a_stored.middleRows(r0, rows) *
                         b_stored.middleCols(c0, cols);
      }
    };
    const int64_t split = by_rows ? m_ : n_;
    if (m_ * n_ * std::max<int64_t>(k_, 1) < kMinParallelElements) {
      block(0, split);
    } else {
      context_->ParallelRange(split, block);
    }
    return absl::OkStatus();
  }

 private:
  GemmAttrs attrs_;
  int64_t m_, k_, n_;
  bool has_c_;
  GemmBiasSteps c_steps_;
  std::shared_ptr<const CpuContext> context_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeGemm(const Node& node,
                                                 const Graph& graph,
                                                 CpuDevice& device) {
  absl::StatusOr<GemmAttrs> attrs = GemmAttrs::FromAttrMap(node.attrs);
  if (!attrs.ok()) return attrs.status();
  const Shape& a = *graph.value(node.inputs[0]).shape;
  const Shape& out = *graph.value(node.outputs[0]).shape;
  const int64_t m = out.dim(0), n = out.dim(1);
  const int64_t k = a.dim(attrs->trans_a ? 0 : 1);
  const bool has_c = node.inputs.size() > 2;
  GemmBiasSteps steps;
  if (has_c) {
    absl::StatusOr<GemmBiasSteps> s =
        GemmBiasStepsOf(*graph.value(node.inputs[2]).shape, m, n);
    if (!s.ok()) return s.status();
    steps = *s;
  }
  return std::make_unique<GemmKernel>(*attrs, m, k, n, has_c, steps,
                                      device.context());
}

SY_REGISTER_KERNEL(CpuKernels(), "gemm", DType::kFloat32, &MakeGemm);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
