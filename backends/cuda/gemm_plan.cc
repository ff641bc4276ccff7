#include "backends/cuda/gemm_plan.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace switchyard {
namespace cuda {
namespace {

// One batch dimension of the output: its extent and the step, in elements,
// of a, b and y along it (0: that operand is broadcast).
struct BatchDim {
  int64_t extent = 1;
  int64_t a = 0, b = 0, y = 0;
};

// The batch dimensions of `g` without those of extent 1, neighbours merged
// where one step per operand covers both (a [B, C, M, K] contiguous is one
// dimension of B * C; so is a broadcast over both).
std::vector<BatchDim> MergedBatch(const MatmulGeometry& g) {
  const int rank = static_cast<int>(g.batch.size());
  std::vector<BatchDim> dims(rank);
  int64_t y_step = g.m * g.n;
  for (int d = rank - 1; d >= 0; --d) {
    dims[d] = {g.batch[d], g.a_stride[d] * g.m * g.k, g.b_stride[d] * g.k * g.n,
               y_step};
    y_step *= g.batch[d];
  }
  std::vector<BatchDim> merged;
  for (const BatchDim& dim : dims) {
    if (dim.extent == 1) continue;
    if (!merged.empty()) {
      BatchDim& outer = merged.back();
      if (outer.a == dim.a * dim.extent && outer.b == dim.b * dim.extent &&
          outer.y == dim.y * dim.extent) {
        outer = {outer.extent * dim.extent, dim.a, dim.b, dim.y};
        continue;
      }
    }
    merged.push_back(dim);
  }
  return merged;
}

// The power of two, at most 256, dividing every byte offset in `offsets`.
int AlignmentOf(const std::vector<int64_t>& element_offsets) {
  int64_t g = 0;
  for (int64_t e : element_offsets) g = std::gcd(g, e * int64_t{sizeof(float)});
  if (g == 0) return 256;
  const int64_t lowest_bit = g & -g;
  return static_cast<int>(std::min<int64_t>(lowest_bit, 256));
}

void SetAlignment(GemmPlan& plan) {
  std::vector<int64_t> offsets = {plan.lt.a.batch_stride, plan.lt.b.batch_stride,
                                  plan.lt.d.batch_stride};
  for (const LtCall& call : plan.calls) {
    offsets.insert(offsets.end(), {call.a, call.b, call.y});
  }
  plan.lt.alignment_bytes = AlignmentOf(offsets);
}

GemmPlan TileKernel(std::string why) {
  GemmPlan plan;
  plan.route = GemmRoute::kTileKernel;
  plan.why = std::move(why);
  return plan;
}

}  // namespace

LtMatmulArgs RowMajorProduct(int64_t m, int64_t n, int64_t k, bool trans_a,
                             bool trans_b) {
  LtMatmulArgs args;
  // cuBLASLt's A is op(b)^T. b stored [K, N] is the N x K matrix op(b)^T
  // itself; stored [N, K] (trans_b) it is the K x N matrix op(b), used
  // transposed.
  args.trans_a = trans_b;
  args.a = trans_b ? LtLayout{k, n, k} : LtLayout{n, k, n};
  // cuBLASLt's B is op(a)^T: likewise, from a [M, K] or [K, M] (trans_a).
  args.trans_b = trans_a;
  args.b = trans_a ? LtLayout{m, k, m} : LtLayout{k, m, k};
  args.d = LtLayout{n, m, n};
  return args;
}

LtMatmulArgs PlanLinear(int64_t rows, int64_t in, int64_t out, bool has_bias) {
  // y = x w^T: a = x [rows, in], b = w [out, in] used transposed.
  LtMatmulArgs args = RowMajorProduct(rows, out, in, /*trans_a=*/false,
                                      /*trans_b=*/true);
  args.bias_epilogue = has_bias;
  return args;
}

absl::StatusOr<GemmPlan> PlanMatmul(const Shape& a, const Shape& b) {
  absl::StatusOr<MatmulGeometry> geometry = MatmulGeometryOf(a, b);
  if (!geometry.ok()) return geometry.status();
  const MatmulGeometry& g = *geometry;
  if (g.m == 0 || g.n == 0 || g.batch_count == 0) return GemmPlan{};
  if (g.k == 0) {
    return TileKernel(
        "k = 0: the output is zeros, written by the tile kernel; cuBLASLt "
        "takes no empty inner dimension");
  }
  std::vector<BatchDim> dims = MergedBatch(g);
  GemmPlan plan;
  plan.route = GemmRoute::kCublasLt;
  if (dims.size() == 1 && dims[0].b == 0 && dims[0].a == g.m * g.k) {
    // b's one matrix for every a: [B * M, K] x [K, N], one plain GEMM.
    plan.folded_into_rows = true;
    plan.lt = RowMajorProduct(dims[0].extent * g.m, g.n, g.k, false, false);
    plan.calls = {LtCall{}};
    return plan;
  }
  plan.lt = RowMajorProduct(g.m, g.n, g.k, false, false);
  if (dims.empty()) {
    plan.calls = {LtCall{}};
    return plan;
  }
  // cuBLASLt's strided batch: the longest dimension (the innermost of equal
  // ones); a call per index of the others.
  size_t strided = 0;
  for (size_t d = 1; d < dims.size(); ++d) {
    if (dims[d].extent >= dims[strided].extent) strided = d;
  }
  const BatchDim& s = dims[strided];
  if (s.extent > std::numeric_limits<int32_t>::max()) {
    return TileKernel(absl::StrCat("a batch of ", s.extent,
                                   " matrices is more than cuBLASLt's 32-bit "
                                   "batch count"));
  }
  const int64_t calls = g.batch_count / s.extent;
  const double macs_per_call =
      static_cast<double>(g.m) * g.n * g.k * static_cast<double>(s.extent);
  if (calls > kMaxLtCalls && macs_per_call < static_cast<double>(kMinMacsPerCall)) {
    return TileKernel(absl::StrCat(
        "the batch of output ", g.output.ToString(), " needs ", calls,
        " cuBLASLt calls of ", macs_per_call,
        " multiply-adds each (no one stride per operand describes it); one "
        "launch of the tile kernel costs less"));
  }
  // The node's b is cuBLASLt's A, its a cuBLASLt's B.
  for (LtLayout* layout : {&plan.lt.a, &plan.lt.b, &plan.lt.d}) {
    layout->batch_count = s.extent;
  }
  plan.lt.a.batch_stride = s.b;
  plan.lt.b.batch_stride = s.a;
  plan.lt.d.batch_stride = s.y;
  plan.a_broadcast = s.a == 0;
  plan.b_broadcast = s.b == 0;
  // The calls: every index of the other dimensions, the last fastest.
  plan.calls.reserve(calls);
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t c = 0; c < calls; ++c) {
    LtCall call;
    for (size_t d = 0; d < dims.size(); ++d) {
      call.a += index[d] * dims[d].a;
      call.b += index[d] * dims[d].b;
      call.y += index[d] * dims[d].y;
    }
    plan.calls.push_back(call);
    for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
      if (static_cast<size_t>(d) == strided) continue;
      if (++index[d] < dims[d].extent) break;
      index[d] = 0;
    }
  }
  SetAlignment(plan);
  return plan;
}

absl::StatusOr<GemmPlan> PlanGemm(const Shape& a, const Shape& b, const Shape* c,
                                  const GemmAttrs& attrs) {
  if (a.rank() != 2 || b.rank() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gemm takes 2-D a and b, got a ", a.ToString(), " and b ", b.ToString(),
        "; use matmul for batches"));
  }
  const int64_t m = a.dim(attrs.trans_a ? 1 : 0), k = a.dim(attrs.trans_a ? 0 : 1);
  const int64_t b_k = b.dim(attrs.trans_b ? 1 : 0), n = b.dim(attrs.trans_b ? 0 : 1);
  if (k != b_k) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gemm of a ", a.ToString(), " (trans_a ", attrs.trans_a, ") and b ",
        b.ToString(), " (trans_b ", attrs.trans_b, "): op(a) has ", k,
        " columns but op(b) ", b_k, " rows; check trans_a and trans_b"));
  }
  const bool read_c = c != nullptr && attrs.beta != 0.0;
  GemmPlan plan;
  if (read_c) {
    absl::StatusOr<GemmBiasSteps> steps = GemmBiasStepsOf(*c, m, n);
    if (!steps.ok()) return steps.status();
    plan.c_steps = *steps;
  }
  if (m == 0 || n == 0) return plan;
  if (k == 0) {
    return TileKernel(
        "k = 0: the output is beta * c (or zeros), written by the tile "
        "kernel; cuBLASLt takes no empty inner dimension");
  }
  plan.route = GemmRoute::kCublasLt;
  plan.lt = RowMajorProduct(m, n, k, attrs.trans_a, attrs.trans_b);
  plan.lt.alpha = static_cast<float>(attrs.alpha);
  if (read_c) {
    plan.lt.beta = static_cast<float>(attrs.beta);
    // Every shape c may have with M * N elements lays them out as y does.
    plan.c = c->num_elements() == m * n ? GemmC::kInput
                                        : GemmC::kBroadcastIntoOutput;
  }
  plan.calls = {LtCall{}};
  return plan;
}

}  // namespace cuda
}  // namespace switchyard
