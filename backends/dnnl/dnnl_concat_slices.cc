#include "backends/dnnl/dnnl_concat_slices.h"

#include <optional>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace switchyard {
namespace onednn {

using dnnl::memory;

namespace {

// The layout of kConcatLayouts most of `sources`' bytes have, among those
// whose channel blocks every source fills whole; nullopt when no source
// has any of them.
std::optional<ConcatLayout> MostCommonLayout(const std::vector<MemRef>& sources) {
  std::optional<ConcatLayout> best;
  size_t best_bytes = 0;
  for (const ConcatLayout& layout : kConcatLayouts) {
    size_t bytes = 0;
    bool whole_blocks = true;
    for (const MemRef& s : sources) {
      const Dims d = s.md.dims();
      whole_blocks = whole_blocks && d[1] % layout.channel_block == 0;
      if (s.md == memory::desc(d, kF32, layout.tag)) bytes += s.md.get_size();
    }
    if (whole_blocks && bytes > best_bytes) {
      best = layout;
      best_bytes = bytes;
    }
  }
  return best;
}

}  // namespace

absl::StatusOr<bool> LowerConcatIntoSlices(PartitionBuilder& b, const Node& node, int axis,
                                           const std::vector<MemRef>& sources, ValueId out) {
  if (axis != 1 || sources.empty()) return false;
  for (const MemRef& s : sources) {
    if (s.md.dims().size() != 4 || s.md.data_type() != kF32) return false;
  }
  const std::optional<ConcatLayout> layout = MostCommonLayout(sources);
  if (!layout) return false;
  Dims out_dims = sources[0].md.dims();
  out_dims[1] = 0;
  for (const MemRef& s : sources) out_dims[1] += s.md.dims()[1];
  const memory::desc whole_md(out_dims, kF32, layout->tag);
  const int64_t pixels = out_dims[2] * out_dims[3];
  // Channels c0.. of an image are one run of bytes, c0 * pixels floats in.
  const bool runs = out_dims[0] == 1 && (layout->tag != Tag::nhwc || pixels == 1);

  // Decide everything before adding anything.
  struct Slice {
    bool in_place = false;
    size_t offset = 0;  // bytes, for in_place
    memory::desc md;    // the slice of whole_md, for a reorder
    std::optional<dnnl::reorder::primitive_desc> reorder;
  };
  std::vector<Slice> slices(sources.size());
  const int position = b.Position(node);
  std::set<int> in_place_buffers;
  bool all_in_layout = true, any_in_place = false;
  int64_t c0 = 0;
  for (size_t i = 0; i < sources.size(); ++i) {
    const MemRef& s = sources[i];
    const Dims d = s.md.dims();
    const ValueId v = node.inputs[i];
    const bool in_layout = s.md == memory::desc(d, kF32, layout->tag);
    all_in_layout = all_in_layout && in_layout;
    Slice& slice = slices[i];
    slice.in_place = runs && in_layout && b.CanPlaceInside(s) && b.IsOwnBuffer(v, s) &&
                     b.Reusable(v, position) && in_place_buffers.insert(s.index).second;
    any_in_place = any_in_place || slice.in_place;
    if (slice.in_place) {
      slice.offset = static_cast<size_t>(c0 * pixels) * sizeof(float);
    } else {
      slice.md = whole_md.submemory_desc(d, {0, c0, 0, 0});
      slice.reorder.emplace(b.engine(), s.md, b.engine(), slice.md, PrimitiveAttr());
      if (absl::StartsWith(slice.reorder->impl_info_str(), "ref")) return false;
    }
    c0 += d[1];
  }
  if (all_in_layout && !any_in_place) return false;

  const MemRef whole = b.NewBuffer(whole_md);
  for (size_t i = 0; i < sources.size(); ++i) {
    const Slice& slice = slices[i];
    if (slice.in_place) {
      b.PlaceInside(sources[i], whole, slice.offset);
      continue;
    }
    const MemRef into{MemRef::Kind::kBuffer, whole.index, slice.md};
    b.AddStep(dnnl::reorder(*slice.reorder), {{DNNL_ARG_SRC, sources[i]}, {DNNL_ARG_DST, into}},
              slice.reorder->scratchpad_desc(),
              absl::StrCat("into ", node.name, ": ", b.graph().value(node.inputs[i]).name));
  }
  b.Define(out, whole);
  return true;
}

}  // namespace onednn
}  // namespace switchyard
