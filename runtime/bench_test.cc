// switchyard bench on a tiny model: every device listed (missing ones with
// the reason), the JSON schema compare.py reads, the table and Markdown.
// Checks structure and arithmetic, never speed.

#include "runtime/bench.h"

#include <memory>
#include <string>

#include "backends/cpu/cpu_backend.h"
#include "core/backend_registry.h"
#include "core/testing/host_backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/linear.h"
#include "models/parameterless_layers.h"
#include "models/sequential.h"

namespace switchyard {
namespace runtime {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

BenchModel TinyModel() {
  BenchModel model;
  model.name = "tiny";
  model.create = [](const Device& device, BackendRegistry& registry)
      -> absl::StatusOr<std::unique_ptr<Module>> {
    auto net = std::make_unique<nn::Sequential>(registry);
    net->Add(std::make_unique<nn::Linear>(16, 8));
    net->Add(std::make_unique<nn::ReLU>());
    absl::Status status = net->To(device);
    if (status.ok()) status = net->InitializeParameters(0);
    if (!status.ok()) return status;
    return std::unique_ptr<Module>(std::move(net));
  };
  model.input_shape = [](int64_t batch) -> absl::StatusOr<Shape> {
    return Shape({batch, 16});
  };
  return model;
}

class BenchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(registry_.Register("cpu", [] { return cpu::CreateCpuBackend(); }).ok());
    ASSERT_TRUE(registry_
                    .Register("gpu", [] { return testing::MakeHostBackend("gpu", 0); })
                    .ok());
  }
  BackendRegistry registry_;
};

TEST_F(BenchTest, StatsMedianAndP95) {
  BenchStats s = ComputeBenchStats({10, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_DOUBLE_EQ(s.median_ms, 5.5);
  EXPECT_DOUBLE_EQ(s.p95_ms, 9.55);
  EXPECT_DOUBLE_EQ(s.min_ms, 1);
  EXPECT_DOUBLE_EQ(s.max_ms, 10);
  EXPECT_DOUBLE_EQ(s.mean_ms, 5.5);
  EXPECT_EQ(s.samples_ms.size(), 10u);
}

TEST_F(BenchTest, EveryDeviceListedAndJsonSchema) {
  BenchOptions options;
  options.batches = {1, 2};
  options.warmup = 1;
  options.iterations = 3;
  absl::StatusOr<BenchReport> report = RunBench(TinyModel(), options, registry_);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->devices.size(), 2u);
  EXPECT_EQ(report->devices[0].device, "cpu:0");
  EXPECT_TRUE(report->devices[0].available);
  EXPECT_EQ(report->devices[1].device, "gpu");
  EXPECT_FALSE(report->devices[1].available);
  EXPECT_THAT(report->devices[1].reason,
              HasSubstr("the test backend was made with no devices"));
  ASSERT_EQ(report->rows.size(), 2u);
  EXPECT_EQ(report->baseline, "cpu:0");
  for (const BenchRow& row : report->rows) {
    EXPECT_TRUE(row.error.empty()) << row.error;
    EXPECT_EQ(row.forward.samples_ms.size(), 3u);
    EXPECT_EQ(row.end_to_end.samples_ms.size(), 3u);
    ASSERT_TRUE(row.speedup_end_to_end.has_value());
    EXPECT_DOUBLE_EQ(*row.speedup_end_to_end, 1.0);  // the CPU against itself
    EXPECT_DOUBLE_EQ(row.images_per_s, row.batch / (row.end_to_end.median_ms / 1e3));
    EXPECT_LE(row.forward.median_ms, row.forward.p95_ms);
  }

  report->context = {{"cpu_threads", "1"}, {"command", "switchyard bench"}};
  const nlohmann::json j = BenchReportJson(*report);
  EXPECT_EQ(j["schema"], "switchyard.bench/1");
  EXPECT_EQ(j["framework"], "switchyard");
  EXPECT_EQ(j["model"], "tiny");
  EXPECT_EQ(j["warmup"], 1);
  EXPECT_EQ(j["iterations"], 3);
  EXPECT_EQ(j["batches"], nlohmann::json({1, 2}));
  EXPECT_EQ(j["context"]["cpu_threads"], "1");
  ASSERT_EQ(j["devices"].size(), 2u);
  EXPECT_EQ(j["devices"][0]["device"], "cpu:0");
  EXPECT_EQ(j["devices"][0]["available"], true);
  EXPECT_TRUE(j["devices"][0].contains("name"));
  EXPECT_EQ(j["devices"][1]["available"], false);
  EXPECT_THAT(j["devices"][1]["reason"].get<std::string>(), HasSubstr("no devices"));
  ASSERT_EQ(j["results"].size(), 2u);
  for (const nlohmann::json& r : j["results"]) {
    EXPECT_EQ(r["device"], "cpu:0");
    for (const char* key : {"forward_ms", "h2d_ms", "d2h_ms", "end_to_end_ms"}) {
      ASSERT_TRUE(r.contains(key)) << key;
      for (const char* stat : {"median", "p95", "min", "max", "mean"}) {
        EXPECT_TRUE(r[key][stat].is_number()) << key << "." << stat;
      }
      EXPECT_EQ(r[key]["samples"].size(), 3u);
    }
    EXPECT_TRUE(r["images_per_s"].is_number());
    EXPECT_DOUBLE_EQ(r["speedup_vs_cpu"]["end_to_end"].get<double>(), 1.0);
    EXPECT_DOUBLE_EQ(r["speedup_vs_cpu"]["forward"].get<double>(), 1.0);
  }
  EXPECT_EQ(j["results"][1]["batch"], 2);

  const std::string table = BenchReportTable(*report);
  EXPECT_THAT(table, HasSubstr("end to end"));
  EXPECT_THAT(table, HasSubstr("cpu:0"));
  EXPECT_THAT(table, HasSubstr("gpu: unavailable: "));
  EXPECT_THAT(table, HasSubstr("1.00x"));
  const std::string md = BenchReportMarkdown(*report);
  EXPECT_THAT(md, HasSubstr("| device | batch | forward |"));
  EXPECT_THAT(md, HasSubstr("| gpu | - | unavailable: "));
  EXPECT_THAT(md, HasSubstr("`switchyard bench`"));
}

TEST_F(BenchTest, ChosenDevicesIncludingMissingOnes) {
  BenchOptions options;
  options.devices = {"cuda:0", "cpu"};
  options.batches = {1};
  options.warmup = 0;
  options.iterations = 1;
  absl::StatusOr<BenchReport> report = RunBench(TinyModel(), options, registry_);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->devices.size(), 2u);
  EXPECT_EQ(report->devices[0].device, "cuda:0");
  EXPECT_THAT(report->devices[0].reason,
              HasSubstr("no backend is registered for device type 'cuda'"));
  EXPECT_EQ(report->devices[1].device, "cpu:0");
  ASSERT_EQ(report->rows.size(), 1u);
  EXPECT_EQ(report->rows[0].device, "cpu:0");
}

// A p95 far above the median warns, naming the row and the load; a close
// tail, too few samples or a failed row do not.
TEST_F(BenchTest, TailWarningOnlyForAFarTail) {
  BenchRow row;
  row.device = "dnnl:0";
  row.batch = 8;
  row.end_to_end = ComputeBenchStats({10, 10, 10, 11, 10, 10, 10, 10, 10, 30});
  EXPECT_THAT(TailWarning(row, 1.7, 2),
              AllOf(HasSubstr("dnnl:0 batch 8: p95 "), HasSubstr("x the median 10 ms"),
                    HasSubstr("load average 1.70 on 2 cores")));
  row.end_to_end = ComputeBenchStats({10, 10, 10, 11, 10, 10, 10, 10, 10, 12});
  EXPECT_EQ(TailWarning(row, 0, 2), "");
  row.end_to_end = ComputeBenchStats({10, 30, 30});
  EXPECT_EQ(TailWarning(row, 0, 2), "");
  row.end_to_end = ComputeBenchStats({10, 10, 10, 10, 10, 10, 10, 10, 10, 40});
  row.error = "failed";
  EXPECT_EQ(TailWarning(row, 0, 2), "");
}

TEST_F(BenchTest, BadOptions) {
  BenchOptions options;
  options.iterations = 0;
  EXPECT_EQ(RunBench(TinyModel(), options, registry_).status().code(),
            absl::StatusCode::kInvalidArgument);
  options = BenchOptions();
  options.batches = {0};
  absl::Status status = RunBench(TinyModel(), options, registry_).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("batch must be >= 1, got 0"));
  options = BenchOptions();
  options.devices = {"CUDA"};
  EXPECT_EQ(RunBench(TinyModel(), options, registry_).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace runtime
}  // namespace switchyard
