#include "backends/cuda/reduce_plan.h"

#include <algorithm>
#include <cstdint>

namespace switchyard {
namespace cuda {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// n cut into at most `wanted` chunks of at least `min_chunk` elements, the
// chunk length then fixed so that no chunk is empty.
ReduceSplit Cut(int64_t n, int64_t wanted, int64_t min_chunk) {
  const int64_t chunks = std::min(wanted, n / min_chunk);
  if (chunks < 2) return {1, n};
  const int64_t length = CeilDiv(n, chunks);
  return {CeilDiv(n, length), length};
}

}  // namespace

ReduceSplit PlanReduceSplit(int64_t outer, int64_t n, int64_t inner) {
  if (outer <= 0 || n <= 0 || inner <= 0) return {1, std::max<int64_t>(n, 0)};
  if (inner == 1) {
    if (outer >= kSplitBelowRows) return {1, n};
    return Cut(n, CeilDiv(kTargetRowBlocks, outer), kMinRowChunk);
  }
  // outer * inner without overflow: past the threshold either way.
  if (inner >= kSplitBelowColumns || outer >= kSplitBelowColumns ||
      outer * inner >= kSplitBelowColumns) {
    return {1, n};
  }
  return Cut(n,
             std::min(kMaxColumnChunks,
                      CeilDiv(kTargetColumnThreads, outer * inner)),
             kMinColumnChunk);
}

int64_t PartialElements(int64_t outer, const ReduceSplit& split,
                        int64_t inner) {
  return split.two_stage() ? outer * split.chunks * inner : 0;
}

}  // namespace cuda
}  // namespace switchyard
