#include "backends/cuda/reduce_plan.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace switchyard {
namespace cuda {
namespace {

// Every chunk non-empty, all of n covered, no chunk past n.
void ExpectCovers(const ReduceSplit& s, int64_t n) {
  ASSERT_GE(s.chunks, 1);
  if (!s.two_stage()) {
    EXPECT_EQ(s.chunk_length, n);
    return;
  }
  EXPECT_GE(s.chunk_length, 1);
  EXPECT_GE(s.chunks * s.chunk_length, n);
  EXPECT_LT((s.chunks - 1) * s.chunk_length, n);  // the last chunk not empty
}

TEST(ReducePlanTest, WholeTensorRowSplitsIntoAboutTheTargetBlocks) {
  const int64_t n = int64_t{1} << 24;
  const ReduceSplit s = PlanReduceSplit(1, n, 1);
  EXPECT_EQ(s, (ReduceSplit{528, 31776}));
  ExpectCovers(s, n);
  EXPECT_EQ(PartialElements(1, s, 1), 528);
}

TEST(ReducePlanTest, ShortRowsStayOneLaunch) {
  // Less than two minimum chunks: nothing to gain.
  EXPECT_EQ(PlanReduceSplit(1, 2 * kMinRowChunk - 1, 1),
            (ReduceSplit{1, 2 * kMinRowChunk - 1}));
  EXPECT_EQ(PlanReduceSplit(4, 1000, 1), (ReduceSplit{1, 1000}));
  const ReduceSplit two = PlanReduceSplit(1, 2 * kMinRowChunk, 1);
  EXPECT_EQ(two, (ReduceSplit{2, kMinRowChunk}));
}

TEST(ReducePlanTest, ManyRowsStayOneLaunch) {
  EXPECT_FALSE(PlanReduceSplit(kSplitBelowRows, 1 << 20, 1).two_stage());
  EXPECT_FALSE(PlanReduceSplit(100000, 1 << 20, 1).two_stage());
  EXPECT_TRUE(PlanReduceSplit(kSplitBelowRows - 1, 1 << 20, 1).two_stage());
}

TEST(ReducePlanTest, FewRowsShareTheTargetBlocks) {
  // 8 rows of 1M: 66 chunks each, 528 blocks in all.
  const ReduceSplit s = PlanReduceSplit(8, 1 << 20, 1);
  EXPECT_EQ(s.chunks, 66);
  ExpectCovers(s, 1 << 20);
  EXPECT_LE(8 * s.chunks, kTargetRowBlocks);
  EXPECT_GE(s.chunk_length, kMinRowChunk);
  EXPECT_EQ(PartialElements(8, s, 1), 8 * 66);
}

TEST(ReducePlanTest, ChunksNeverShorterThanTheMinimumNorEmpty) {
  for (int64_t outer : {1, 2, 3, 7, 100, 263}) {
    for (int64_t n : {int64_t{16384}, int64_t{16385}, int64_t{100003},
                      int64_t{1} << 22, int64_t{123456789}}) {
      const ReduceSplit s = PlanReduceSplit(outer, n, 1);
      SCOPED_TRACE(testing::Message() << "outer " << outer << " n " << n);
      ExpectCovers(s, n);
      if (s.two_stage()) {
        EXPECT_GE(s.chunk_length, kMinRowChunk);
        EXPECT_LE(s.chunks, kTargetRowBlocks);
      }
    }
  }
}

TEST(ReducePlanTest, ColumnsSplitWhenFewOutputsAndLongN) {
  // Sum over axis 0 of [1M, 4]: 4 threads walking 1M each without a split.
  const ReduceSplit s = PlanReduceSplit(1, 1 << 20, 4);
  EXPECT_TRUE(s.two_stage());
  ExpectCovers(s, 1 << 20);
  EXPECT_LE(s.chunks, kMaxColumnChunks);
  EXPECT_GE(s.chunk_length, kMinColumnChunk);
  EXPECT_EQ(PartialElements(1, s, 4), 4 * s.chunks);
  // Many outputs already fill the GPU.
  EXPECT_FALSE(PlanReduceSplit(1, 1 << 20, kSplitBelowColumns).two_stage());
  EXPECT_FALSE(PlanReduceSplit(64, 1 << 20, 512).two_stage());
  // A short n is walked in one launch.
  EXPECT_FALSE(PlanReduceSplit(1, 2 * kMinColumnChunk - 1, 4).two_stage());
}

TEST(ReducePlanTest, ColumnsAimAtTheTargetThreads) {
  // 1024 outputs: 128 chunks give 131072 threads.
  const ReduceSplit s = PlanReduceSplit(4, 1 << 20, 256);
  EXPECT_EQ(s.chunks, 128);
  EXPECT_EQ(s.chunk_length, 8192);
}

TEST(ReducePlanTest, EmptyAndDegenerateSizesAreOneLaunch) {
  EXPECT_EQ(PlanReduceSplit(1, 0, 1), (ReduceSplit{1, 0}));
  EXPECT_EQ(PlanReduceSplit(0, 1 << 20, 1), (ReduceSplit{1, 1 << 20}));
  EXPECT_EQ(PlanReduceSplit(1, 1 << 20, 0), (ReduceSplit{1, 1 << 20}));
  EXPECT_EQ(PlanReduceSplit(1, -5, 1), (ReduceSplit{1, 0}));
  EXPECT_EQ(PartialElements(1, ReduceSplit{1, 10}, 1), 0);
}

TEST(ReducePlanTest, HugeSizesDoNotOverflow) {
  const int64_t big = int64_t{1} << 40;
  EXPECT_FALSE(PlanReduceSplit(big, big, big).two_stage());
  EXPECT_FALSE(PlanReduceSplit(1, big, big).two_stage());
  const ReduceSplit s = PlanReduceSplit(1, big, 1);
  EXPECT_EQ(s.chunks, kTargetRowBlocks);
  ExpectCovers(s, big);
}

TEST(ReducePlanTest, SameShapeSamePlan) {
  // Determinism rests on this: the plan is a function of the shape alone.
  EXPECT_EQ(PlanReduceSplit(3, 777777, 1), PlanReduceSplit(3, 777777, 1));
  EXPECT_EQ(PlanReduceSplit(2, 777777, 9), PlanReduceSplit(2, 777777, 9));
}

}  // namespace
}  // namespace cuda
}  // namespace switchyard
