// The input pipeline on a host test backend: every batch goes through load,
// upload, forward and download once, in causal order, and the timeline it
// records is what AnalyzeTimeline reads. No durations are asserted.

#include "runtime/pipeline.h"

#include <chrono>
#include <set>

#include "absl/strings/str_cat.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/testing/host_backend.h"
#include "core/timeline_analysis.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace runtime {
namespace {

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(registry_
                    .Register("fake", [] { return testing::MakeHostBackend("fake", 1); })
                    .ok());
    const Device fake = *Device::Parse("fake:0");
    Graph g;
    ValueId x = g.AddInput("input", Shape({2, 64}), fake);
    g.AddOutput(g.AddNode("relu", "act", {x}, AttrMap()));
    CompileOptions options;
    options.backends = &registry_;
    absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(g), options);
    ASSERT_TRUE(plan.ok()) << plan.status();
    plan_ = std::move(*plan);
    absl::StatusOr<Tensor> input =
        Tensor::Empty(Shape({2, 64}), DType::kFloat32, fake, registry_);
    ASSERT_TRUE(input.ok());
    input_ = *input;
  }

  BackendRegistry registry_;
  std::unique_ptr<ExecutablePlan> plan_;
  Tensor input_;
};

TEST_F(PipelineTest, EveryBatchOnceInCausalOrder) {
  PipelineOptions options;
  options.batches = 7;
  options.loader_threads = 3;
  options.prefetch = 1;
  options.loader_cost_ms = 0.1;
  absl::StatusOr<PipelineResult> result = RunPipeline(*plan_, input_, options, registry_);
  ASSERT_TRUE(result.ok()) << result.status();
  const Timeline& t = result->timeline;
  EXPECT_EQ(t.device, "fake:0");
  EXPECT_EQ(t.batch_size, 2);
  EXPECT_EQ(t.loader_threads, 3);
  EXPECT_EQ(t.prefetch, 1);
  ASSERT_EQ(t.batches.size(), 7u);
  std::set<int> indices;
  for (const BatchTimeline& b : t.batches) {
    indices.insert(b.index);
    EXPECT_GE(b.loader, 0);
    EXPECT_LT(b.loader, 3);
    EXPECT_LE(b.load.start_ms, b.load.end_ms);
    EXPECT_LE(b.load.end_ms, b.h2d.start_ms);     // loaded before uploaded
    EXPECT_LE(b.h2d.end_ms, b.forward.start_ms);  // uploaded before the run
    EXPECT_LE(b.forward.end_ms, b.d2h.start_ms);  // run before the download
    EXPECT_LE(b.d2h.end_ms, t.run.end_ms);
    EXPECT_LE(b.wait.end_ms, b.h2d.start_ms);
  }
  EXPECT_EQ(indices.size(), 7u);

  int nodes = 0, loads = 0, copies = 0;
  for (const ProfileEvent& e : result->events) {
    if (e.kind == ProfileEvent::Kind::kNode) ++nodes;
    if (e.kind == ProfileEvent::Kind::kCopy) ++copies;
    if (e.kind == ProfileEvent::Kind::kHost && e.name.rfind("load batch", 0) == 0) ++loads;
  }
  EXPECT_EQ(nodes, 7);
  EXPECT_EQ(copies, 14);
  EXPECT_EQ(loads, 7);
  EXPECT_EQ(t.device_spans.size(), 21u);

  absl::StatusOr<UtilizationReport> report = AnalyzeTimeline(t);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->batches, 7);
  EXPECT_FALSE(report->diagnosis.empty());
}

TEST_F(PipelineTest, SleepingLoaders) {
  PipelineOptions options;
  options.batches = 3;
  options.loader_work = PipelineOptions::LoaderWork::kSleep;
  options.loader_cost_ms = 0.2;
  absl::StatusOr<PipelineResult> result = RunPipeline(*plan_, input_, options, registry_);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->timeline.batches.size(), 3u);
}

// load_batch (run --images): its values reach the device, its stage spans
// become "loader" events on the loader's lane, its error is the run's.
TEST_F(PipelineTest, LoadBatchFillsAndRecordsStages) {
  PipelineOptions options;
  options.batches = 4;
  options.loader_threads = 2;
  options.load_batch = [](int index, int, absl::Span<float> values,
                          std::vector<data::StageSpan>* spans) -> absl::Status {
    const auto t0 = std::chrono::steady_clock::now();
    for (float& v : values) v = static_cast<float>(-index);  // relu: 0 but for batch 0
    spans->push_back({data::LoaderStage::kDecode, t0, std::chrono::steady_clock::now()});
    spans->push_back({data::LoaderStage::kBatch, t0, std::chrono::steady_clock::now()});
    return absl::OkStatus();
  };
  absl::StatusOr<PipelineResult> result = RunPipeline(*plan_, input_, options, registry_);
  ASSERT_TRUE(result.ok()) << result.status();
  int decode = 0, batch = 0;
  std::set<int> iterations;
  for (const ProfileEvent& e : result->events) {
    if (e.op != "loader") continue;
    EXPECT_EQ(e.kind, ProfileEvent::Kind::kHost);
    EXPECT_TRUE(e.lane == "loader 0" || e.lane == "loader 1") << e.lane;
    decode += e.name == "decode";
    batch += e.name == "batch";
    iterations.insert(e.iteration);
  }
  EXPECT_EQ(decode, 4);
  EXPECT_EQ(batch, 4);
  EXPECT_EQ(iterations, (std::set<int>{0, 1, 2, 3}));
}

// On a device whose uploads land only when waited for (a GPU's copy
// stream), each forward still computes on its own batch: it waits on its
// upload's event, the next batch goes to the other slot, and a staged
// buffer is reused only once its upload has happened.
TEST(PipelineAsyncTest, EachForwardSeesItsOwnBatch) {
  BackendRegistry registry;
  auto counters = std::make_shared<testing::HostBackendCounters>();
  counters->deferred_async_copies = true;
  ASSERT_TRUE(registry
                  .Register("fake", [counters] {
                    return testing::MakeHostBackend("fake", 1, counters);
                  })
                  .ok());
  const Device fake = *Device::Parse("fake:0");
  Graph g;
  g.AddOutput(g.AddNode("relu", "act", {g.AddInput("input", Shape({2, 64}), fake)},
                        AttrMap()));
  CompileOptions compile;
  compile.backends = &registry;
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(g), compile);
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<Tensor> input = Tensor::Empty(Shape({2, 64}), DType::kFloat32, fake, registry);
  ASSERT_TRUE(input.ok());

  PipelineOptions options;
  options.batches = 12;
  options.loader_threads = 3;
  options.prefetch = 3;
  options.load_batch = [](int index, int, absl::Span<float> values,
                          std::vector<data::StageSpan>*) -> absl::Status {
    for (float& v : values) v = static_cast<float>(index + 1);
    return absl::OkStatus();
  };
  std::vector<int> seen;
  options.on_outputs = [&](int index, absl::Span<const Tensor> outputs) -> absl::Status {
    const Tensor& out = outputs[0];
    for (int64_t i = 0; i < out.num_elements(); ++i) {
      if (out.data<float>()[i] != static_cast<float>(index + 1)) {
        return absl::InternalError(absl::StrCat("batch ", index, " computed on ",
                                                out.data<float>()[i], " at ", i));
      }
    }
    seen.push_back(index);
    return absl::OkStatus();
  };
  absl::StatusOr<PipelineResult> result = RunPipeline(**plan, *input, options, registry);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(seen.size(), 12u);
  EXPECT_EQ(counters->async_copies.load(), 12);
  EXPECT_EQ(result->timeline.batches.size(), 12u);
}

TEST_F(PipelineTest, LoadBatchErrorIsTheRunsError) {
  PipelineOptions options;
  options.batches = 6;
  options.loader_threads = 2;
  options.load_batch = [](int index, int, absl::Span<float>,
                          std::vector<data::StageSpan>*) -> absl::Status {
    if (index == 3) return absl::InvalidArgumentError("photo.jpg: corrupt JPEG");
    return absl::OkStatus();
  };
  absl::StatusOr<PipelineResult> result = RunPipeline(*plan_, input_, options, registry_);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(), "photo.jpg: corrupt JPEG");
}

TEST_F(PipelineTest, BadOptions) {
  PipelineOptions options;
  options.batches = 2;
  options.prefetch = 0;
  EXPECT_EQ(RunPipeline(*plan_, input_, options, registry_).status().code(),
            absl::StatusCode::kInvalidArgument);
  options.prefetch = 1;
  options.loader_threads = 0;
  EXPECT_EQ(RunPipeline(*plan_, input_, options, registry_).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace runtime
}  // namespace switchyard
