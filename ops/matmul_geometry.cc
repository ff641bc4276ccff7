#include "ops/matmul_geometry.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace switchyard {

int64_t MatmulGeometry::AMatrix(int64_t index) const {
  int64_t offset = 0;
  for (int d = static_cast<int>(batch.size()) - 1; d >= 0; --d) {
    offset += (index % batch[d]) * a_stride[d];
    index /= batch[d];
  }
  return offset;
}

int64_t MatmulGeometry::BMatrix(int64_t index) const {
  int64_t offset = 0;
  for (int d = static_cast<int>(batch.size()) - 1; d >= 0; --d) {
    offset += (index % batch[d]) * b_stride[d];
    index /= batch[d];
  }
  return offset;
}

bool MatmulGeometry::BIsShared() const {
  for (size_t d = 0; d < batch.size(); ++d) {
    if (b_stride[d] != 0 && batch[d] != 1) return false;
  }
  return true;
}

absl::StatusOr<MatmulGeometry> MatmulGeometryOf(const Shape& a,
                                                const Shape& b) {
  if (a.rank() < 1 || b.rank() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("matmul operands must have rank >= 1, got a ",
                     a.ToString(), " and b ", b.ToString()));
  }
  MatmulGeometry g;
  // 1-D a is a row [1, K], 1-D b a column [K, 1]; the added dimension is
  // dropped from the output.
  const int64_t a_k = a.dim(a.rank() - 1);
  const int64_t b_k = b.rank() == 1 ? b.dim(0) : b.dim(b.rank() - 2);
  g.m = a.rank() == 1 ? 1 : a.dim(a.rank() - 2);
  g.n = b.rank() == 1 ? 1 : b.dim(b.rank() - 1);
  g.k = a_k;
  if (a_k != b_k) {
    return absl::InvalidArgumentError(absl::StrCat(
        "matmul of a ", a.ToString(), " and b ", b.ToString(),
        ": a's last dimension (", a_k, ") must equal b's ",
        b.rank() == 1 ? "only" : "second-to-last", " dimension (", b_k, ")"));
  }
  const int a_batch = std::max(a.rank() - 2, 0);
  const int b_batch = std::max(b.rank() - 2, 0);
  const int rank = std::max(a_batch, b_batch);
  g.batch.assign(rank, 1);
  g.a_stride.assign(rank, 0);
  g.b_stride.assign(rank, 0);
  for (int d = 0; d < rank; ++d) {
    // Aligned from the right, as numpy broadcasts.
    const int ad = d - (rank - a_batch), bd = d - (rank - b_batch);
    const int64_t an = ad >= 0 ? a.dim(ad) : 1;
    const int64_t bn = bd >= 0 ? b.dim(bd) : 1;
    if (an != bn && an != 1 && bn != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("matmul of a ", a.ToString(), " and b ", b.ToString(),
                       ": batch dimensions ", an, " and ", bn,
                       " do not broadcast (equal, or one of them 1)"));
    }
    g.batch[d] = an == 1 ? bn : an;
  }
  // Steps in matrices, innermost batch dimension first.
  int64_t a_step = 1, b_step = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const int ad = d - (rank - a_batch), bd = d - (rank - b_batch);
    const int64_t an = ad >= 0 ? a.dim(ad) : 1;
    const int64_t bn = bd >= 0 ? b.dim(bd) : 1;
    g.a_stride[d] = an == 1 ? 0 : a_step;
    g.b_stride[d] = bn == 1 ? 0 : b_step;
    a_step *= an;
    b_step *= bn;
  }
  std::vector<int64_t> out = g.batch;
  for (int64_t n : g.batch) g.batch_count *= n;
  if (a.rank() > 1) out.push_back(g.m);
  if (b.rank() > 1) out.push_back(g.n);
  g.output = Shape(std::move(out));
  return g;
}

absl::StatusOr<GemmBiasSteps> GemmBiasStepsOf(const Shape& c, int64_t m,
                                              int64_t n) {
  GemmBiasSteps s;
  bool ok = c.rank() <= 2;
  if (c.rank() == 2) {
    ok = (c.dim(0) == m || c.dim(0) == 1) && (c.dim(1) == n || c.dim(1) == 1);
    if (ok) {
      s.row_step = c.dim(0) == 1 ? 0 : c.dim(1);
      s.col_step = c.dim(1) == 1 ? 0 : 1;
    }
  } else if (c.rank() == 1) {
    ok = c.dim(0) == n || c.dim(0) == 1;
    if (ok) s.col_step = c.dim(0) == 1 ? 0 : 1;
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("c ", c.ToString(), " does not broadcast to the output [",
                     m, ", ", n, "]: give [], [1], [", n, "], [1, ", n, "], [",
                     m, ", 1] or [", m, ", ", n, "]"));
  }
  return s;
}

}  // namespace switchyard
