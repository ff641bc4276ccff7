// AnalyzeTimeline on synthetic timelines: no sleeping, no clocks, exact numbers.

#include "core/timeline_analysis.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

using ::testing::HasSubstr;
using Verdict = UtilizationReport::Verdict;

// A stream of `n` batches through one loader thread: each batch takes
// `load_ms` to load and `forward_ms` on the device (h2d and d2h of 1 ms
// each); the device starts a batch as soon as it is loaded and the device is
// free, the loader starts the next batch right away (unbounded prefetch).
Timeline Stream(int n, double load_ms, double forward_ms, int loaders = 1) {
  Timeline t;
  t.device = "cpu:0";
  t.batch_size = 8;
  t.loader_threads = loaders;
  t.prefetch = 4;
  std::vector<double> loader_free(loaders, 0.0);
  double device_free = 0;
  for (int i = 0; i < n; ++i) {
    BatchTimeline b;
    b.index = i;
    b.loader = i % loaders;
    b.load = {loader_free[b.loader], loader_free[b.loader] + load_ms};
    loader_free[b.loader] = b.load.end_ms;
    const double start = std::max(device_free, b.load.end_ms);
    b.wait = {device_free, start};
    b.h2d = {start, start + 1};
    b.forward = {b.h2d.end_ms, b.h2d.end_ms + forward_ms};
    b.d2h = {b.forward.end_ms, b.forward.end_ms + 1};
    device_free = b.d2h.end_ms;
    t.batches.push_back(b);
  }
  t.run = {0, device_free};
  return t;
}

TEST(PercentileTest, LinearInterpolationLikeNumpy) {
  EXPECT_DOUBLE_EQ(Percentile({}, 0.5), 0);
  EXPECT_DOUBLE_EQ(Percentile({7}, 0.95), 7);
  EXPECT_DOUBLE_EQ(Percentile({4, 1, 3, 2}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(Percentile({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.95), 9.55);
  EXPECT_DOUBLE_EQ(Percentile({1, 2, 3}, 0), 1);
  EXPECT_DOUBLE_EQ(Percentile({1, 2, 3}, 1), 3);
}

TEST(UnionTest, OverlapsCountOnceAndAreClipped) {
  EXPECT_DOUBLE_EQ(UnionMs({{0, 10}, {5, 15}, {20, 30}}, {0, 100}), 25);
  EXPECT_DOUBLE_EQ(UnionMs({{0, 10}, {2, 3}}, {0, 100}), 10);
  EXPECT_DOUBLE_EQ(UnionMs({{-5, 10}, {90, 120}}, {0, 100}), 20);
  EXPECT_DOUBLE_EQ(UnionMs({{3, 3}, {4, 2}}, {0, 100}), 0);
}

TEST(AnalyzeTimelineTest, SlowLoaderStarvesTheDevice) {
  // 500 ms to load, 100 + 2 ms on the device: idle ~80% waiting.
  const Timeline t = Stream(10, 500, 100);
  absl::StatusOr<UtilizationReport> r = AnalyzeTimeline(t);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict, Verdict::kStarved);
  EXPECT_DOUBLE_EQ(r->run_ms, 5102);  // 10 loads, then the last batch's 102 ms
  EXPECT_DOUBLE_EQ(r->busy_share, 1020 / 5102.0);
  // Wait: 500 before the first batch, then 398 before each of the other 9.
  EXPECT_DOUBLE_EQ(r->startup_wait_ms, 500);
  EXPECT_DOUBLE_EQ(r->input_wait_ms, 500 + 9 * 398);
  EXPECT_DOUBLE_EQ(r->input_wait_share, (500 + 9 * 398) / 5102.0);
  EXPECT_DOUBLE_EQ(r->loader_busy_share, 5000 / 5102.0);
  EXPECT_NEAR(r->other_idle_share, 0, 1e-12);
  EXPECT_EQ(r->diagnosis,
            "cpu:0 idle 80% of the run waiting for input: raise --loader-threads "
            "or --prefetch (loaders busy 98%; a batch takes 500 ms to load and "
            "102 ms on cpu:0, so about 5 loader threads would keep up)");
  ASSERT_EQ(r->phases.size(), 5u);
  EXPECT_EQ(r->phases[0].phase, "load");
  EXPECT_DOUBLE_EQ(r->phases[0].mean_ms, 500);
  EXPECT_EQ(r->phases[3].phase, "forward");
  EXPECT_DOUBLE_EQ(r->phases[3].total_ms, 1000);
  EXPECT_DOUBLE_EQ(r->images_per_s, 80 / 5.102);
}

TEST(AnalyzeTimelineTest, StarvedOnSaturatedCoresAdvisesCheaperLoading) {
  // The same stream, but each 500 ms load spent 300 ms waiting for a core:
  // more loader threads would not help.
  Timeline t = Stream(10, 500, 100);
  for (BatchTimeline& b : t.batches) {
    b.load_cpu_ms = 200;
    b.load_core_wait_ms = 300;
  }
  absl::StatusOr<UtilizationReport> r = AnalyzeTimeline(t);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict, Verdict::kStarved);
  EXPECT_DOUBLE_EQ(r->loader_core_wait_share, 0.6);
  EXPECT_EQ(r->diagnosis,
            "cpu:0 idle 80% of the run waiting for input, and the loaders waited "
            "for a free core 60% of their load time: the cores are saturated, so "
            "make loading cheaper or give it more cores (more loader threads "
            "would take cores from the device's work; a batch takes 500 ms to "
            "load and 102 ms on cpu:0)");
  EXPECT_THAT(FormatUtilizationReport(*r, t), HasSubstr("waiting for a free core 60.0%"));
  // Unknown (-1) when no batch says.
  EXPECT_DOUBLE_EQ(AnalyzeTimeline(Stream(10, 500, 100))->loader_core_wait_share, -1);
}

TEST(AnalyzeTimelineTest, StarvedNamesTheSlowestLoaderStage) {
  // The loader reports its stages (run --images): decoding dominates.
  Timeline t = Stream(10, 500, 100);
  t.loader_stage_ms = {{"read", 50}, {"decode", 4000}, {"resize", 700},
                       {"normalize", 250}};
  absl::StatusOr<UtilizationReport> r = AnalyzeTimeline(t);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict, Verdict::kStarved);
  EXPECT_EQ(r->top_loader_stage, "decode");
  EXPECT_DOUBLE_EQ(r->top_loader_stage_share, 0.8);
  EXPECT_THAT(r->diagnosis,
              HasSubstr("so about 5 loader threads would keep up; decode is 80% "
                        "of loading)"));
  // The same on saturated cores.
  for (BatchTimeline& b : t.batches) {
    b.load_cpu_ms = 200;
    b.load_core_wait_ms = 300;
  }
  EXPECT_THAT(AnalyzeTimeline(t)->diagnosis,
              HasSubstr("load and 102 ms on cpu:0; decode is 80% of loading)"));
  // Without stages, no stage is named.
  EXPECT_TRUE(AnalyzeTimeline(Stream(10, 500, 100))->top_loader_stage.empty());
}

TEST(AnalyzeTimelineTest, EnoughLoadersFeedTheDevice) {
  // Same costs, 6 loader threads: after start-up the device never waits.
  const Timeline t = Stream(30, 500, 100, /*loaders=*/6);
  absl::StatusOr<UtilizationReport> r = AnalyzeTimeline(t);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict, Verdict::kBalanced);
  EXPECT_DOUBLE_EQ(r->startup_wait_ms, 500);
  EXPECT_NEAR(r->steady_wait_share, 0, 1e-12);
  EXPECT_DOUBLE_EQ(r->busy_share, 30 * 102 / (500 + 30 * 102.0));
  EXPECT_THAT(r->diagnosis, HasSubstr("balanced: cpu:0 busy 86% of the run, waiting "
                                      "for input 14% (0% after the first batch)"));
  // Busy share rises against the starved run.
  EXPECT_GT(r->busy_share, AnalyzeTimeline(Stream(30, 500, 100))->busy_share * 4);
}

// Synthetic streams are exact from their first batch: the tests of each
// verdict's rule take short ones, without the minimum that guards real runs.
AnalysisThresholds AnyLength() {
  AnalysisThresholds t;
  t.min_batches = 1;
  return t;
}

TEST(AnalyzeTimelineTest, TooFewBatchesCarryNoVerdict) {
  // Starved by every measure, but 7 batches say nothing reliable.
  absl::StatusOr<UtilizationReport> r = AnalyzeTimeline(Stream(7, 500, 100));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict, Verdict::kTooShort);
  EXPECT_STREQ(VerdictName(r->verdict), "too_short");
  EXPECT_THAT(r->diagnosis, HasSubstr("no verdict: 7 batches are too few"));
  EXPECT_THAT(r->diagnosis, HasSubstr("stream 8 or more"));
  EXPECT_EQ(AnalyzeTimeline(Stream(8, 500, 100))->verdict, Verdict::kStarved);
}

TEST(AnalyzeTimelineTest, OneNodeDominatingDeviceTime) {
  Timeline t = Stream(4, 10, 100, /*loaders=*/4);
  for (const BatchTimeline& b : t.batches) {
    const double s = b.forward.start_ms;
    t.device_spans.push_back({"cpu:0", "input h2d", "h2d", b.h2d});
    t.device_spans.push_back({"cpu:0", "features.0/conv2d", "conv2d", {s, s + 20}});
    t.device_spans.push_back({"cpu:0", "features.8/conv2d", "conv2d", {s + 20, s + 80}});
    t.device_spans.push_back({"cpu:0", "classifier.0/linear", "linear", {s + 80, s + 100}});
    t.device_spans.push_back({"cpu:0", "output d2h", "d2h", b.d2h});
  }
  absl::StatusOr<UtilizationReport> r = AnalyzeTimeline(t, AnyLength());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict, Verdict::kOneOp);
  EXPECT_EQ(r->top_node, "features.8/conv2d");
  EXPECT_DOUBLE_EQ(r->top_node_share, 60 / 102.0);
  EXPECT_THAT(r->diagnosis, HasSubstr("one op (features.8/conv2d) takes 59% of cpu:0 time: "));
  EXPECT_THAT(r->diagnosis, HasSubstr("another device may run it faster"));
  EXPECT_DOUBLE_EQ(r->copy_share, 2 / 102.0);
}

TEST(AnalyzeTimelineTest, CopiesDominatingDeviceTime) {
  Timeline t = Stream(4, 1, 10, /*loaders=*/4);
  for (const BatchTimeline& b : t.batches) {
    t.device_spans.push_back({"cuda:0", "input h2d", "h2d", {b.h2d.start_ms, b.forward.start_ms + 5}});
    t.device_spans.push_back({"cuda:0", "a/conv2d", "conv2d", {b.forward.start_ms + 5, b.forward.start_ms + 7}});
    t.device_spans.push_back({"cuda:0", "b/relu", "relu", {b.forward.start_ms + 7, b.forward.end_ms}});
    t.device_spans.push_back({"cuda:0", "output d2h", "d2h", b.d2h});
  }
  t.device = "cuda:0";
  absl::StatusOr<UtilizationReport> r = AnalyzeTimeline(t, AnyLength());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict, Verdict::kCopies);
  EXPECT_DOUBLE_EQ(r->copy_share, 7 / 12.0);
  EXPECT_THAT(r->diagnosis, HasSubstr("copies take 58% of cuda:0 time"));
}

TEST(AnalyzeTimelineTest, GapsBetweenKernelsWithInputReadyAreHostBound) {
  Timeline t = Stream(5, 1, 100, /*loaders=*/5);
  for (const BatchTimeline& b : t.batches) {
    // Ten 5 ms kernels spread over the 100 ms forward: half of it idle.
    for (int k = 0; k < 10; ++k) {
      const double s = b.forward.start_ms + 10 * k;
      t.device_spans.push_back({"cuda:0", "k/relu", "relu", {s, s + 5}});
    }
  }
  t.device = "cuda:0";
  absl::StatusOr<UtilizationReport> r = AnalyzeTimeline(t, AnyLength());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict, Verdict::kHostBound);
  EXPECT_THAT(r->diagnosis, HasSubstr("cuda:0 idle"));
  EXPECT_THAT(r->diagnosis, HasSubstr("with its input ready"));
  EXPECT_NEAR(r->busy_share, 250 / r->run_ms, 1e-12);
}

TEST(AnalyzeTimelineTest, BusySharePerDeviceFromSpans) {
  Timeline t = Stream(2, 1, 10);
  t.device_spans.push_back({"cpu:0", "x/relu", "relu", {0, 4}});
  t.device_spans.push_back({"cpu:0", "y/relu", "relu", {2, 6}});  // overlaps
  t.device_spans.push_back({"cuda:0", "z/relu", "relu", {0, 3}});
  absl::StatusOr<UtilizationReport> r = AnalyzeTimeline(t);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->devices.size(), 2u);
  EXPECT_EQ(r->devices[0].device, "cpu:0");
  EXPECT_DOUBLE_EQ(r->devices[0].busy_ms, 6);
  EXPECT_EQ(r->devices[1].device, "cuda:0");
  EXPECT_DOUBLE_EQ(r->devices[1].busy_ms, 3);
}

TEST(AnalyzeTimelineTest, RejectsEmptyTimelines) {
  Timeline empty;
  EXPECT_EQ(AnalyzeTimeline(empty).status().code(),
            absl::StatusCode::kInvalidArgument);
  Timeline no_run = Stream(2, 1, 1);
  no_run.run = {5, 5};
  EXPECT_EQ(AnalyzeTimeline(no_run).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(AnalyzeTimelineTest, FormattedReportNamesEveryPhaseAndTheDiagnosis) {
  const Timeline t = Stream(10, 500, 100);
  absl::StatusOr<UtilizationReport> r = AnalyzeTimeline(t);
  ASSERT_TRUE(r.ok());
  const std::string text = FormatUtilizationReport(*r, t);
  for (const char* s : {"load", "wait", "h2d", "forward", "d2h",
                        "cpu:0 busy 20.0% of the run", "diagnosis: cpu:0 idle 80%",
                        "10 batches of 8"}) {
    EXPECT_THAT(text, HasSubstr(s));
  }
}

}  // namespace
}  // namespace switchyard
