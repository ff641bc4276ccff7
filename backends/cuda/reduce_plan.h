#ifndef SWITCHYARD_BACKENDS_CUDA_REDUCE_PLAN_H_
#define SWITCHYARD_BACKENDS_CUDA_REDUCE_PLAN_H_

// Whether a reduction over the middle dimension of an [outer, n, inner] view
// runs in one launch or in two (issue 41, item 5), and how n is cut. Plain
// C++ from sizes alone: no CUDA calls, no device properties, so the same
// shape always gets the same partition on every GPU and the results stay
// bitwise reproducible (each chunk reduced in a fixed order, then the
// chunks combined in index order).
//
// One launch puts one 256-thread block on each row (inner == 1) or one
// thread on each output (inner > 1); a whole-tensor sum is then one block
// on one SM. Two launches: the first reduces each (outer, chunk, inner)
// into a partial buffer laid out as [outer, chunks, inner], the second
// reduces that buffer over its chunks with the one-launch kernels.
//
//   ReduceSplit s = PlanReduceSplit(/*outer=*/1, /*n=*/1 << 24, /*inner=*/1);
//   // s.chunks == 528, s.chunk_length == 31776; scratch of
//   // PartialElements(1, s, 1) floats.

#include <cstdint>

namespace switchyard {
namespace cuda {

struct ReduceSplit {
  // 1: one launch. More: that many chunks of n, every one but the last
  // chunk_length long, none empty.
  int64_t chunks = 1;
  int64_t chunk_length = 0;  // n when chunks == 1
  bool two_stage() const { return chunks > 1; }
  friend bool operator==(const ReduceSplit& a, const ReduceSplit& b) {
    return a.chunks == b.chunks && a.chunk_length == b.chunk_length;
  }
};

// The tuning constants, public for the tests and the docs.
// Rows (inner == 1): split only while fewer rows than this run at once,
// aiming at about kTargetRowBlocks blocks in all (an H200 has 132 SMs;
// several blocks each hide memory latency), never a chunk shorter than
// kMinRowChunk elements (32 per thread of a 256-thread block).
inline constexpr int64_t kSplitBelowRows = 264;
inline constexpr int64_t kTargetRowBlocks = 528;
inline constexpr int64_t kMinRowChunk = 8192;
// Columns (inner > 1): split only while fewer outputs than this run at
// once (one thread each), aiming at about kTargetColumnThreads threads,
// never a chunk shorter than kMinColumnChunk.
inline constexpr int64_t kSplitBelowColumns = 32768;
inline constexpr int64_t kTargetColumnThreads = 131072;
inline constexpr int64_t kMinColumnChunk = 64;
// The second launch walks the chunks serially per output (inner > 1), so
// they stay few.
inline constexpr int64_t kMaxColumnChunks = 1024;

// The split for reducing [outer, n, inner] over n. One launch when there
// is little to reduce, enough outputs to fill the GPU, or a size that is
// not positive.
ReduceSplit PlanReduceSplit(int64_t outer, int64_t n, int64_t inner);

// Floats of the partial buffer a two-stage split needs (0 for one launch).
int64_t PartialElements(int64_t outer, const ReduceSplit& split,
                        int64_t inner);

}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_REDUCE_PLAN_H_
