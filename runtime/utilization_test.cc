#include "runtime/utilization.h"

#include "gtest/gtest.h"

namespace switchyard {
namespace runtime {
namespace {

TEST(UtilizationReportJsonTest, TheStreamsOptionsAndTheReportsFields) {
  UtilizationReport report;
  report.device = "cpu:0";
  report.batches = 4;
  report.phases.push_back({"forward", 4, 40, 10, 10, 12, 13});
  report.devices.push_back({"cpu:0", 40, 0.8});
  report.verdict = UtilizationReport::Verdict::kStarved;
  report.diagnosis = "starved: ...";
  PipelineOptions options;
  options.loader_threads = 2;
  options.prefetch = 3;
  options.loader_work = PipelineOptions::LoaderWork::kSleep;
  Timeline timeline;
  timeline.batch_size = 8;
  const nlohmann::json json = UtilizationReportJson(report, options, timeline);
  EXPECT_EQ(json["device"], "cpu:0");
  EXPECT_EQ(json["batch"], 8);
  EXPECT_EQ(json["batches"], 4);
  EXPECT_EQ(json["loader_threads"], 2);
  EXPECT_EQ(json["prefetch"], 3);
  EXPECT_EQ(json["loader_work"], "sleep");
  EXPECT_EQ(json["verdict"], "starved");
  EXPECT_EQ(json["diagnosis"], "starved: ...");
  EXPECT_EQ(json["phases"]["forward"]["count"], 4);
  EXPECT_EQ(json["phases"]["forward"]["total_ms"], 40);
  EXPECT_EQ(json["devices"][0]["busy_share"], 0.8);
  EXPECT_EQ(json["loader_core_wait_share"], -1);
}

}  // namespace
}  // namespace runtime
}  // namespace switchyard
