// gemm: y = alpha * op(a) op(b) + beta * c, as ONNX Gemm (op(x) is x or,
// with trans_a / trans_b, its transpose). The importer maps the plain
// Gemm(trans_b, alpha = beta = 1, 1-D c) onto `linear` instead, which the
// backends fuse with a following relu.
//   operands:   a [M, K] ([K, M] with trans_a), b [K, N] ([N, K] with
//               trans_b), c (optional) broadcastable to [M, N]: [], [1],
//               [N], [1, 1], [1, N], [M, 1] or [M, N]
//   attributes: trans_a = false, trans_b = false, alpha = 1, beta = 1
//               (ops/matmul_attrs.h)
//   output:     [M, N]

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/gemm_attrs.h"
#include "ops/matmul_geometry.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<Shape> GemmShape(const GemmAttrs& g,
                                absl::Span<const Shape> operands) {
  const Shape& a = operands[0];
  const Shape& b = operands[1];
  SY_RETURN_IF_ERROR(ops_internal::CheckRank(
      a, "a", 2, g.trans_a ? "(K, M) with trans_a" : "(M, K)"));
  SY_RETURN_IF_ERROR(ops_internal::CheckRank(
      b, "b", 2, g.trans_b ? "(N, K) with trans_b" : "(K, N)"));
  const int64_t m = a.dim(g.trans_a ? 1 : 0);
  const int64_t ka = a.dim(g.trans_a ? 0 : 1);
  const int64_t kb = b.dim(g.trans_b ? 1 : 0);
  const int64_t n = b.dim(g.trans_b ? 0 : 1);
  if (ka != kb) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gemm of a ", a.ToString(), g.trans_a ? " (transposed)" : "", " and b ",
        b.ToString(), g.trans_b ? " (transposed)" : "",
        ": the inner dimensions ", ka, " and ", kb, " must be equal"));
  }
  if (operands.size() > 2) {
    SY_RETURN_IF_ERROR(GemmBiasStepsOf(operands[2], m, n).status());
  }
  return Shape({m, n});
}

// A multiply-add is 2; alpha and beta * c one each per output element.
int64_t GemmFlops(const AttrMap& attrs, absl::Span<const Shape> operands,
                  const Shape& output) {
  absl::StatusOr<GemmAttrs> g = GemmAttrs::FromAttrMap(attrs);
  if (!g.ok() || operands.size() < 2 || operands[0].rank() != 2) return 0;
  const int64_t k = operands[0].dim(g->trans_a ? 0 : 1);
  return ops_internal::SaturatingSum(
      {ops_internal::SaturatingProduct({2, output.num_elements(), k}),
       ops_internal::SaturatingProduct(
           {operands.size() > 2 ? 3 : 1, output.num_elements()})});
}

static const bool kRegistered = RegisterOp(ops_internal::ShapeOp(
    {"gemm", {{"a"}, {"b"}, {"c", /*optional=*/true}},
     ops_internal::FloatingDTypes()},
    &GemmShape, &GemmFlops));

}  // namespace
}  // namespace switchyard
