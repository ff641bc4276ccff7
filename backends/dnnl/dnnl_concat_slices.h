#ifndef SWITCHYARD_BACKENDS_DNNL_DNNL_CONCAT_SLICES_H_
#define SWITCHYARD_BACKENDS_DNNL_DNNL_CONCAT_SLICES_H_

// A channel concat of 4-D values lowered as writes into slices of its
// output, in the layout most of its sources' bytes already have. A source
// in that layout, at batch 1 (where its channels are one run of the
// output's bytes), that is a buffer of its own nothing reads after the
// concat, is stored inside the output: it costs nothing. Every other source
// is reordered from its own layout straight into its slice.
//
// Inception blocks join branches whose convolutions chose different
// layouts (Winograd's blocked one beside brgconv's channels-last): the
// plain path reordered each branch to plain, concatenated, and reordered
// the result again for the next convolution; 24% of GoogLeNet at batch 1
// (2 threads, AMD EPYC).

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/dnnl/dnnl_builder.h"
#include "core/graph.h"

namespace switchyard {
namespace onednn {

// The 4-D layouts a concat's output may take, with their channel block (1:
// none); a blocked one only where every source's channels fill whole blocks.
struct ConcatLayout {
  Tag tag;
  int64_t channel_block;
};
inline constexpr ConcatLayout kConcatLayouts[] = {
    {Tag::nchw, 1}, {Tag::nhwc, 1}, {Tag::nChw8c, 8}, {Tag::nChw16c, 16}};

// Lowers concat `node` (sources `sources`, each in its own layout, along
// `axis`) into slices of a new buffer holding value `out`; false (nothing
// added) when the concat is not along the channels of 4-D float values,
// when every source already shares one layout and none can be stored in
// place (oneDNN's concat primitive does that as well), or when oneDNN has
// only its reference reorder for a slice.
absl::StatusOr<bool> LowerConcatIntoSlices(PartitionBuilder& b, const Node& node, int axis,
                                           const std::vector<MemRef>& sources, ValueId out);

}  // namespace onednn
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_DNNL_DNNL_CONCAT_SLICES_H_
