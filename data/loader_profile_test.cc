// Loader stage spans as profiler events and the loader table, on synthetic
// spans with known durations.

#include "data/loader_profile.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace data {
namespace {

using Clock = std::chrono::steady_clock;

TEST(LoaderProfileTest, EventsAndSummary) {
  const Clock::time_point origin = Clock::now();
  Profiler profiler(origin);
  auto ms = [&](double v) {
    return origin + std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double, std::milli>(v));
  };
  // Two samples on loader 0 (read 1 ms, decode 6 ms, batch 1 ms each) and
  // one on loader 1 (read 1 ms, decode 3 ms).
  for (int s = 0; s < 2; ++s) {
    const double t = s * 8;
    const std::vector<StageSpan> spans = {{LoaderStage::kRead, ms(t), ms(t + 1)},
                                          {LoaderStage::kDecode, ms(t + 1), ms(t + 7)},
                                          {LoaderStage::kBatch, ms(t + 7), ms(t + 8)}};
    AddLoaderEvents(profiler, 0, 0, spans);
  }
  AddLoaderEvents(profiler, 1, 1,
                  std::vector<StageSpan>{{LoaderStage::kRead, ms(0), ms(1)},
                                         {LoaderStage::kDecode, ms(1), ms(4)}});
  ASSERT_EQ(profiler.events().size(), 8u);
  const ProfileEvent& e = profiler.events()[1];
  EXPECT_EQ(e.kind, ProfileEvent::Kind::kHost);
  EXPECT_EQ(e.op, "loader");
  EXPECT_EQ(e.name, "decode");
  EXPECT_EQ(e.lane, "loader 0");
  EXPECT_NEAR(e.start_us, 1000, 1);
  EXPECT_NEAR(e.duration_us, 6000, 1);
  EXPECT_EQ(profiler.events()[7].lane, "loader 1");
  EXPECT_EQ(profiler.events()[7].iteration, 1);

  std::vector<ProfileEvent> events = profiler.events();
  ProfileEvent copy;
  copy.kind = ProfileEvent::Kind::kCopy;
  copy.op = "h2d";
  copy.lane = "cpu:0";
  copy.duration_us = 600;
  events.push_back(copy);
  ProfileEvent other;  // a host span of another kind: ignored
  other.kind = ProfileEvent::Kind::kHost;
  other.name = "decode";
  other.duration_us = 1e6;
  events.push_back(other);

  const LoaderSummary summary = SummarizeLoader(events, 3);
  EXPECT_EQ(summary.loader_threads, 2);
  EXPECT_NEAR(summary.stage_ms, 2 + 15 + 1 + 2, 1e-3);
  ASSERT_EQ(summary.stages.size(), 3u);  // read, decode, batch: in order
  EXPECT_EQ(summary.stages[0].stage, "read");
  EXPECT_EQ(summary.stages[1].stage, "decode");
  EXPECT_EQ(summary.stages[2].stage, "batch");
  EXPECT_EQ(summary.stages[1].count, 3);
  EXPECT_NEAR(summary.stages[1].ms_per_sample, 15.0 / 3, 1e-3);
  EXPECT_NEAR(summary.stages[1].share, 15.0 / 20, 1e-4);
  EXPECT_NEAR(summary.ms_per_sample, 20.0 / 3, 1e-3);
  EXPECT_EQ(summary.copy.count, 1);
  EXPECT_NEAR(summary.copy.ms_per_sample, 0.2, 1e-4);

  const std::string text = FormatLoaderSummary(summary);
  EXPECT_TRUE(absl::StrContains(text, "loader: 2 threads, 3 samples")) << text;
  EXPECT_TRUE(absl::StrContains(text, "decode")) << text;
  EXPECT_TRUE(absl::StrContains(text, "75.0%")) << text;  // decode's share
  EXPECT_TRUE(absl::StrContains(text, "150.0 images/s per loader thread")) << text;
  EXPECT_TRUE(absl::StrContains(text, "copy to device (driver)")) << text;
}

TEST(LoaderProfileTest, NoLoaderEventsNoStages) {
  const LoaderSummary summary = SummarizeLoader({}, 0);
  EXPECT_TRUE(summary.stages.empty());
  EXPECT_EQ(summary.loader_threads, 0);
}

}  // namespace
}  // namespace data
}  // namespace switchyard
