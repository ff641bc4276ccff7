// pad on oneDNN. Every pad 0 (DenseNet's transitions exported with an
// explicit zero Pad) is a view (dnnl_views.cc). Constant padding that only
// adds (an Inception network's asymmetric pads, a 3-D convolution's pad
// along time before it is split into 2-D ones) is a host step inside the
// partition: oneDNN 2.6 has no pad primitive, and running it on cpu:0 cost
// two copies per pad. Reflect and edge modes, and negative pads (crops),
// are refused and run on the cpu backend.

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace onednn {
namespace {

// What the host step needs: the input's dims, and each dim's begin pad and
// the output's dims (row-major).
struct ConstantPad {
  std::vector<int64_t> in_dims;
  std::vector<int64_t> out_dims;
  std::vector<int64_t> begin;
  float value = 0;
};

// Writes each innermost row of `dst` once: the pad value, or the pad value
// around the matching row of `src`. Rows are shared among `threads`.
void RunConstantPad(const ConstantPad& p, const float* src, float* dst, int threads) {
  const int rank = static_cast<int>(p.in_dims.size());
  const int last = rank - 1;
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= p.out_dims[d];
  const int64_t out_row = rank == 0 ? 1 : p.out_dims[last];
  const int64_t in_row = rank == 0 ? 1 : p.in_dims[last];
  const int64_t before = rank == 0 ? 0 : p.begin[last];
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    float* out = dst + r * out_row;
    // r's index over the output's outer dims, read back in the input's.
    int64_t rest = r, source = 0, stride = 1;
    bool inside = true;
    for (int d = last - 1; d >= 0; --d) {
      const int64_t index = rest % p.out_dims[d] - p.begin[d];
      rest /= p.out_dims[d];
      inside = inside && index >= 0 && index < p.in_dims[d];
      source += index * stride;
      stride *= p.in_dims[d];
    }
    if (!inside) {
      std::fill(out, out + out_row, p.value);
      continue;
    }
    std::fill(out, out + before, p.value);
    std::memcpy(out + before, src + source * in_row, sizeof(float) * in_row);
    std::fill(out + before + in_row, out + out_row, p.value);
  }
}

bool AllZero(const std::vector<int64_t>& pads) {
  return std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; });
}

}  // namespace

absl::Status CheckPad(const Node& node, const Graph&, const NodeShapes&) {
  absl::StatusOr<PadAttrs> a = PadAttrs::FromAttrMap(node.attrs);
  if (!a.ok()) return Refuse(node, std::string(a.status().message()));
  if (AllZero(a->pads)) return absl::OkStatus();
  if (a->mode != PadMode::kConstant) {
    return Refuse(node, absl::StrCat("mode ", PadModeName(a->mode),
                                     "; the oneDNN device pads only with a constant, so this "
                                     "one runs on the cpu backend"));
  }
  for (int64_t p : a->pads) {
    if (p < 0) {
      return Refuse(node, absl::StrCat("pads [", absl::StrJoin(a->pads, ", "),
                                       "] crop (a negative pad); the oneDNN device only adds, "
                                       "so this one runs on the cpu backend"));
    }
  }
  return absl::OkStatus();
}

absl::Status LowerPad(PartitionBuilder& b, const FusionGroup& g, const Node& node,
                      ValueId out) {
  SY_ASSIGN_OR_RETURN(PadAttrs a, PadAttrs::FromAttrMap(node.attrs));
  if (AllZero(a.pads)) return LowerView(b, g, node, out);
  const Graph& graph = b.graph();
  ConstantPad p;
  p.in_dims = graph.value(node.inputs[0]).shape->dims();
  p.out_dims = graph.value(node.outputs[0]).shape->dims();
  const size_t rank = p.in_dims.size();
  if (a.pads.size() != 2 * rank) {
    return absl::InternalError(absl::StrCat(node.name, ": ", a.pads.size(),
                                            " pads for rank ", rank));
  }
  p.begin.assign(a.pads.begin(), a.pads.begin() + rank);
  p.value = static_cast<float>(a.value);
  SY_ASSIGN_OR_RETURN(MemRef src, b.PlainOf(node.inputs[0]));
  const MemRef dst = b.NewBuffer(Plain(p.out_dims));
  const int threads = b.threads();
  b.AddHostStep(
      [p, threads](const std::unordered_map<int, dnnl::memory>& bound) {
        RunConstantPad(p, static_cast<const float*>(bound.at(DNNL_ARG_SRC).get_data_handle()),
                       static_cast<float*>(bound.at(DNNL_ARG_DST).get_data_handle()), threads);
      },
      {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, absl::StrCat(node.name, ": host constant pad"));
  b.Define(out, dst);
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
