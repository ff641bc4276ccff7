// matmul_integer by the definition (ONNX MatMulInteger):
//
//   y[..., i, j] = sum_k (a[..., i, k] - a_zp[i]) * (b[..., k, j] - b_zp[j])
//
// accumulated in int64 and wrapped to int32; zero points are scalars or one
// per row of a / column of b.

#include <memory>

#include "backends/reference/kernels/integer_products.h"
#include "backends/reference/kernels/kernels.h"
#include "ops/matmul_geometry.h"

namespace switchyard {
namespace reference {
namespace {

class MatmulIntegerKernel : public Kernel {
 public:
  explicit MatmulIntegerKernel(MatmulGeometry g) : g_(std::move(g)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor &a = *inputs[0], &b = *inputs[1];
    const Tensor &a_zp = *inputs[2], &b_zp = *inputs[3];
    int32_t* y = outputs[0]->data<int32_t>();
    const int64_t m = g_.m, k = g_.k, n = g_.n;
    for (int64_t o = 0; o < g_.batch_count; ++o) {
      const int64_t a0 = g_.AMatrix(o) * m * k, b0 = g_.BMatrix(o) * k * n;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          int64_t sum = 0;
          for (int64_t t = 0; t < k; ++t) {
            sum += (EightBit(a, a0 + i * k + t) - ZeroPoint(a_zp, i)) *
                   (EightBit(b, b0 + t * n + j) - ZeroPoint(b_zp, j));
          }
          y[(o * m + i) * n + j] = WrapToInt32(sum);
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  MatmulGeometry g_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeMatmulInteger(const Node& node,
                                                          const Graph& graph,
                                                          RefDevice&) {
  absl::StatusOr<MatmulGeometry> g = MatmulGeometryOf(
      *graph.value(node.inputs[0]).shape, *graph.value(node.inputs[1]).shape);
  if (!g.ok()) return g.status();
  return std::make_unique<MatmulIntegerKernel>(*std::move(g));
}

SY_REGISTER_KERNEL(RefKernels(), "matmul_integer", DType::kUInt8, &MakeMatmulInteger);
SY_REGISTER_KERNEL(RefKernels(), "matmul_integer", DType::kInt8, &MakeMatmulInteger);

}  // namespace
}  // namespace reference
}  // namespace switchyard
