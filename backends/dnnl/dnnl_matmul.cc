// matmul (numpy.matmul, ranks 2 to 6) on oneDNN's matmul primitive. The
// lower-rank operand is viewed with leading 1s so both have the output's
// rank, and oneDNN broadcasts the batch dims of length 1. A constant second
// operand (a layer's weights) is reordered once into the layout the
// primitive picks (format `any`), which is what makes it fast; runtime
// operands are read plain. When every output matrix reads the same matrix
// of the second operand (e.g. [197, 1, 768] x [768, 2304]), the batch folds
// into the rows of one 2-D product: one large GEMM instead of many thin ones.
// A following add of a constant [N] is the primitive's bias, and a unary
// op after that its eltwise post-op (dnnl_fusion.h): matmul+add+gelu.

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"
#include "ops/matmul_geometry.h"

namespace switchyard {
namespace onednn {

using dnnl::memory;

namespace {

// `dims` with leading 1s up to `rank` (the same row-major bytes).
Dims PadToRank(const Dims& dims, size_t rank) {
  Dims padded(rank - dims.size(), 1);
  padded.insert(padded.end(), dims.begin(), dims.end());
  return padded;
}

// True when every batch dim of `b` (padded to `rank`) is 1: each output
// matrix then reads b's only matrix.
bool SharesOneMatrix(const Dims& b, size_t rank) {
  const Dims padded = PadToRank(b, rank);
  for (size_t i = 0; i + 2 < rank; ++i) {
    if (padded[i] != 1) return false;
  }
  return true;
}

}  // namespace

absl::Status CheckMatmul(const Node& node, const Graph& graph,
                         const NodeShapes& shapes) {
  if (shapes.in.size() != 2) {
    return Refuse(
        node, absl::StrCat("matmul takes 2 operands, got ", shapes.in.size()));
  }
  const Shape& a = shapes.in[0];
  const Shape& b = shapes.in[1];
  if (a.rank() < 2 || b.rank() < 2) {
    return Refuse(
        node,
        absl::StrCat(
            "operands ", a.ToString(), " and ", b.ToString(),
            ": a 1-D operand (a matrix-vector product) is not lowered onto "
            "oneDNN's matmul, which takes matrices; reshape it to [1, K] or "
            "[K, 1], or let it run on the cpu backend"));
  }
  // Shape inference already checked K and broadcasting; this repeats it so
  // a graph that skipped it cannot reach the primitive with bad dims.
  absl::StatusOr<MatmulGeometry> geometry = MatmulGeometryOf(a, b);
  if (!geometry.ok()) {
    return Refuse(node, std::string(geometry.status().message()));
  }
  // Every buffer oneDNN makes is sized in bytes with int64 arithmetic.
  constexpr int64_t kMaxElements =
      std::numeric_limits<int64_t>::max() / sizeof(float);
  if (a.num_elements() > kMaxElements || b.num_elements() > kMaxElements ||
      shapes.out.num_elements() > kMaxElements) {
    return Refuse(node, "operands too large to address in bytes");
  }
  return absl::OkStatus();
}

absl::Status LowerMatmul(PartitionBuilder& b, const FusionGroup& g,
                         const Node& node, ValueId out) {
  const Graph& graph = b.graph();
  const ValueId lhs = node.inputs[0];
  const ValueId rhs = node.inputs[1];
  const Dims out_dims = ToDims(*graph.value(node.outputs[0]).shape);
  const size_t rank = out_dims.size();
  const Dims a_dims = PadToRank(ToDims(*graph.value(lhs).shape), rank);
  const Dims w_logical = ToDims(*graph.value(rhs).shape);
  const int64_t k = a_dims[rank - 1];
  const int64_t n = out_dims[rank - 1];

  // The shapes the primitive sees: the output's rank, or 2-D when the
  // second operand is one shared matrix (the batch folded into rows).
  Dims src_dims = a_dims;
  Dims w_dims = PadToRank(w_logical, rank);
  Dims dst_dims = out_dims;
  if (rank > 2 && SharesOneMatrix(w_logical, rank) &&
      Product(a_dims, 0) / k == Product(out_dims, 0) / n) {
    // a has every batch dim the output has (no broadcast of a itself).
    src_dims = {Product(a_dims, 0) / k, k};
    w_dims = {k, n};
    dst_dims = {src_dims[0], n};
  }

  const bool constant_weights = graph.value(rhs).constant.has_value();
  const memory::desc w_request =
      constant_weights ? memory::desc(w_dims, kF32, Tag::any) : Plain(w_dims);
  // A fused bias add (dnnl_fusion.h): [1, ..., 1, N] against the output.
  Dims bias_dims(dst_dims.size(), 1);
  bias_dims.back() = n;
  const dnnl::matmul::desc desc =
      g.bias ? dnnl::matmul::desc(Plain(src_dims), w_request, Plain(bias_dims),
                                  Plain(dst_dims))
             : dnnl::matmul::desc(Plain(src_dims), w_request, Plain(dst_dims));
  dnnl::matmul::primitive_desc pd(desc, PrimitiveAttr(g), b.engine());

  SY_ASSIGN_OR_RETURN(MemRef src, b.PlainOf(lhs));
  src.md = Plain(src_dims);  // the same row-major bytes
  MemRef weights;
  if (constant_weights) {
    SY_ASSIGN_OR_RETURN(weights,
                        b.Owned(rhs, Plain(w_dims), pd.weights_desc()));
  } else {
    SY_ASSIGN_OR_RETURN(weights, b.PlainOf(rhs));
    weights.md = Plain(w_dims);
  }
  MemRef dst = b.NewBuffer(pd.dst_desc());
  std::vector<std::pair<int, MemRef>> args = {
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
  if (g.bias) {
    const ValueId bias = BiasOf(b.GroupNode(g, 1), node.outputs[0]);
    SY_ASSIGN_OR_RETURN(MemRef bias_ref,
                        b.Owned(bias, Plain(bias_dims), pd.bias_desc()));
    args.push_back({DNNL_ARG_BIAS, bias_ref});
  }
  b.AddStep(dnnl::matmul(pd), std::move(args), pd.scratchpad_desc(),
            Describe(pd, node));
  // The destination is row-major [rows, n] or the output's dims: either
  // way the output's row-major bytes.
  dst.md = Plain(out_dims);
  b.Define(out, dst);
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
