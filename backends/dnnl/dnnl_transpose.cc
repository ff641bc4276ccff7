// transpose on oneDNN: a view when the source's layout is not blocked (the
// same bytes, axes renamed: consumers read it strided, or reorder it to
// plain if they need to), else one reorder whose destination names the
// input's dims but strides them so the bytes land row-major in the
// output's shape (output dim i is input dim perm[i]).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace onednn {

using dnnl::memory;

namespace {

// OK when `perm` is a permutation of [0, rank).
absl::Status CheckPermutation(const std::vector<int64_t>& perm, size_t rank) {
  std::vector<bool> seen(rank, false);
  if (perm.size() == rank) {
    for (int64_t p : perm) {
      if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p]) break;
      seen[p] = true;
    }
  }
  for (bool s : seen) {
    if (!s) {
      return absl::InvalidArgumentError(
          absl::StrCat("perm [", absl::StrJoin(perm, ", "),
                       "] is not a permutation of 0..", rank - 1));
    }
  }
  return absl::OkStatus();
}

// `md` (a layout without inner blocks) with each length-1 axis given the
// stride a plain layout would give it: the largest extent (stride x length)
// of the axes after it, 1 for none. Its stride addresses nothing, but
// oneDNN reads it when it classifies a layout: r3d_18's [1, 1, C, H, W] ->
// [1, C, 1, H, W] view, strides [CHW, HW, CHW, W, 1], made a binary add
// read its other operand wrongly (relative error 1.0); strides [CHW, HW,
// HW, W, 1] say the same bytes are plain.
memory::desc WithPlainStridesOnUnitAxes(const memory::desc& md) {
  const int rank = md.data.ndims;
  const Dims dims = md.dims();
  Dims strides(md.data.format_desc.blocking.strides,
               md.data.format_desc.blocking.strides + rank);
  bool changed = false;
  for (int d = rank - 1; d >= 0; --d) {
    if (dims[d] != 1) continue;
    int64_t extent = 1;
    for (int e = d + 1; e < rank; ++e) extent = std::max(extent, strides[e] * dims[e]);
    changed = changed || strides[d] != extent;
    strides[d] = extent;
  }
  return changed ? memory::desc(dims, md.data_type(), strides) : md;
}

}  // namespace

absl::Status CheckTranspose(const Node& node, const Graph&,
                            const NodeShapes& shapes) {
  absl::StatusOr<TransposeAttrs> a = TransposeAttrs::FromAttrMap(node.attrs);
  if (!a.ok()) return Refuse(node, std::string(a.status().message()));
  absl::Status perm = CheckPermutation(a->perm, shapes.in[0].rank());
  if (!perm.ok()) {
    return Refuse(node, absl::StrCat(perm.message(), " (input ",
                                     shapes.in[0].ToString(), ")"));
  }
  return absl::OkStatus();
}

absl::Status LowerTranspose(PartitionBuilder& b, const FusionGroup&,
                            const Node& node, ValueId out) {
  SY_ASSIGN_OR_RETURN(TransposeAttrs a,
                      TransposeAttrs::FromAttrMap(node.attrs));
  SY_ASSIGN_OR_RETURN(MemRef src, b.Natural(node.inputs[0]));
  const Dims in_dims = src.md.dims();
  const size_t rank = in_dims.size();
  SY_RETURN_IF_ERROR(CheckPermutation(a.perm, rank));
  Dims out_dims(rank);
  for (size_t i = 0; i < rank; ++i) out_dims[i] = in_dims[a.perm[i]];
  // Row-major strides of the output, given to the input dim each output
  // dim comes from.
  Dims strides_by_input_dim(rank);
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    strides_by_input_dim[a.perm[i]] = stride;
    stride *= out_dims[i];
  }
  // Free when the source's layout has no inner blocks (plain, nhwc): the
  // output is the same bytes under a descriptor with permuted axes (old
  // axis perm[i] becomes axis i). convnext's NCHW <-> NHWC around every
  // block's LayerNorm are such views of its convolutions' nhwc outputs.
  std::vector<int> to_output(rank);
  for (size_t i = 0; i < rank; ++i) to_output[a.perm[i]] = static_cast<int>(i);
  const memory::desc view = src.md.permute_axes(to_output);
  if (view.data.format_kind == dnnl_blocked &&
      view.data.format_desc.blocking.inner_nblks == 0) {
    MemRef alias = src;
    alias.md = WithPlainStridesOnUnitAxes(view);
    b.Define(out, alias);
    return absl::OkStatus();
  }
  MemRef dst = b.NewBuffer(Plain(out_dims));
  MemRef permuted = dst;
  permuted.md = memory::desc(in_dims, kF32, strides_by_input_dim);
  // The permuted view must cover exactly the output buffer, or the reorder
  // would write past it.
  if (permuted.md.get_size() != dst.md.get_size()) {
    return absl::InternalError(absl::StrCat(
        node.name, ": the permuted destination ", MdString(permuted.md),
        " does not match the output buffer ", MdString(dst.md)));
  }
  b.AddReorder(src, permuted, absl::StrCat(node.name, ": transpose"));
  b.Define(out, dst);
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
