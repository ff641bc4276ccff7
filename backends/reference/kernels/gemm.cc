// gemm, as ONNX Gemm: with A = a or a^T (trans_a) of shape [M, K] and B = b
// or b^T (trans_b) of shape [K, N],
//
//   y[i, j] = alpha * sum_k A[i, k] * B[k, j] + beta * c[i, j]
//
// where c broadcasts to [M, N] numpy-style (from the right; length-1 or
// missing dimensions repeat). With beta == 0, c is not read (as BLAS).
// Accumulated in double, rounded once.

#include "backends/reference/kernels/kernels.h"
#include "ops/gemm_attrs.h"

namespace switchyard {
namespace reference {
namespace {

class GemmKernel : public RefKernel {
 public:
  GemmKernel(const RefDevice& device, GemmAttrs attrs)
      : RefKernel(device, DType::kFloat32, 2, 3), g_(attrs) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs,
               Tensor& output) override {
    const Shape& a_shape = inputs[0]->shape();
    const int64_t m = output.shape().dim(0), n = output.shape().dim(1);
    const int64_t k = a_shape.dim(g_.trans_a ? 0 : 1);
    const float* a = inputs[0]->data<float>();
    const float* b = inputs[1]->data<float>();
    const Tensor* c = inputs.size() > 2 && g_.beta != 0.0 ? inputs[2] : nullptr;
    float* y = output.data<float>();
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0.0;
        for (int64_t t = 0; t < k; ++t) {
          const double av = g_.trans_a ? a[t * m + i] : a[i * k + t];
          const double bv = g_.trans_b ? b[j * k + t] : b[t * n + j];
          sum += av * bv;
        }
        double value = g_.alpha * sum;
        if (c != nullptr) value += g_.beta * CAt(*c, i, j);
        y[i * n + j] = static_cast<float>(value);
      }
    }
  }

 private:
  // c[i, j] of c broadcast to [M, N].
  static double CAt(const Tensor& c, int64_t i, int64_t j) {
    const Shape& s = c.shape();
    const float* v = c.data<float>();
    if (s.rank() == 0) return v[0];
    if (s.rank() == 1) return v[s.dim(0) == 1 ? 0 : j];
    const int64_t row = s.dim(0) == 1 ? 0 : i;
    const int64_t col = s.dim(1) == 1 ? 0 : j;
    return v[row * s.dim(1) + col];
  }

  GemmAttrs g_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeGemm(const Node& node, const Graph&,
                                                 RefDevice& device) {
  absl::StatusOr<GemmAttrs> attrs = GemmAttrs::FromAttrMap(node.attrs);
  if (!attrs.ok()) return attrs.status();
  return std::make_unique<GemmKernel>(device, *attrs);
}

SY_REGISTER_KERNEL(RefKernels(), "gemm", DType::kFloat32, &MakeGemm);

}  // namespace
}  // namespace reference
}  // namespace switchyard
