// reduce_mean on oneDNN's reduction primitive (reduction_mean), over any
// axes: the plain source, and a plain destination of the source's rank with
// each reduced axis 1. Without keepdims the output is the same row-major
// bytes under the shorter shape. A reduction over axes of length 1 only
// changes nothing, so it is a view. Where oneDNN 2.6 has only its reference
// kernel (one block of axes that are not the innermost, as a transformer's
// mean over its tokens: [8, 128, 256] over axis 1 took 1.5 ms) and the
// axes form one block, it is a host pass adding whole rows, vectorized
// along them, then dividing by the count as cpu:0 does.

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"
#include "ops/reduce_attrs.h"
#include "ops/reduce_geometry.h"

namespace switchyard {
namespace onednn {
namespace {

// out[o, i] = mean over r of in[o, r, i], the rows of `inner` values added
// in order; the (outer, inner-block) tiles split over the threads.
void MeanOverMiddleAxis(const float* in, float* out, const ReducePass& p, int threads) {
  constexpr int64_t kBlock = 512;  // columns per task: one row block in L1
  const int64_t blocks = (p.inner + kBlock - 1) / kBlock;
  const float count = static_cast<float>(p.n);
#pragma omp parallel for num_threads(std::max(1, threads)) schedule(static)
  for (int64_t t = 0; t < p.outer * blocks; ++t) {
    const int64_t o = t / blocks;
    const int64_t begin = (t % blocks) * kBlock;
    const int64_t end = std::min(p.inner, begin + kBlock);
    float* acc = out + o * p.inner;
    const float* rows = in + o * p.n * p.inner;
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) acc[i] = rows[i];
    for (int64_t r = 1; r < p.n; ++r) {
      const float* row = rows + r * p.inner;
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) acc[i] += row[i];
    }
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) acc[i] /= count;
  }
}

}  // namespace

absl::Status CheckReduceMean(const Node& node, const Graph&,
                             const NodeShapes& shapes) {
  absl::StatusOr<ReduceAttrs> a =
      ReduceAttrs::FromAttrMap(node.attrs, "reduce_mean");
  if (!a.ok()) return Refuse(node, std::string(a.status().message()));
  absl::StatusOr<std::vector<bool>> reduced =
      ReducedAxes(a->axes, shapes.in[0]);
  if (!reduced.ok()) {
    return Refuse(node, std::string(reduced.status().message()));
  }
  return absl::OkStatus();
}

absl::Status LowerReduceMean(PartitionBuilder& b, const FusionGroup&,
                             const Node& node, ValueId out) {
  const Graph& graph = b.graph();
  SY_ASSIGN_OR_RETURN(ReduceAttrs a,
                      ReduceAttrs::FromAttrMap(node.attrs, "reduce_mean"));
  const Shape& input = *graph.value(node.inputs[0]).shape;
  SY_ASSIGN_OR_RETURN(std::vector<bool> reduced, ReducedAxes(a.axes, input));
  if (ReducedCount(input, reduced) == 1) {
    return b.Alias(out, node.inputs[0]);  // every reduced axis has length 1
  }
  SY_ASSIGN_OR_RETURN(MemRef src, b.PlainOf(node.inputs[0]));
  const Dims kept = ToDims(ReducedShape(input, reduced, /*keepdims=*/true));
  dnnl::reduction::desc desc(dnnl::algorithm::reduction_mean, src.md,
                             Plain(kept), /*p=*/0.f, /*eps=*/0.f);
  dnnl::reduction::primitive_desc pd(desc, PrimitiveAttr(), b.engine());
  const std::vector<ReducePass> passes = ReducePasses(input, reduced);
  if (absl::StartsWith(pd.impl_info_str(), "ref") && passes.size() == 1 &&
      passes[0].inner > 1) {
    const ReducePass pass = passes[0];
    const int threads = b.threads();
    const MemRef dst = b.NewBuffer(Plain(ToDims(*graph.value(node.outputs[0]).shape)));
    b.AddHostStep(
        [pass, threads](const std::unordered_map<int, dnnl::memory>& bound) {
          MeanOverMiddleAxis(static_cast<const float*>(bound.at(DNNL_ARG_SRC).get_data_handle()),
                             static_cast<float*>(bound.at(DNNL_ARG_DST).get_data_handle()), pass,
                             threads);
        },
        {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}},
        absl::StrCat(node.name, ": host mean over rows"));
    b.Define(out, dst);
    return absl::OkStatus();
  }
  MemRef dst = b.NewBuffer(pd.dst_desc());
  b.AddStep(dnnl::reduction(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}},
            pd.scratchpad_desc(), Describe(pd, node));
  dst.md = Plain(ToDims(*graph.value(node.outputs[0]).shape));  // same bytes
  b.Define(out, dst);
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
