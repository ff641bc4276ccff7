// The profiler (device-clock node events), its Chrome trace writer, its
// summary arithmetic, and the device list benchmarks use.

#include "core/profiler.h"

#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/device_list.h"
#include "core/executable_plan.h"
#include "core/graph.h"
#include "core/profiler_summary.h"
#include "core/profiler_trace.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "core/testing/host_backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace switchyard {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A clock whose marks are `step_ms` apart, whatever the host clock says:
// proves that event times come from the device clock.
class ScriptedClock : public DeviceClock {
 public:
  explicit ScriptedClock(double step_ms) : step_ms_(step_ms) {}
  absl::StatusOr<int> Mark() override { return marks_++; }
  absl::StatusOr<double> ElapsedMs(int from, int to) override {
    if (from < 0 || to < 0 || from >= marks_ || to >= marks_) {
      return absl::OutOfRangeError("no such mark");
    }
    return (to - from) * step_ms_;
  }

 private:
  double step_ms_;
  int marks_ = 0;
};

// Forwards to a host test device, but its clock is a ScriptedClock.
class ScriptedClockDevice : public BackendDevice {
 public:
  ScriptedClockDevice(BackendDevice& inner, double step_ms)
      : inner_(inner), step_ms_(step_ms) {}
  const Device& device() const override { return inner_.device(); }
  DeviceInfo Info() const override { return inner_.Info(); }
  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t bytes) override {
    return inner_.Allocate(bytes);
  }
  absl::Status CopyFromHost(const void* src, Buffer& dst, size_t bytes) override {
    return inner_.CopyFromHost(src, dst, bytes);
  }
  absl::Status CopyToHost(const Buffer& src, void* dst, size_t bytes) override {
    return inner_.CopyToHost(src, dst, bytes);
  }
  absl::StatusOr<std::unique_ptr<DeviceClock>> CreateClock() override {
    return std::unique_ptr<DeviceClock>(std::make_unique<ScriptedClock>(step_ms_));
  }
  absl::Status Supports(const Node& node, const Graph& graph) const override {
    return inner_.Supports(node, graph);
  }
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(const Node& node,
                                                       const Graph& graph) override {
    return inner_.CreateKernel(node, graph);
  }

 private:
  BackendDevice& inner_;
  double step_ms_;
};

class ScriptedClockBackend : public Backend {
 public:
  explicit ScriptedClockBackend(double step_ms)
      : inner_(testing::MakeHostBackend("slow", 1)),
        device_(inner_->GetDevice(0), step_ms) {}
  std::string type() const override { return "slow"; }
  int DeviceCount() const override { return 1; }
  BackendDevice& GetDevice(int index) override { return device_; }

 private:
  std::unique_ptr<Backend> inner_;
  ScriptedClockDevice device_;
};

// Runs the host test kernel and reports it as two parts, "first" and
// "second", when given a sink; counts the runs that had one.
class TwoPartKernel : public Kernel {
 public:
  TwoPartKernel(std::unique_ptr<Kernel> inner, int* runs_with_sink)
      : inner_(std::move(inner)), runs_with_sink_(runs_with_sink) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    std::vector<KernelPart>* parts = part_sink();
    if (parts != nullptr) ++*runs_with_sink_;
    const auto start = std::chrono::steady_clock::now();
    absl::Status status = inner_->Run(inputs, outputs);
    const auto middle = std::chrono::steady_clock::now();
    const auto end = std::chrono::steady_clock::now();
    if (parts != nullptr) {
      parts->push_back({"first", "inner kernel", start, middle});
      parts->push_back({"second", "nothing", middle, end});
    }
    return status;
  }

 private:
  std::unique_ptr<Kernel> inner_;
  int* runs_with_sink_;
};

class TwoPartDevice : public ScriptedClockDevice {
 public:
  TwoPartDevice(BackendDevice& inner, int* runs_with_sink)
      : ScriptedClockDevice(inner, 0), inner_(inner), runs_with_sink_(runs_with_sink) {}
  absl::StatusOr<std::unique_ptr<DeviceClock>> CreateClock() override {
    return inner_.CreateClock();
  }
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(const Node& node,
                                                       const Graph& graph) override {
    SY_ASSIGN_OR_RETURN(std::unique_ptr<Kernel> kernel, inner_.CreateKernel(node, graph));
    return std::unique_ptr<Kernel>(std::make_unique<TwoPartKernel>(std::move(kernel),
                                                                   runs_with_sink_));
  }

 private:
  BackendDevice& inner_;
  int* runs_with_sink_;
};

class TwoPartBackend : public Backend {
 public:
  explicit TwoPartBackend(int* runs_with_sink)
      : inner_(testing::MakeHostBackend("parts", 1)),
        device_(inner_->GetDevice(0), runs_with_sink) {}
  std::string type() const override { return "parts"; }
  int DeviceCount() const override { return 1; }
  BackendDevice& GetDevice(int index) override { return device_; }

 private:
  std::unique_ptr<Backend> inner_;
  TwoPartDevice device_;
};

// relu -> add(relu, x) -> relu on `device`, layers block.0 .. block.2.
Graph SmallGraph(const Device& device) {
  Graph g;
  ValueId x = g.AddInput("input", Shape({2, 4}), device);
  ValueId a = g.AddNode("relu", "block.0", {x}, AttrMap());
  ValueId b = g.AddNode("add", "block.1", {a, x}, AttrMap());
  ValueId c = g.AddNode("relu", "block.2", {b}, AttrMap());
  g.AddOutput(c);
  return g;
}

class ProfilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(registry_
                    .Register("fake", [] { return testing::MakeHostBackend("fake", 1); })
                    .ok());
    ASSERT_TRUE(registry_
                    .Register("slow",
                              []() -> absl::StatusOr<std::unique_ptr<Backend>> {
                                return std::make_unique<ScriptedClockBackend>(5.0);
                              })
                    .ok());
    ASSERT_TRUE(registry_
                    .Register("none", [] { return testing::MakeHostBackend("none", 0); })
                    .ok());
    ASSERT_TRUE(registry_
                    .Register("parts",
                              [this]() -> absl::StatusOr<std::unique_ptr<Backend>> {
                                return std::make_unique<TwoPartBackend>(&runs_with_sink_);
                              })
                    .ok());
  }

  std::unique_ptr<ExecutablePlan> CompileSmall(const Device& device) {
    CompileOptions options;
    options.backends = &registry_;
    absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
        Compile(SmallGraph(device), options);
    EXPECT_TRUE(plan.ok()) << plan.status();
    return plan.ok() ? std::move(*plan) : nullptr;
  }

  Tensor Input(const Device& device) {
    absl::StatusOr<Tensor> t = Tensor::FromVector(
        Shape({2, 4}), {-1, 2, -3, 4, 5, -6, 7, -8}, device, registry_);
    EXPECT_TRUE(t.ok()) << t.status();
    return *t;
  }

  // Profiles `iterations` runs of the small graph on `device`.
  std::vector<ProfileEvent> Profile(const Device& device, int iterations) {
    std::unique_ptr<ExecutablePlan> plan = CompileSmall(device);
    if (plan == nullptr) return {};
    Tensor x = Input(device);
    Profiler profiler;
    RunOptions options;
    options.profiler = &profiler;
    for (int i = 0; i < iterations; ++i) {
      EXPECT_TRUE(profiler.BeginIteration(i).ok());
      absl::StatusOr<std::vector<Tensor>> out = plan->Run({x}, options);
      EXPECT_TRUE(out.ok()) << out.status();
    }
    EXPECT_TRUE(profiler.EndIteration().ok());
    return profiler.events();
  }

  BackendRegistry registry_;
  int runs_with_sink_ = 0;  // TwoPartKernel runs given a part sink
};

TEST_F(ProfilerTest, OneEventPerNodePerIterationAndOneRunEvent) {
  const Device fake = *Device::Parse("fake:0");
  std::vector<ProfileEvent> events = Profile(fake, 3);
  int nodes = 0, runs = 0;
  std::multiset<std::string> names;
  for (const ProfileEvent& e : events) {
    EXPECT_EQ(e.lane, "fake:0");
    if (e.kind == ProfileEvent::Kind::kNode) {
      ++nodes;
      names.insert(e.name);
      EXPECT_GE(e.duration_us, 0);
      ASSERT_FALSE(e.input_shapes.empty());
      EXPECT_EQ(e.input_shapes[0], Shape({2, 4}));
      ASSERT_EQ(e.output_shapes.size(), 1u);
      EXPECT_EQ(e.flops, 8);  // relu: one per element; add: one per element
      EXPECT_GT(e.bytes, 0);
    }
    if (e.kind == ProfileEvent::Kind::kRun) ++runs;
  }
  EXPECT_EQ(nodes, 9);
  EXPECT_EQ(runs, 3);
  EXPECT_EQ(names.count("block.0/relu"), 3u);
  EXPECT_EQ(names.count("block.1/add"), 3u);
  EXPECT_EQ(names.count("block.2/relu"), 3u);
  // Within an iteration, nodes are in order and inside their run.
  for (int it = 0; it < 3; ++it) {
    double run_start = -1, run_end = -1, last = -1;
    for (const ProfileEvent& e : events) {
      if (e.iteration != it || e.kind != ProfileEvent::Kind::kRun) continue;
      run_start = e.start_us;
      run_end = e.start_us + e.duration_us;
    }
    ASSERT_GE(run_start, 0);
    for (const ProfileEvent& e : events) {
      if (e.iteration != it || e.kind != ProfileEvent::Kind::kNode) continue;
      EXPECT_GE(e.start_us, run_start);
      EXPECT_LE(e.start_us + e.duration_us, run_end + 1e-6);
      EXPECT_GE(e.start_us, last);
      last = e.start_us;
    }
  }
}

// A kernel's parts (Kernel::set_part_sink) become kPart events on its
// device's lane, inside their node's span; a run without a profiler gives
// the kernel no sink.
TEST_F(ProfilerTest, KernelPartsAreEventsInsideTheirNode) {
  const Device device = *Device::Parse("parts:0");
  std::vector<ProfileEvent> events = Profile(device, 2);
  EXPECT_EQ(runs_with_sink_, 6);  // 3 nodes, 2 iterations
  int parts = 0;
  for (const ProfileEvent& part : events) {
    if (part.kind != ProfileEvent::Kind::kPart) continue;
    ++parts;
    EXPECT_EQ(part.lane, "parts:0");
    EXPECT_TRUE(part.name == "first" || part.name == "second") << part.name;
    EXPECT_EQ(part.op, part.name == "first" ? "inner kernel" : "nothing");
    EXPECT_FALSE(part.is_work());
    int inside = 0;
    for (const ProfileEvent& node : events) {
      if (node.kind != ProfileEvent::Kind::kNode || node.iteration != part.iteration) continue;
      inside += part.start_us >= node.start_us - 1e-3 &&
                part.start_us + part.duration_us <= node.start_us + node.duration_us + 1e-3;
    }
    EXPECT_EQ(inside, 1) << part.name << " at " << part.start_us;
  }
  EXPECT_EQ(parts, 12);
  const ProfileSummary summary = SummarizeProfile(events);
  ASSERT_EQ(summary.by_part_kind.size(), 2u);
  EXPECT_EQ(summary.by_part_kind[0].calls, 6);
  EXPECT_THAT(FormatProfileSummary(summary), HasSubstr("parts by kind"));

  std::unique_ptr<ExecutablePlan> plan = CompileSmall(device);
  ASSERT_NE(plan, nullptr);
  ASSERT_TRUE(plan->Run({Input(device)}, RunOptions()).ok());
  EXPECT_EQ(runs_with_sink_, 6);
}

TEST_F(ProfilerTest, TimesComeFromTheDeviceClock) {
  // Marks of the scripted clock are 5 ms apart while the host runs these
  // tiny kernels in microseconds: events must show the device's 5 ms.
  std::vector<ProfileEvent> events = Profile(*Device::Parse("slow:0"), 1);
  // Marks: 0 anchor, 1 run start, 2/3 node 0, 4/5 node 1, 6/7 node 2, 8 run end.
  std::vector<const ProfileEvent*> nodes;
  const ProfileEvent* run = nullptr;
  for (const ProfileEvent& e : events) {
    if (e.kind == ProfileEvent::Kind::kNode) nodes.push_back(&e);
    if (e.kind == ProfileEvent::Kind::kRun) run = &e;
  }
  ASSERT_EQ(nodes.size(), 3u);
  ASSERT_NE(run, nullptr);
  const double anchor = run->start_us - 5000;
  for (int i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(nodes[i]->duration_us, 5000) << nodes[i]->name;
    EXPECT_DOUBLE_EQ(nodes[i]->start_us, anchor + 10000 + 10000 * i) << nodes[i]->name;
  }
  EXPECT_DOUBLE_EQ(run->duration_us, 35000);
}

TEST_F(ProfilerTest, CopiesAreTheirOwnEvents) {
  const Device fake = *Device::Parse("fake:0");
  BackendDevice& device = **registry_.GetDevice(fake);
  absl::StatusOr<Tensor> t = Tensor::Empty(Shape({2, 4}), DType::kFloat32, fake,
                                           registry_);
  ASSERT_TRUE(t.ok());
  std::vector<float> host(8, 1.0f);
  Profiler profiler;
  ASSERT_TRUE(profiler.BeginIteration(0).ok());
  ASSERT_TRUE(profiler
                  .TimeCopy(device, "input h2d", "h2d", t->shape(), 32,
                            [&] {
                              return device.CopyFromHost(host.data(), *t->buffer(), 32);
                            })
                  .ok());
  ASSERT_TRUE(profiler.EndIteration().ok());
  ASSERT_EQ(profiler.events().size(), 1u);
  const ProfileEvent& e = profiler.events()[0];
  EXPECT_EQ(e.kind, ProfileEvent::Kind::kCopy);
  EXPECT_EQ(e.name, "input h2d");
  EXPECT_EQ(e.op, "h2d");
  EXPECT_EQ(e.lane, "fake:0");
  EXPECT_EQ(e.bytes, 32);
}

TEST_F(ProfilerTest, ChromeTraceIsValidJsonWithOneEventPerNodePerIteration) {
  std::vector<ProfileEvent> events = Profile(*Device::Parse("fake:0"), 2);
  Profiler host;  // a host lane too
  const auto now = Profiler::Clock::now();
  host.AddHostEvent("loader 0", "load", now, now + std::chrono::milliseconds(3));
  events.push_back(host.events()[0]);

  const std::string text = ChromeTraceJson(events, {{"model", "small"}});
  nlohmann::json doc = nlohmann::json::parse(text);  // throws if invalid
  ASSERT_TRUE(doc.contains("traceEvents"));
  ASSERT_TRUE(doc["traceEvents"].is_array());
  EXPECT_EQ(doc["otherData"]["model"], "small");

  std::multiset<std::string> node_names;
  std::map<int, std::string> lanes;
  int complete = 0;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph"));
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      lanes[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
    }
    if (e["ph"] != "X") continue;
    ++complete;
    for (const char* key : {"name", "cat", "ts", "dur", "pid", "tid", "args"}) {
      EXPECT_TRUE(e.contains(key)) << key << " in " << e.dump();
    }
    EXPECT_GE(e["dur"].get<double>(), 0);
    if (e["cat"] == "node") {
      node_names.insert(e["name"].get<std::string>());
      EXPECT_EQ(e["args"]["input_shapes"][0], nlohmann::json({2, 4}));
      EXPECT_TRUE(e["args"].contains("layer"));
      EXPECT_TRUE(e["args"].contains("flops"));
      EXPECT_TRUE(e["args"].contains("iteration"));
      EXPECT_EQ(lanes[e["tid"].get<int>()], "fake:0 stream");
    }
  }
  EXPECT_EQ(complete, 6 + 2 + 1);  // nodes, runs, the host span
  EXPECT_EQ(node_names.size(), 6u);
  EXPECT_EQ(node_names.count("block.0/relu"), 2u);
  EXPECT_EQ(node_names.count("block.1/add"), 2u);
  EXPECT_EQ(node_names.count("block.2/relu"), 2u);
  // Device lanes come before host lanes.
  ASSERT_EQ(lanes.size(), 2u);
  EXPECT_EQ(lanes.begin()->second, "fake:0 stream");
  EXPECT_EQ(lanes.rbegin()->second, "loader 0");
}

ProfileEvent Event(ProfileEvent::Kind kind, const std::string& name,
                   const std::string& op, double ms, int64_t flops, int iteration) {
  ProfileEvent e;
  e.kind = kind;
  e.name = name;
  e.op = op;
  e.lane = "cpu:0";
  e.duration_us = ms * 1e3;
  e.flops = flops;
  e.iteration = iteration;
  return e;
}

TEST(ProfileSummaryTest, ArithmeticByOpAndByLayer) {
  using K = ProfileEvent::Kind;
  std::vector<ProfileEvent> events = {
      Event(K::kNode, "features.0/conv2d", "conv2d", 3, 8'000'000, 0),
      Event(K::kNode, "features.3/conv2d", "conv2d", 5, 8'000'000, 0),
      Event(K::kNode, "features.1/relu", "relu", 2, 0, 0),
      Event(K::kCopy, "input h2d", "h2d", 1, 0, 1),
      Event(K::kRun, "forward", "", 100, 0, 0),  // encloses nodes: not counted
  };
  ProfileEvent host = Event(K::kHost, "load", "", 50, 0, 0);  // not device time
  host.lane = "loader 0";
  events.push_back(host);

  const ProfileSummary s = SummarizeProfile(events);
  EXPECT_DOUBLE_EQ(s.total_ms, 11);
  EXPECT_EQ(s.iterations, 2);
  ASSERT_EQ(s.by_op.size(), 3u);
  EXPECT_EQ(s.by_op[0].key, "conv2d");
  EXPECT_EQ(s.by_op[0].device, "cpu:0");
  EXPECT_EQ(s.by_op[0].calls, 2);
  EXPECT_DOUBLE_EQ(s.by_op[0].total_ms, 8);
  EXPECT_DOUBLE_EQ(s.by_op[0].mean_ms, 4);
  EXPECT_DOUBLE_EQ(s.by_op[0].share, 8.0 / 11);
  EXPECT_EQ(s.by_op[0].flops, 16'000'000);
  EXPECT_DOUBLE_EQ(s.by_op[0].gflop_per_s, 2.0);  // 16e6 FLOP in 8 ms
  EXPECT_EQ(s.by_op[1].key, "relu");
  EXPECT_DOUBLE_EQ(s.by_op[1].gflop_per_s, 0);
  EXPECT_EQ(s.by_op[2].key, "h2d");
  EXPECT_DOUBLE_EQ(s.by_op[2].share, 1.0 / 11);

  ASSERT_EQ(s.by_layer.size(), 4u);
  EXPECT_EQ(s.by_layer[0].key, "features.3/conv2d");
  EXPECT_DOUBLE_EQ(s.by_layer[0].gflop_per_s, 1.6);  // 8e6 FLOP in 5 ms
  EXPECT_EQ(s.by_layer[1].key, "features.0/conv2d");
  EXPECT_EQ(s.by_layer[3].key, "input h2d");

  const std::string text = FormatProfileSummary(s);
  EXPECT_THAT(text, HasSubstr("by op"));
  EXPECT_THAT(text, HasSubstr("by layer"));
  EXPECT_THAT(text, HasSubstr("features.3/conv2d"));
  EXPECT_THAT(text, HasSubstr("72.7%"));  // conv2d: 8 of 11 ms
  EXPECT_THAT(FormatProfileSummary(s, 1), HasSubstr("... 2 more"));
}

// A partition's name joins its nodes' names: the text table shows its first
// and last node and the count, a long plain name its end; the summary's
// rows keep the whole names.
// Parts of fused kernels have their own tables, by kind and one by one,
// with shares of the nodes' time, and add nothing to it.
TEST(ProfileSummaryTest, KernelPartsHaveTheirOwnTables) {
  using K = ProfileEvent::Kind;
  const std::vector<ProfileEvent> events = {
      Event(K::kNode, "conv2d+silu+conv2d", "conv2d", 10, 0, 0),
      Event(K::kPart, "/a/conv2d", "brgconv:avx512_core", 4, 0, 0),
      Event(K::kPart, "/a/conv2d", "host silu", 1, 0, 0),
      Event(K::kPart, "/b/conv2d", "brgconv:avx512_core", 3, 0, 0),
  };
  const ProfileSummary s = SummarizeProfile(events);
  EXPECT_DOUBLE_EQ(s.total_ms, 10);
  ASSERT_EQ(s.by_op.size(), 1u);
  ASSERT_EQ(s.by_part_kind.size(), 2u);
  EXPECT_EQ(s.by_part_kind[0].key, "brgconv:avx512_core");
  EXPECT_EQ(s.by_part_kind[0].calls, 2);
  EXPECT_DOUBLE_EQ(s.by_part_kind[0].total_ms, 7);
  EXPECT_DOUBLE_EQ(s.by_part_kind[0].share, 0.7);
  ASSERT_EQ(s.by_part.size(), 3u);
  EXPECT_EQ(s.by_part[0].key, "/a/conv2d: brgconv:avx512_core");
  const std::string text = FormatProfileSummary(s);
  EXPECT_THAT(text, HasSubstr("parts by kind"));
  EXPECT_THAT(text, HasSubstr("/b/conv2d: brgconv:avx512_core"));
  EXPECT_THAT(FormatProfileSummary(SummarizeProfile({events[0]})),
              Not(HasSubstr("parts")));
}

TEST(ProfileSummaryTest, LongNamesAreShortenedInTheTextOnly) {
  using K = ProfileEvent::Kind;
  std::string partition;
  for (int i = 0; i < 40; ++i) {
    absl::StrAppend(&partition, i == 0 ? "" : "+", "/backbone/body/layer", i, "/Conv/conv2d");
  }
  const std::string long_layer = std::string(150, 'x') + "/tail/relu";
  const ProfileSummary s = SummarizeProfile(
      {Event(K::kNode, partition, "dnnl", 3, 0, 0), Event(K::kNode, long_layer, "relu", 1, 0, 0)});
  EXPECT_EQ(s.by_layer[0].key, partition);
  const std::string text = FormatProfileSummary(s);
  EXPECT_THAT(text, HasSubstr("/backbone/body/layer0/Conv/conv2d+...+"
                              "/backbone/body/layer39/Conv/conv2d (40 nodes)"));
  EXPECT_THAT(text, Not(HasSubstr("layer1/Conv")));
  EXPECT_THAT(text, HasSubstr("...xxx"));
  EXPECT_THAT(text, HasSubstr("x/tail/relu"));
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    EXPECT_LE(line.size(), 160u) << line;
  }
}

// An exported detector's layers name its stages; a host step (NMS run on
// the host on this run's data) is a node on the host's lane, and when one
// layer takes a quarter of the time the verdict names it.
TEST(ProfileSummaryTest, StagesFromLayerPathsAndTheSlowLayer) {
  using K = ProfileEvent::Kind;
  auto node = [](const std::string& layer, const std::string& op, double ms,
                 const std::string& lane) {
    ProfileEvent e = Event(K::kNode, layer + "/" + op, op, ms, 0, 0);
    e.layer = layer;
    e.lane = lane;
    return e;
  };
  const std::vector<ProfileEvent> events = {
      node("/backbone/body/layer1/Conv", "conv2d", 2, "cpu:0"),
      node("/backbone/fpn/Conv", "conv2d", 1, "cpu:0"),
      node("/rpn/head/Conv", "conv2d", 1, "cpu:0"),
      node("/rpn/NonMaxSuppression", "NonMaxSuppression", 6, "host"),
      Event(K::kCopy, "input h2d", "h2d", 0.5, 0, 0),
  };
  const ProfileSummary s = SummarizeProfile(events);
  // Rows per stage and lane: the RPN's host step apart from its convs.
  ASSERT_EQ(s.by_stage.size(), 4u);
  EXPECT_EQ(s.by_stage[0].key, "rpn");
  EXPECT_EQ(s.by_stage[0].device, "host");
  EXPECT_DOUBLE_EQ(s.by_stage[0].total_ms, 6);
  EXPECT_EQ(s.by_stage[1].key, "backbone");
  EXPECT_DOUBLE_EQ(s.by_stage[1].total_ms, 3);
  EXPECT_EQ(s.by_stage[2].key, "rpn");
  EXPECT_EQ(s.by_stage[2].device, "cpu:0");
  EXPECT_EQ(s.by_stage[3].key, "(other)");
  const std::string text = FormatProfileSummary(s);
  EXPECT_THAT(text, HasSubstr("by stage"));
  EXPECT_THAT(text, HasSubstr("verdict: one op (/rpn/NonMaxSuppression/NonMaxSuppression) "
                              "takes 57% of the profiled time (host)"));

  // One stage only (a classifier's flat layer names): no stage table, and
  // no layer slow enough to name.
  const std::vector<ProfileEvent> flat = {
      Event(K::kNode, "features.0/conv2d", "conv2d", 1, 0, 0),
      Event(K::kNode, "features.3/conv2d", "conv2d", 1, 0, 0),
      Event(K::kNode, "features.6/conv2d", "conv2d", 1, 0, 0),
      Event(K::kNode, "features.8/conv2d", "conv2d", 1, 0, 0),
      Event(K::kNode, "features.11/conv2d", "conv2d", 1, 0, 0),
  };
  const ProfileSummary f = SummarizeProfile(flat);
  EXPECT_TRUE(f.by_stage.empty());
  EXPECT_THAT(FormatProfileSummary(f), Not(HasSubstr("verdict")));
}

TEST_F(ProfilerTest, DeviceListShowsMissingDevicesWithTheReason) {
  std::vector<DeviceChoice> all = AllDevices(registry_);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].name, "fake:0");
  EXPECT_TRUE(all[0].available());
  EXPECT_EQ(all[1].name, "none");
  EXPECT_FALSE(all[1].available());
  EXPECT_THAT(all[1].unavailable_reason,
              HasSubstr("the test backend was made with no devices"));
  EXPECT_EQ(all[2].name, "parts:0");
  EXPECT_EQ(all[3].name, "slow:0");

  absl::StatusOr<std::vector<DeviceChoice>> chosen =
      ChooseDevices(registry_, {"fake", "fake:0", "cuda", "fake:3"});
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  ASSERT_EQ(chosen->size(), 3u);
  EXPECT_EQ((*chosen)[0].name, "fake:0");
  EXPECT_EQ((*chosen)[1].name, "cuda:0");
  EXPECT_THAT((*chosen)[1].unavailable_reason,
              HasSubstr("no backend is registered for device type 'cuda'"));
  EXPECT_EQ((*chosen)[2].name, "fake:3");
  EXPECT_THAT((*chosen)[2].unavailable_reason, HasSubstr("not available"));

  EXPECT_EQ(ChooseDevices(registry_, {"CUDA"}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace switchyard
