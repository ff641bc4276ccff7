// matmul_integer (ONNX MatMulInteger): each operand's matrix widened less
// its zero points, then multiplied exactly (exact_integer_product.h). Sums
// wrap modulo 2^32 like ONNX Runtime's int32 accumulators (only a K beyond
// 33,000 can reach that: 255 * 255 * K).
//
// Tasks are output matrices; a single matrix is split by rows.

#include <algorithm>
#include <memory>
#include <vector>

#include "Eigen/Core"
#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/exact_integer_product.h"
#include "backends/cpu/kernels/integer_operands.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"
#include "ops/matmul_geometry.h"

namespace switchyard {
namespace cpu {
namespace {

class MatmulIntegerKernel : public Kernel {
 public:
  MatmulIntegerKernel(MatmulGeometry g, std::shared_ptr<const CpuContext> context)
      : g_(std::move(g)), context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& a = *inputs[0];
    const Tensor& b = *inputs[1];
    const Tensor& a_zp = *inputs[2];
    const Tensor& b_zp = *inputs[3];
    int32_t* y = outputs[0]->data<int32_t>();
    const int64_t m = g_.m, k = g_.k, n = g_.n;
    if (g_.batch_count * m * n == 0) return absl::OkStatus();
    const int64_t row_blocks =
        g_.batch_count >= context_->threads()
            ? 1
            : std::max<int64_t>(1, std::min<int64_t>(context_->threads(), m / 8));
    auto task = [&](int64_t t) {
      const int64_t matrix = t / row_blocks, block = t % row_blocks;
      const int64_t r0 = m * block / row_blocks, r1 = m * (block + 1) / row_blocks;
      if (r1 == r0) return;
      IntRowsMap out(y + matrix * m * n + r0 * n, r1 - r0, n, Eigen::OuterStride<>(n));
      // a's zero point is per row, b's per column.
      FloatRows lhs(r1 - r0, k), rhs(k, n), partial;
      WidenLessZeroPoint(a, g_.AMatrix(matrix) * m * k + r0 * k, r1 - r0, k,
                         a_zp, /*per_row=*/true, r0, lhs.data());
      WidenLessZeroPoint(b, g_.BMatrix(matrix) * k * n, k, n, b_zp,
                         /*per_row=*/false, 0, rhs.data());
      ExactIntegerProduct(lhs, rhs, out, partial);
    };
    const int64_t tasks = g_.batch_count * row_blocks;
    context_->ParallelRange(tasks, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) task(t);
    });
    return absl::OkStatus();
  }

 private:
  MatmulGeometry g_;
  std::shared_ptr<const CpuContext> context_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeMatmulInteger(const Node& node,
                                                          const Graph& graph,
                                                          CpuDevice& device) {
  absl::StatusOr<MatmulGeometry> g = MatmulGeometryOf(
      *graph.value(node.inputs[0]).shape, *graph.value(node.inputs[1]).shape);
  if (!g.ok()) return g.status();
  return std::make_unique<MatmulIntegerKernel>(*std::move(g), device.context());
}

SY_REGISTER_KERNEL(CpuKernels(), "matmul_integer", DType::kUInt8, &MakeMatmulInteger);
SY_REGISTER_KERNEL(CpuKernels(), "matmul_integer", DType::kInt8, &MakeMatmulInteger);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
