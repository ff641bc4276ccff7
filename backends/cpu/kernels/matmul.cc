// matmul (numpy.matmul) through Eigen's GEMM: each output matrix is
// Map(a's matrix) * Map(b's matrix), assigned with noalias (no temporary).
//
// Work is split into tasks of (output matrix, block of rows) so the threads
// stay busy both for many small matrices (attention's per-head products)
// and for one large one. When every output matrix reads the same matrix of
// b (a [batch..., M, K] times a 2-D b: a Linear without the transposed
// weight), the batch folds into the rows of one [batch * M, K] x [K, N]
// product first.

#include <algorithm>

#include "Eigen/Core"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/tensor.h"
#include "ops/matmul_geometry.h"

namespace switchyard {
namespace cpu {
namespace {

using RowMatrix =
    Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Rows per task below which splitting a matrix further is not worth it.
constexpr int64_t kMinRowsPerTask = 8;

class MatmulKernel : public Kernel {
 public:
  MatmulKernel(MatmulGeometry g, std::shared_ptr<const CpuContext> context)
      : g_(std::move(g)), context_(std::move(context)) {
    // a's matrices in order, b's one matrix: one tall product.
    bool a_dense = true;
    for (size_t d = 0; d < g_.batch.size(); ++d) {
      if (g_.batch[d] != 1 && g_.a_stride[d] == 0) a_dense = false;
    }
    fold_ = a_dense && g_.BIsShared();
    matrices_ = fold_ ? 1 : g_.batch_count;
    rows_ = fold_ ? g_.batch_count * g_.m : g_.m;
    const int64_t threads = context_->threads();
    const int64_t flops = matrices_ * rows_ * g_.k * g_.n;
    if (flops < kMinParallelElements) {
      row_blocks_ = 1;
    } else {
      // Enough tasks for every thread, none under kMinRowsPerTask rows.
      const int64_t wanted = (threads + matrices_ - 1) / matrices_;
      row_blocks_ =
          std::max<int64_t>(1, std::min(wanted, rows_ / kMinRowsPerTask));
    }
  }

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const float* a = inputs[0]->data<float>();
    const float* b = inputs[1]->data<float>();
    float* y = outputs[0]->data<float>();
    const int64_t m = g_.m, k = g_.k, n = g_.n;
    if (matrices_ * rows_ * n == 0) return absl::OkStatus();
    auto task = [&](int64_t t) {
      const int64_t matrix = t / row_blocks_;
      const int64_t block = t % row_blocks_;
      const int64_t r0 = rows_ * block / row_blocks_;
      const int64_t r1 = rows_ * (block + 1) / row_blocks_;
      if (r1 == r0) return;
      const float* a_matrix = fold_ ? a : a + g_.AMatrix(matrix) * m * k;
      const float* b_matrix = fold_ ? b : b + g_.BMatrix(matrix) * k * n;
      Eigen::Map<RowMatrix> out(y + (fold_ ? 0 : matrix * m * n) + r0 * n,
                                r1 - r0, n);
      if (k == 0) {  // an empty sum
        out.setZero();
        return;
      }
      Eigen::Map<const RowMatrix> lhs(a_matrix + r0 * k, r1 - r0, k);
      Eigen::Map<const RowMatrix> rhs(b_matrix, k, n);
      out.noalias() = lhs * rhs;
    };
    const int64_t tasks = matrices_ * row_blocks_;
    if (tasks == 1) {
      task(0);
    } else {
      // Near-equal contiguous ranges of tasks, one per thread.
      context_->ParallelRange(tasks, [&](int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end; ++t) task(t);
      });
    }
    return absl::OkStatus();
  }

 private:
  MatmulGeometry g_;
  std::shared_ptr<const CpuContext> context_;
  bool fold_ = false;
  int64_t matrices_ = 1, rows_ = 0, row_blocks_ = 1;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeMatmul(const Node& node,
                                                   const Graph& graph,
                                                   CpuDevice& device) {
  absl::StatusOr<MatmulGeometry> g = MatmulGeometryOf(
      *graph.value(node.inputs[0]).shape, *graph.value(node.inputs[1]).shape);
  if (!g.ok()) return g.status();
  return std::make_unique<MatmulKernel>(*std::move(g), device.context());
}

SY_REGISTER_KERNEL(CpuKernels(), "matmul", DType::kFloat32, &MakeMatmul);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
