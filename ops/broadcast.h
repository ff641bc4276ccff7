#ifndef SWITCHYARD_OPS_BROADCAST_H_
#define SWITCHYARD_OPS_BROADCAST_H_

// ONNX multidirectional (numpy) broadcasting: the output shape of several
// operands, and how each operand's elements map onto the output's, for the
// elementwise ops (add, sub, mul, div, pow) and any op that broadcasts its
// operands (where, expand).
//
//   absl::StatusOr<Shape> out =
//       BroadcastShapes({a, b}, {"input", "other"});  // [2,1,4] + [3,1] -> [2,3,4]
//   BroadcastLayout layout = BroadcastLayout::Make({a, b}, *out);
//   // kernels: walk the output in runs of layout.inner_size() elements
//   ForEachBroadcastRun(layout, 0, out->num_elements(),
//                       [&](int64_t out_offset, const int64_t* offsets,
//                           const int64_t* strides, int64_t count) { ... });

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/graph.h"
#include "core/shape.h"

namespace switchyard {

// The shape every operand broadcasts to: ranks are right-aligned, and each
// dimension must be equal or 1 across the operands (a 0 broadcasts only
// against 0 or 1). `names` names the operands in errors ("input [2, 3] and
// other [4] do not broadcast: dimension 1 is 3 and 4 (numpy rules: equal, or
// one of them 1)"); it has one name per shape, or is empty ("operand 0").
absl::StatusOr<Shape> BroadcastShapes(absl::Span<const Shape> shapes,
                                      absl::Span<const std::string> names = {});

// Whether `operand` broadcasts to exactly `target` (ONNX unidirectional
// broadcasting, as Gemm's C or a bias needs): OK, or InvalidArgument naming
// `operand_name` and the first dimension that does not fit.
absl::Status CheckBroadcastsTo(const Shape& operand, const Shape& target,
                               absl::string_view operand_name);

// The stride, in elements, with which a row-major `operand` is read along
// each of `output`'s dimensions: 0 where the operand is broadcast (missing
// or of size 1), so operand offset = sum(index[d] * stride[d]). `operand`
// must broadcast to `output`.
std::vector<int64_t> BroadcastStrides(const Shape& operand,
                                      const Shape& output);

// How each operand of a broadcast is read, with adjacent output dimensions
// merged wherever every operand allows it (so [8,16,32] + [32] is 128 runs of
// 32 contiguous pairs, and a same-shape case is one run), and dimensions of
// size 1 dropped. At least one dimension, for a scalar or empty output too.
struct BroadcastLayout {
  std::vector<int64_t> dims;  // merged output dimensions, outermost first
  // strides[k][d]: operand k's stride along merged dimension d.
  std::vector<std::vector<int64_t>> strides;

  static BroadcastLayout Make(absl::Span<const Shape> operands,
                              const Shape& output);
  int rank() const { return static_cast<int>(dims.size()); }
  int64_t num_elements() const;
  // Elements per run: the innermost merged dimension.
  int64_t inner_size() const { return dims.back(); }
  // Whether every operand has the output's shape (one contiguous run each).
  bool SameShape() const;
};

// The layout of binary `node` of a graph that shape inference has run over:
// its two inputs' shapes against its output's. Internal, naming the node,
// when a shape is unknown (lowering before shape inference).
absl::StatusOr<BroadcastLayout> BinaryBroadcastLayout(const Node& node,
                                                      const Graph& graph);

// Calls run(out_offset, offsets, strides, count) for the output elements
// [begin, end), in order, one call per stretch along the innermost merged
// dimension: output elements out_offset .. out_offset + count - 1 read
// operand k at offsets[k] + i * strides[k] (i < count). Templated so the
// callback inlines; `offsets` and `strides` have one entry per operand.
template <typename Fn>
void ForEachBroadcastRun(const BroadcastLayout& layout, int64_t begin,
                         int64_t end, Fn&& run) {
  const int rank = layout.rank();
  const size_t operands = layout.strides.size();
  if (begin >= end) return;
  const int64_t inner = layout.inner_size();
  // The multi-index of `begin` and each operand's offset there.
  std::vector<int64_t> index(rank, 0);
  std::vector<int64_t> offsets(operands, 0);
  std::vector<int64_t> inner_strides(operands, 0);
  int64_t rest = begin;
  for (int d = rank - 1; d >= 0; --d) {
    index[d] = rest % layout.dims[d];
    rest /= layout.dims[d];
  }
  for (size_t k = 0; k < operands; ++k) {
    for (int d = 0; d < rank; ++d) offsets[k] += index[d] * layout.strides[k][d];
    inner_strides[k] = layout.strides[k][rank - 1];
  }
  int64_t position = begin;
  while (position < end) {
    const int64_t count =
        std::min(inner - index[rank - 1], end - position);
    run(position, offsets.data(), inner_strides.data(), count);
    position += count;
    if (position >= end) break;
    // Step to the start of the next run: finish this row, then carry.
    for (size_t k = 0; k < operands; ++k) {
      offsets[k] += count * inner_strides[k];
    }
    index[rank - 1] += count;
    for (int d = rank - 1; d > 0 && index[d] == layout.dims[d]; --d) {
      index[d] = 0;
      ++index[d - 1];
      for (size_t k = 0; k < operands; ++k) {
        offsets[k] += layout.strides[k][d - 1] -
                      layout.dims[d] * layout.strides[k][d];
      }
    }
  }
}

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_BROADCAST_H_
