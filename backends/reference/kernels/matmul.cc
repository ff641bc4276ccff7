// matmul, as numpy.matmul: a 1-D a is a row [1, K] and a 1-D b a column
// [K, 1] (that dimension is dropped from the output); the dimensions before
// the last two broadcast. For each output index, the batch coordinates are
// mapped into each operand (a length-1 or missing dimension reads index 0)
// and
//
//   y[..., i, j] = sum_k a[..., i, k] * b[..., k, j]
//
// accumulated in double and rounded once. The broadcast is written out here
// rather than taken from ops/matmul_geometry.h, so the oracle does not
// share a bug with the backends it checks.

#include <algorithm>
#include <vector>

#include "backends/reference/kernels/kernels.h"

namespace switchyard {
namespace reference {
namespace {

class MatmulKernel : public RefKernel {
 public:
  explicit MatmulKernel(const RefDevice& device)
      : RefKernel(device, DType::kFloat32, 2, 2) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs,
               Tensor& output) override {
    std::vector<int64_t> a = inputs[0]->shape().dims();
    std::vector<int64_t> b = inputs[1]->shape().dims();
    if (a.size() == 1) a.insert(a.begin(), 1);  // [K] -> [1, K]
    if (b.size() == 1) b.push_back(1);          // [K] -> [K, 1]
    const int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
    const std::vector<int64_t> a_batch(a.begin(), a.end() - 2);
    const std::vector<int64_t> b_batch(b.begin(), b.end() - 2);
    const size_t rank = std::max(a_batch.size(), b_batch.size());
    std::vector<int64_t> batch(rank);
    for (size_t d = 0; d < rank; ++d) {
      const int64_t an =
          d + a_batch.size() >= rank ? a_batch[d + a_batch.size() - rank] : 1;
      const int64_t bn =
          d + b_batch.size() >= rank ? b_batch[d + b_batch.size() - rank] : 1;
      batch[d] = std::max(an, bn) == 1 ? 1 : (an == 1 ? bn : an);
    }
    int64_t count = 1;
    for (int64_t v : batch) count *= v;
    const float* x = inputs[0]->data<float>();
    const float* w = inputs[1]->data<float>();
    float* y = output.data<float>();
    for (int64_t o = 0; o < count; ++o) {
      // o's coordinates, then each operand's matrix index.
      std::vector<int64_t> coord(rank);
      int64_t rest = o;
      for (size_t d = rank; d-- > 0;) {
        coord[d] = rest % batch[d];
        rest /= batch[d];
      }
      const int64_t am = MatrixIndex(coord, a_batch),
                    bm = MatrixIndex(coord, b_batch);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double sum = 0.0;
          for (int64_t t = 0; t < k; ++t) {
            sum += static_cast<double>(x[(am * m + i) * k + t]) *
                   w[(bm * k + t) * n + j];
          }
          y[(o * m + i) * n + j] = static_cast<float>(sum);
        }
      }
    }
  }

 private:
  // The row-major matrix index in an operand with batch dims `dims`
  // (right-aligned against `coord`; length-1 dims read index 0).
  static int64_t MatrixIndex(const std::vector<int64_t>& coord,
                             const std::vector<int64_t>& dims) {
    int64_t index = 0;
    const size_t skip = coord.size() - dims.size();
    for (size_t d = 0; d < dims.size(); ++d) {
      index = index * dims[d] + (dims[d] == 1 ? 0 : coord[skip + d]);
    }
    return index;
  }
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeMatmul(const Node&, const Graph&,
                                                   RefDevice& device) {
  return std::make_unique<MatmulKernel>(device);
}

SY_REGISTER_KERNEL(RefKernels(), "matmul", DType::kFloat32, &MakeMatmul);

}  // namespace
}  // namespace reference
}  // namespace switchyard
