// Merging the ranks of an MPI job: the straggler rule, the bench and run
// tables and JSON (sums, the slowest rank), errors for malformed documents
// from other processes, and the merged Chrome trace.

#include "runtime/rank_merge.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace runtime {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<RankIdentity> Ranks(int n) {
  const char* hosts[] = {"a", "b", "c", "d"};
  const char* devices[] = {"cpu:0", "cuda:1", "cuda:0", "cuda:2"};
  std::vector<RankIdentity> ranks;
  for (int i = 0; i < n; ++i) ranks.push_back({i, hosts[i], devices[i]});
  return ranks;
}

// ---- FindStraggler ----

TEST(FindStragglerTest, TwoEqualRanksHaveNone) {
  const Straggler s = FindStraggler(Ranks(2), {0.010, 0.010}, {});
  EXPECT_FALSE(s.found);
  EXPECT_EQ(s.rank, -1);
  EXPECT_THAT(s.text, HasSubstr("within 15%"));
}

TEST(FindStragglerTest, TwoRanksOneHalfAgainSlowerIsNamed) {
  const Straggler s = FindStraggler(Ranks(2), {0.010, 0.015}, {});
  ASSERT_TRUE(s.found);
  EXPECT_EQ(s.rank, 1);
  EXPECT_NEAR(s.ratio, 1.5, 1e-9);
  EXPECT_THAT(s.text,
              HasSubstr("rank 1 (host b, cuda:1) is 1.50x slower than the other ranks' median"));
  EXPECT_THAT(s.text, Not(HasSubstr("diagnosis")));
}

TEST(FindStragglerTest, FourRanksOneSlow) {
  const Straggler s = FindStraggler(Ranks(4), {1.0, 1.02, 1.4, 0.98}, {});
  ASSERT_TRUE(s.found);
  EXPECT_EQ(s.rank, 2);
  // The other ranks' median: 1.0 of {0.98, 1.0, 1.02}.
  EXPECT_NEAR(s.ratio, 1.4, 1e-9);
  EXPECT_THAT(s.text, HasSubstr("rank 2 (host c, cuda:0) is 1.40x"));
}

TEST(FindStragglerTest, FourRanksWithinTenPercentHaveNone) {
  const Straggler s = FindStraggler(Ranks(4), {1.0, 1.05, 1.1, 0.95}, {});
  EXPECT_FALSE(s.found);
  EXPECT_EQ(s.rank, -1);
}

TEST(FindStragglerTest, OnlyTheSlowestOfSeveralIsNamed) {
  // Ranks 2 and 3 are both beyond the margin; 3 is slower.
  const Straggler s = FindStraggler(Ranks(4), {1.0, 1.0, 2.0, 3.0}, {});
  ASSERT_TRUE(s.found);
  EXPECT_EQ(s.rank, 3);
  EXPECT_NEAR(s.ratio, 3.0, 1e-9);  // against the median of {1, 1, 2}
}

TEST(FindStragglerTest, MarginIsFifteenPercent) {
  EXPECT_FALSE(FindStraggler(Ranks(2), {1.0, 1.12}, {}).found);
  EXPECT_TRUE(FindStraggler(Ranks(2), {1.0, 1.18}, {}).found);
}

TEST(FindStragglerTest, NamesTheRankNumberAndItsOwnCause) {
  const std::vector<RankIdentity> ranks = {{4, "x", "cpu:0"}, {7, "y", "cuda:3"}};
  const Straggler s =
      FindStraggler(ranks, {0.5, 1.0}, {"balanced: fine", "input-bound: 70% decoding"});
  ASSERT_TRUE(s.found);
  EXPECT_EQ(s.rank, 7);
  EXPECT_THAT(s.text, HasSubstr("rank 7 (host y, cuda:3) is 2.00x slower than the other "
                                "ranks' median; its own diagnosis: input-bound: 70% decoding"));
}

TEST(FindStragglerTest, NaNTimeGivesNoVerdict) {
  const Straggler s = FindStraggler(Ranks(3), {1.0, kNaN, 3.0}, {});
  EXPECT_FALSE(s.found);
  EXPECT_EQ(s.rank, -1);
  EXPECT_THAT(s.text, HasSubstr("no verdict"));
  EXPECT_THAT(s.text, HasSubstr("rank 1 (host b, cuda:1) has no valid time (nan)"));
}

TEST(FindStragglerTest, NonPositiveTimeGivesNoVerdict) {
  EXPECT_FALSE(FindStraggler(Ranks(2), {0.0, 1.0}, {}).found);
  EXPECT_FALSE(FindStraggler(Ranks(2), {-1.0, 1.0}, {}).found);
  EXPECT_FALSE(
      FindStraggler(Ranks(2), {std::numeric_limits<double>::infinity(), 1.0}, {}).found);
}

TEST(FindStragglerTest, OneRankGivesNoVerdict) {
  const Straggler s = FindStraggler(Ranks(1), {1.0}, {});
  EXPECT_FALSE(s.found);
  EXPECT_THAT(s.text, HasSubstr("one rank"));
}

TEST(FindStragglerTest, SizesThatDifferGiveNoVerdict) {
  const Straggler s = FindStraggler(Ranks(3), {1.0, 2.0}, {});
  EXPECT_FALSE(s.found);
  EXPECT_THAT(s.text, HasSubstr("3 ranks but 2 times"));
}

// ---- MergeBenchRanks ----

json Row(const std::string& device, int batch, double median, double p95, double ips) {
  json stats = {{"median", median}, {"p95", p95}, {"min", median}, {"max", p95},
                {"mean", median},   {"samples", json::array({median})}};
  return {{"device", device},     {"batch", batch},         {"forward_ms", stats},
          {"h2d_ms", stats},      {"d2h_ms", stats},        {"end_to_end_ms", stats},
          {"images_per_s", ips},  {"speedup_vs_cpu", nullptr}};
}

json ErrorRow(const std::string& device, int batch, const std::string& error) {
  return {{"device", device}, {"batch", batch}, {"error", error}};
}

json BenchDoc(std::vector<json> rows, const std::string& model = "vgg11") {
  return {{"schema", "switchyard.bench/1"}, {"framework", "switchyard"},
          {"model", model},                 {"warmup", 2},
          {"iterations", 10},               {"batches", {1, 8}},
          {"context", json::object()},      {"devices", json::array()},
          {"results", rows}};
}

TEST(MergeBenchRanksTest, TotalsSlowestRankAndStraggler) {
  const std::vector<json> docs = {
      BenchDoc({Row("cpu:0", 8, 10.0, 12.0, 800.0)}),
      BenchDoc({Row("cuda:1", 8, 20.0, 25.0, 400.0)}),
  };
  absl::StatusOr<MergedBench> merged = MergeBenchRanks(Ranks(2), docs);
  ASSERT_TRUE(merged.ok()) << merged.status();
  const json& j = merged->json;
  EXPECT_EQ(j["schema"], "switchyard.bench_ranks/1");
  EXPECT_EQ(j["model"], "vgg11");
  ASSERT_EQ(j["ranks"].size(), 2u);
  EXPECT_EQ(j["ranks"][1], json({{"rank", 1}, {"host", "b"}, {"device", "cuda:1"}}));
  ASSERT_EQ(j["results"].size(), 1u);
  const json& b8 = j["results"][0];
  EXPECT_EQ(b8["batch"], 8);
  EXPECT_DOUBLE_EQ(b8["total_images_per_s"].get<double>(), 1200.0);
  EXPECT_EQ(b8["slowest_rank"], 1);
  EXPECT_DOUBLE_EQ(b8["step_ms"].get<double>(), 20.0);
  EXPECT_DOUBLE_EQ(b8["ranks"][0]["end_to_end_ms"]["median"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(b8["ranks"][1]["end_to_end_ms"]["p95"].get<double>(), 25.0);
  EXPECT_DOUBLE_EQ(b8["ranks"][1]["images_per_s"].get<double>(), 400.0);
  EXPECT_EQ(b8["straggler"]["found"], true);
  EXPECT_EQ(b8["straggler"]["rank"], 1);
  EXPECT_NEAR(b8["straggler"]["ratio"].get<double>(), 2.0, 1e-9);
  ASSERT_EQ(j["per_rank"].size(), 2u);
  EXPECT_EQ(j["per_rank"][1], docs[1]);

  const std::string& t = merged->table;
  EXPECT_THAT(t, HasSubstr("across 2 ranks: vgg11"));
  EXPECT_THAT(t, HasSubstr("batch 8\n"));
  EXPECT_THAT(t, HasSubstr("  rank   host  device  median ms  p95 ms  images/s\n"));
  EXPECT_THAT(t, HasSubstr("  1      b     cuda:1       20.0    25.0    400.00\n"));
  EXPECT_THAT(t, HasSubstr("  total                step 20.0           1200.00\n"));
  EXPECT_THAT(t, HasSubstr("straggler: rank 1 (host b, cuda:1) is 2.00x slower"));
}

TEST(MergeBenchRanksTest, EveryBatchAndEveryDeviceOfARank) {
  // Rank 0 measured two devices; batches come in rank 0's order.
  const std::vector<json> docs = {
      BenchDoc({Row("cpu:0", 1, 4.0, 5.0, 250.0), Row("cuda:0", 1, 1.0, 1.5, 1000.0),
                Row("cpu:0", 8, 16.0, 17.0, 500.0), Row("cuda:0", 8, 2.0, 2.5, 4000.0)}),
      BenchDoc({Row("cuda:1", 1, 1.0, 1.2, 1000.0), Row("cuda:1", 8, 2.0, 2.2, 4000.0)}),
  };
  absl::StatusOr<MergedBench> merged = MergeBenchRanks(Ranks(2), docs);
  ASSERT_TRUE(merged.ok()) << merged.status();
  const json& results = merged->json["results"];
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["batch"], 1);
  EXPECT_EQ(results[1]["batch"], 8);
  ASSERT_EQ(results[0]["ranks"].size(), 3u);
  EXPECT_EQ(results[0]["ranks"][1]["device"], "cuda:0");
  EXPECT_EQ(results[0]["ranks"][1]["rank"], 0);
  EXPECT_DOUBLE_EQ(results[0]["total_images_per_s"].get<double>(), 2250.0);
  EXPECT_DOUBLE_EQ(results[1]["total_images_per_s"].get<double>(), 8500.0);
  EXPECT_EQ(results[1]["slowest_rank"], 0);
  EXPECT_DOUBLE_EQ(results[1]["step_ms"].get<double>(), 16.0);
  // cpu:0 is 8x the median of the two GPUs.
  EXPECT_EQ(results[1]["straggler"]["rank"], 0);
  EXPECT_NEAR(results[1]["straggler"]["ratio"].get<double>(), 8.0, 1e-9);
  EXPECT_THAT(merged->table, HasSubstr("rank 0 (host a, cpu:0) is 8.00x slower"));
  EXPECT_THAT(merged->table, HasSubstr("step 4.000"));
}

TEST(MergeBenchRanksTest, FailedRowIsShownAndLeftOutOfTotals) {
  const std::vector<json> docs = {
      BenchDoc({Row("cpu:0", 8, 10.0, 11.0, 800.0)}),
      BenchDoc({ErrorRow("cuda:1", 8, "out of memory: 2.0 GiB requested")}),
      BenchDoc({Row("cuda:0", 8, 11.0, 12.0, 727.0)}),
  };
  absl::StatusOr<MergedBench> merged = MergeBenchRanks(Ranks(3), docs);
  ASSERT_TRUE(merged.ok()) << merged.status();
  const json& b8 = merged->json["results"][0];
  EXPECT_DOUBLE_EQ(b8["total_images_per_s"].get<double>(), 1527.0);
  EXPECT_EQ(b8["slowest_rank"], 2);
  EXPECT_EQ(b8["ranks"][1]["error"], "out of memory: 2.0 GiB requested");
  EXPECT_FALSE(b8["ranks"][1].contains("images_per_s"));
  EXPECT_EQ(b8["straggler"]["found"], false);
  EXPECT_THAT(merged->table,
              HasSubstr("rank 1 (host b, cuda:1): failed: out of memory: 2.0 GiB requested"));
  EXPECT_THAT(merged->table, HasSubstr("failed"));
}

TEST(MergeBenchRanksTest, RankWithoutABatchSaysSo) {
  const std::vector<json> docs = {
      BenchDoc({Row("cpu:0", 1, 1.0, 1.0, 1000.0), Row("cpu:0", 8, 8.0, 8.0, 1000.0)}),
      BenchDoc({Row("cuda:1", 8, 8.0, 9.0, 1000.0)}),
  };
  absl::StatusOr<MergedBench> merged = MergeBenchRanks(Ranks(2), docs);
  ASSERT_TRUE(merged.ok()) << merged.status();
  const json& b1 = merged->json["results"][0];
  EXPECT_EQ(b1["ranks"][1]["error"], "no result at batch 1");
  EXPECT_DOUBLE_EQ(b1["total_images_per_s"].get<double>(), 1000.0);
  EXPECT_THAT(merged->table, HasSubstr("rank 1 (host b, cuda:1): no result at batch 1"));
  // At batch 8 both ran at one pace.
  EXPECT_EQ(merged->json["results"][1]["straggler"]["found"], false);
}

TEST(MergeBenchRanksTest, NoRankSucceededAtABatch) {
  absl::StatusOr<MergedBench> merged =
      MergeBenchRanks(Ranks(1), {BenchDoc({ErrorRow("cpu:0", 4, "boom")})});
  ASSERT_TRUE(merged.ok()) << merged.status();
  const json& b4 = merged->json["results"][0];
  EXPECT_TRUE(b4["slowest_rank"].is_null());
  EXPECT_TRUE(b4["step_ms"].is_null());
  EXPECT_DOUBLE_EQ(b4["total_images_per_s"].get<double>(), 0.0);
  EXPECT_THAT(merged->table, HasSubstr("across 1 rank:"));
}

TEST(MergeBenchRanksTest, SizesMustMatch) {
  absl::StatusOr<MergedBench> merged =
      MergeBenchRanks(Ranks(2), {BenchDoc({Row("cpu:0", 1, 1, 1, 1)})});
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(merged.status().message(), HasSubstr("2 rank identities but 1 bench documents"));
  EXPECT_FALSE(MergeBenchRanks({}, {}).ok());
}

TEST(MergeBenchRanksTest, DifferentModelsAreAnError) {
  absl::StatusOr<MergedBench> merged =
      MergeBenchRanks(Ranks(2), {BenchDoc({}, "vgg11"), BenchDoc({}, "resnet18")});
  ASSERT_FALSE(merged.ok());
  EXPECT_THAT(merged.status().message(), HasSubstr("rank 1 (host b, cuda:1)"));
  EXPECT_THAT(merged.status().message(), HasSubstr("'resnet18'"));
}

// The error of merging rank 1's `bad` document next to a good rank 0.
std::string BenchError(const json& bad) {
  absl::StatusOr<MergedBench> merged =
      MergeBenchRanks(Ranks(2), {BenchDoc({Row("cpu:0", 1, 1, 1, 1000)}), bad});
  if (merged.ok()) return "merged without an error";
  EXPECT_EQ(merged.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(merged.status().message());
}

TEST(MergeBenchRanksTest, MalformedDocumentsNameRankHostAndField) {
  json no_results = BenchDoc({});
  no_results.erase("results");
  EXPECT_THAT(BenchError(no_results),
              HasSubstr("bench document of rank 1 (host b, cuda:1): \"results\" is missing"));

  json string_median = BenchDoc({Row("cuda:1", 1, 1, 1, 1000)});
  string_median["results"][0]["end_to_end_ms"]["median"] = "fast";
  EXPECT_THAT(BenchError(string_median),
              HasSubstr("rank 1 (host b, cuda:1): \"results[0].end_to_end_ms.median\" is "
                        "string, expected a number"));

  EXPECT_THAT(BenchError(BenchDoc({Row("cuda:1", 1, kNaN, 1, 1000)})),
              HasSubstr("\"results[0].end_to_end_ms.median\" is nan, expected a finite number"));

  EXPECT_THAT(BenchError(BenchDoc({Row("cuda:1", 1, 1, 1, -5)})),
              HasSubstr("\"results[0].images_per_s\" is -5, expected >= 0"));

  // NaN through JSON text arrives as null.
  json null_p95 = BenchDoc({Row("cuda:1", 1, 1, 1, 1000)});
  null_p95["results"][0]["end_to_end_ms"]["p95"] = nullptr;
  EXPECT_THAT(BenchError(null_p95),
              HasSubstr("\"results[0].end_to_end_ms.p95\" is null, expected a number"));

  json float_batch = BenchDoc({Row("cuda:1", 1, 1, 1, 1000)});
  float_batch["results"][0]["batch"] = 8.0;
  EXPECT_THAT(BenchError(float_batch),
              HasSubstr("\"results[0].batch\" is a floating-point number, expected an integer"));

  json zero_batch = BenchDoc({Row("cuda:1", 0, 1, 1, 1000)});
  EXPECT_THAT(BenchError(zero_batch), HasSubstr("\"results[0].batch\" is 0, expected >= 1"));

  json no_e2e = BenchDoc({Row("cuda:1", 1, 1, 1, 1000)});
  no_e2e["results"][0].erase("end_to_end_ms");
  EXPECT_THAT(BenchError(no_e2e), HasSubstr("\"results[0].end_to_end_ms\" is missing"));

  json error_number = BenchDoc({ErrorRow("cuda:1", 1, "x")});
  error_number["results"][0]["error"] = 3;
  EXPECT_THAT(BenchError(error_number),
              HasSubstr("\"results[0].error\" is number, expected a string"));

  EXPECT_THAT(BenchError(BenchDoc({json::array()})),
              HasSubstr("\"results[0]\" is array, expected an object"));
  EXPECT_THAT(BenchError(json::array()),
              HasSubstr("rank 1 (host b, cuda:1): \"(document)\" is array, expected an object"));

  json run_report = {{"schema", "switchyard.run/1"}, {"model", "vgg11"}};
  EXPECT_THAT(BenchError(run_report), HasSubstr("\"schema\" is 'switchyard.run/1'"));
}

// ---- MergeRunReports ----

json TimedReport(double ips, int batch, int iterations) {
  return {{"model", "vgg11"},    {"device", "cpu:0"},         {"batch", batch},
          {"iterations", iterations}, {"warmup", 2},          {"images_per_s", ips},
          {"forward_ms", {{"median", 1}, {"min", 1}, {"max", 1}}}};
}

json StreamReport(double ips, const std::string& verdict, const std::string& diagnosis) {
  return {{"device", "cuda:1"}, {"batch", 32},          {"batches", 10},
          {"run_ms", 1000.0},   {"images_per_s", ips},  {"verdict", verdict},
          {"diagnosis", diagnosis}};
}

json OwnSizeReport(int images, double ms_each, const std::string& verdict) {
  json list = json::array();
  for (int i = 0; i < images; ++i) {
    list.push_back({{"path", "img.jpg"},
                    {"width", 64},
                    {"height", 48},
                    {"ms",
                     {{"read_decode", ms_each / 2}, {"to_tensor", ms_each / 4},
                      {"model", ms_each / 4}, {"compile", 0.0}}}});
  }
  return {{"model", "detector.onnx"}, {"device", "cuda:0"},   {"images", list},
          {"bad_files", json::array()}, {"compile_ms", 0.0}, {"verdict", verdict}};
}

TEST(MergeRunReportsTest, ThreeShapesTotalsAndStraggler) {
  json stream = StreamReport(50.0, "starved", "cuda:1 idle 40% of the run waiting for input");
  stream["images"] = {{"samples", 320}, {"files", 40}};
  const std::vector<json> reports = {
      TimedReport(100.0, 4, 10), stream,
      OwnSizeReport(3, 100.0, "input-bound: 75% of the time is reading")};
  absl::StatusOr<MergedRun> merged = MergeRunReports(Ranks(3), reports);
  ASSERT_TRUE(merged.ok()) << merged.status();
  const json& j = merged->json;
  EXPECT_EQ(j["schema"], "switchyard.run_ranks/1");
  EXPECT_EQ(j["model"], "vgg11");
  EXPECT_EQ(j["ranks"][0]["images"], 40);
  EXPECT_EQ(j["ranks"][0]["kind"], "timed iterations");
  EXPECT_EQ(j["ranks"][1]["images"], 320);
  EXPECT_EQ(j["ranks"][1]["kind"], "stream");
  EXPECT_EQ(j["ranks"][1]["cause"], "starved: cuda:1 idle 40% of the run waiting for input");
  EXPECT_EQ(j["ranks"][2]["images"], 3);
  EXPECT_EQ(j["ranks"][2]["kind"], "images at own size");
  // 3 images of 100 ms each.
  EXPECT_NEAR(j["ranks"][2]["images_per_s"].get<double>(), 10.0, 1e-9);
  EXPECT_EQ(j["total_images"], 363);
  EXPECT_NEAR(j["total_images_per_s"].get<double>(), 160.0, 1e-9);
  EXPECT_EQ(j["slowest_rank"], 2);
  // 0.1 s per image against the median of 0.01 and 0.02.
  EXPECT_EQ(j["straggler"]["rank"], 2);
  EXPECT_NEAR(j["straggler"]["ratio"].get<double>(), 0.1 / 0.015, 1e-9);
  EXPECT_EQ(j["per_rank"][1], reports[1]);

  const std::string& t = merged->table;
  EXPECT_THAT(t, HasSubstr("across 3 ranks"));
  EXPECT_THAT(t, HasSubstr("  2      c     cuda:0  images at own size       3     10.00\n"));
  EXPECT_THAT(t, HasSubstr("  total                                       363    160.00\n"));
  EXPECT_THAT(t, HasSubstr("straggler: rank 2 (host c, cuda:0) is 6.67x slower than the "
                           "other ranks' median; its own diagnosis: input-bound: 75%"));
  EXPECT_THAT(t, HasSubstr("rank 1 (host b, cuda:1): starved: cuda:1 idle 40%"));
}

TEST(MergeRunReportsTest, StreamStragglerNamesItsDiagnosis) {
  const std::vector<json> reports = {
      StreamReport(142.0, "balanced", "balanced: cpu:0 busy 98% of the run"),
      StreamReport(100.0, "starved", "cuda:1 idle 30% of the run waiting for input")};
  absl::StatusOr<MergedRun> merged = MergeRunReports(Ranks(2), reports);
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(merged->json["ranks"][0]["cause"], "balanced: cpu:0 busy 98% of the run");
  // batch x batches without an "images" object.
  EXPECT_EQ(merged->json["ranks"][0]["images"], 320);
  EXPECT_EQ(merged->json["slowest_rank"], 1);
  EXPECT_EQ(merged->json["straggler"]["text"],
            "rank 1 (host b, cuda:1) is 1.42x slower than the other ranks' median; its own "
            "diagnosis: starved: cuda:1 idle 30% of the run waiting for input");
}

TEST(MergeRunReportsTest, EvenRanksHaveNoStraggler) {
  absl::StatusOr<MergedRun> merged =
      MergeRunReports(Ranks(2), {TimedReport(100, 8, 10), TimedReport(104, 8, 10)});
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(merged->json["straggler"]["found"], false);
  EXPECT_EQ(merged->json["total_images"], 160);
  EXPECT_THAT(merged->table, HasSubstr("straggler: none"));
  EXPECT_THAT(merged->table, Not(HasSubstr("own diagnosis")));
}

std::string RunError(const json& bad) {
  absl::StatusOr<MergedRun> merged =
      MergeRunReports(Ranks(2), {TimedReport(100, 1, 10), bad});
  if (merged.ok()) return "merged without an error";
  EXPECT_EQ(merged.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(merged.status().message());
}

TEST(MergeRunReportsTest, MalformedReportsNameRankHostAndField) {
  json no_rate = TimedReport(100, 1, 10);
  no_rate.erase("images_per_s");
  EXPECT_THAT(RunError(no_rate),
              HasSubstr("run report of rank 1 (host b, cuda:1): \"images_per_s\" is missing"));
  EXPECT_THAT(RunError(TimedReport(kNaN, 1, 10)), HasSubstr("\"images_per_s\" is nan"));
  json string_rate = TimedReport(100, 1, 10);
  string_rate["images_per_s"] = "100";
  EXPECT_THAT(RunError(string_rate),
              HasSubstr("\"images_per_s\" is string, expected a number"));
  EXPECT_THAT(RunError(TimedReport(100, 1, -3)),
              HasSubstr("\"iterations\" is -3, expected >= 0"));
  json own = OwnSizeReport(2, 10, "input-bound");
  own["images"][1]["ms"]["model"] = "slow";
  EXPECT_THAT(RunError(own), HasSubstr("\"images[1].ms.model\" is string, expected a number"));
  json no_verdict = OwnSizeReport(2, 10, "x");
  no_verdict.erase("verdict");
  EXPECT_THAT(RunError(no_verdict), HasSubstr("\"verdict\" is missing"));
  json bad_samples = StreamReport(10, "starved", "d");
  bad_samples["images"] = {{"samples", -1}};
  EXPECT_THAT(RunError(bad_samples), HasSubstr("\"images.samples\" is -1"));
  json huge = TimedReport(100, 1, 10);
  huge["batch"] = std::numeric_limits<int64_t>::max();
  EXPECT_THAT(RunError(huge), HasSubstr("\"batch x iterations\" multiply to more than"));
  EXPECT_THAT(RunError("not a report"), HasSubstr("\"(document)\" is string"));
}

TEST(MergeRunReportsTest, SizesMustMatch) {
  absl::StatusOr<MergedRun> merged = MergeRunReports(Ranks(1), {});
  ASSERT_FALSE(merged.ok());
  EXPECT_THAT(merged.status().message(), HasSubstr("1 rank identity but 0 run reports"));
}

// ---- MergeTraces ----

// A trace as core/profiler_trace.cc writes it: one pid, metadata first.
json Trace(double ts, const std::string& model) {
  return {{"traceEvents",
           {{{"ph", "M"}, {"pid", 1}, {"name", "process_name"},
             {"args", {{"name", "switchyard"}}}},
            {{"ph", "M"}, {"pid", 1}, {"tid", 1}, {"name", "thread_name"},
             {"args", {{"name", "cpu:0 stream"}}}},
            {{"ph", "M"}, {"pid", 1}, {"tid", 1}, {"name", "thread_sort_index"},
             {"args", {{"sort_index", 1}}}},
            {{"name", "run"}, {"cat", "run"}, {"ph", "X"}, {"pid", 1}, {"tid", 1},
             {"ts", ts}, {"dur", 50.0}, {"args", {{"iteration", 0}}}}}},
          {"displayTimeUnit", "ms"},
          {"otherData", {{"model", model}}}};
}

std::vector<json> EventsOf(const json& trace, int pid, const std::string& name) {
  std::vector<json> found;
  for (const json& e : trace["traceEvents"]) {
    if (e["pid"] == pid && e["name"] == name) found.push_back(e);
  }
  return found;
}

TEST(MergeTracesTest, OneProcessPerRankOnRankZerosClock) {
  absl::StatusOr<json> merged =
      MergeTraces(Ranks(2), {Trace(100.0, "m0"), Trace(100.0, "m1")}, {0.0, 250.5});
  ASSERT_TRUE(merged.ok()) << merged.status();
  const json& t = *merged;
  for (int rank : {0, 1}) {
    std::vector<json> names = EventsOf(t, rank, "process_name");
    ASSERT_EQ(names.size(), 1u) << "rank " << rank;
    EXPECT_EQ(names[0]["ph"], "M");
    EXPECT_EQ(names[0]["args"]["name"], rank == 0 ? "rank 0: a cpu:0" : "rank 1: b cuda:1");
    std::vector<json> sort = EventsOf(t, rank, "process_sort_index");
    ASSERT_EQ(sort.size(), 1u);
    EXPECT_EQ(sort[0]["args"]["sort_index"], rank);
    // The rank's thread metadata kept, under its new pid.
    std::vector<json> threads = EventsOf(t, rank, "thread_name");
    ASSERT_EQ(threads.size(), 1u);
    EXPECT_EQ(threads[0]["tid"], 1);
    EXPECT_EQ(threads[0]["args"]["name"], "cpu:0 stream");
    EXPECT_EQ(EventsOf(t, rank, "thread_sort_index").size(), 1u);
    EXPECT_FALSE(threads[0].contains("ts"));
  }
  EXPECT_TRUE(EventsOf(t, 1, "run").size() == 1);
  EXPECT_DOUBLE_EQ(EventsOf(t, 0, "run")[0]["ts"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(EventsOf(t, 1, "run")[0]["ts"].get<double>(), 350.5);
  EXPECT_DOUBLE_EQ(EventsOf(t, 1, "run")[0]["dur"].get<double>(), 50.0);
  EXPECT_EQ(EventsOf(t, 1, "run")[0]["args"]["iteration"], 0);
  // No event is left with the ranks' own pid or process name.
  for (const json& e : t["traceEvents"]) {
    EXPECT_TRUE(e["pid"] == 0 || e["pid"] == 1) << e.dump();
    if (e["name"] == "process_name") EXPECT_NE(e["args"]["name"], "switchyard");
  }
  EXPECT_EQ(t["traceEvents"].size(), 2u * (2 + 3));
  // Rank 0's top-level keys, and who each rank is.
  EXPECT_EQ(t["displayTimeUnit"], "ms");
  EXPECT_EQ(t["otherData"]["model"], "m0");
  ASSERT_EQ(t["ranks"].size(), 2u);
  EXPECT_EQ(t["ranks"][1]["host"], "b");
  EXPECT_EQ(t["ranks"][1]["device"], "cuda:1");
  EXPECT_EQ(t["ranks"][1]["other_data"]["model"], "m1");
}

TEST(MergeTracesTest, MalformedTracesNameRankHostAndField) {
  auto error = [](const json& bad, std::vector<double> shifts = {0, 0}) {
    absl::StatusOr<json> merged = MergeTraces(Ranks(2), {Trace(1, "m"), bad}, shifts);
    return merged.ok() ? std::string("merged without an error")
                       : std::string(merged.status().message());
  };
  json no_events = Trace(1, "m");
  no_events.erase("traceEvents");
  EXPECT_THAT(error(no_events),
              HasSubstr("trace of rank 1 (host b, cuda:1): \"traceEvents\" is missing"));
  json no_ts = Trace(1, "m");
  no_ts["traceEvents"][3].erase("ts");
  EXPECT_THAT(error(no_ts), HasSubstr("\"traceEvents[3].ts\" is missing"));
  json string_ts = Trace(1, "m");
  string_ts["traceEvents"][3]["ts"] = "soon";
  EXPECT_THAT(error(string_ts), HasSubstr("\"traceEvents[3].ts\" is string"));
  json nan_ts = Trace(kNaN, "m");
  EXPECT_THAT(error(nan_ts), HasSubstr("\"traceEvents[3].ts\" is nan"));
  json no_ph = Trace(1, "m");
  no_ph["traceEvents"][0].erase("ph");
  EXPECT_THAT(error(no_ph), HasSubstr("\"traceEvents[0].ph\" is missing"));
  EXPECT_THAT(error(Trace(1, "m"), {0, kNaN}), HasSubstr("clock shift of rank 1"));
  EXPECT_THAT(error(Trace(1, "m"), {0}), HasSubstr("2 ranks but 1 clock shifts"));
  absl::StatusOr<json> sizes = MergeTraces(Ranks(2), {Trace(1, "m")}, {0, 0});
  ASSERT_FALSE(sizes.ok());
  EXPECT_THAT(sizes.status().message(), HasSubstr("2 rank identities but 1 traces"));
}

}  // namespace
}  // namespace runtime
}  // namespace switchyard
