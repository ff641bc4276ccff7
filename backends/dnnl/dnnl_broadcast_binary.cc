#include "backends/dnnl/dnnl_broadcast_binary.h"

#include <omp.h>

#include <algorithm>

namespace switchyard {
namespace onednn {
namespace {

template <BroadcastOp kOp>
inline float Apply(float a, float b) {
  if constexpr (kOp == BroadcastOp::kAdd) return a + b;
  if constexpr (kOp == BroadcastOp::kSub) return a - b;
  if constexpr (kOp == BroadcastOp::kMul) return a * b;
  return a / b;
}

// Rows of the innermost merged dim: each row of x against a row of y (or
// one element of y, when y broadcasts along the row).
template <BroadcastOp kOp>
void Rows(const BroadcastBinaryPlan& plan, const float* x, const float* y, float* out,
          int threads) {
  const int rank = static_cast<int>(plan.dims.size());
  if (rank == 0) {
    out[0] = Apply<kOp>(x[0], y[0]);
    return;
  }
  const int64_t row = plan.dims.back();
  const bool y_row = plan.y_dims.back() != 1;
  // y's stride for each outer dim (0 where it broadcasts).
  std::vector<int64_t> y_stride(rank, 0);
  int64_t stride = y_row ? row : 1;
  for (int i = rank - 2; i >= 0; --i) {
    if (plan.y_dims[i] != 1) {
      y_stride[i] = stride;
      stride *= plan.y_dims[i];
    }
  }
  int64_t rows = 1;
  for (int i = 0; i + 1 < rank; ++i) rows *= plan.dims[i];
#pragma omp parallel for num_threads(std::max(1, threads)) schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    int64_t y_offset = 0;
    for (int64_t i = rank - 2, rest = r; i >= 0; --i) {
      y_offset += rest % plan.dims[i] * y_stride[i];
      rest /= plan.dims[i];
    }
    const float* a = x + r * row;
    float* o = out + r * row;
    if (y_row) {
      const float* b = y + y_offset;
#pragma omp simd
      for (int64_t j = 0; j < row; ++j) o[j] = Apply<kOp>(a[j], b[j]);
    } else {
      const float b = y[y_offset];
#pragma omp simd
      for (int64_t j = 0; j < row; ++j) o[j] = Apply<kOp>(a[j], b);
    }
  }
}

}  // namespace

void BroadcastBinary(const BroadcastBinaryPlan& plan, const float* x, const float* y,
                     float* out, int threads) {
  switch (plan.op) {
    case BroadcastOp::kAdd: return Rows<BroadcastOp::kAdd>(plan, x, y, out, threads);
    case BroadcastOp::kSub: return Rows<BroadcastOp::kSub>(plan, x, y, out, threads);
    case BroadcastOp::kMul: return Rows<BroadcastOp::kMul>(plan, x, y, out, threads);
    case BroadcastOp::kDiv: return Rows<BroadcastOp::kDiv>(plan, x, y, out, threads);
  }
}

}  // namespace onednn
}  // namespace switchyard
