// The oneDNN backend linked in (not as a plugin): device, memory, options,
// capability reasons, partition claims, and multi-node partitions (blocked
// layouts, fusion, residual sums, flatten into linear) against the
// reference backend.

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/dnnl/dnnl_backend.h"
#include "backends/dnnl/dnnl_device.h"
#include "backends/dnnl/dnnl_partition.h"
#include "backends/reference/reference_backend.h"
#include "core/compile.h"
#include "core/partition.h"
#include "core/profiler.h"
#include "core/tensor.h"
#include "backends/dnnl/dnnl_test_devices.h"
#include "gtest/gtest.h"
#include "ops/conv_attrs.h"
#include "ops/pool_attrs.h"

namespace switchyard {
namespace onednn {
namespace {

using Ints = std::vector<int64_t>;

using testing::Dnnl;
using testing::Random;
using testing::Ref;
using testing::Registry;

TEST(DnnlDeviceTest, NamesOneDnnItsIsaAndThreads) {
  DeviceInfo info = Dnnl().Info();
  EXPECT_EQ(info.device.ToString(), "dnnl:0");
  EXPECT_TRUE(absl::StrContains(info.name, "oneDNN 2.")) << info.name;
  EXPECT_TRUE(absl::StrContains(info.name, "OpenMP")) << info.name;
  EXPECT_TRUE(absl::StrContains(info.name, "ISA " + EffectiveIsaName()))
      << info.name;
  EXPECT_NE(EffectiveIsaName(), "unknown");
  EXPECT_EQ(info.properties[0].first, "isa");
}

TEST(DnnlDeviceTest, CopiesAndAlignment) {
  Tensor x = *Tensor::FromVector({2, 3}, {1, 2, 3, 4, 5, 6}, Dnnl());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(x.buffer()->data()) % 64, 0u);
  EXPECT_EQ(*x.ToVector(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  Tensor on_ref = *Tensor::Empty({2, 3}, DType::kFloat32, Ref());
  std::vector<float> host(6);
  absl::Status foreign = Dnnl().CopyToHost(*on_ref.buffer(), host.data(), 24);
  EXPECT_EQ(foreign.code(), absl::StatusCode::kInvalidArgument);
  absl::Status too_big = Dnnl().CopyToHost(*x.buffer(), host.data(), 100);
  EXPECT_EQ(too_big.code(), absl::StatusCode::kInvalidArgument);
}

TEST(DnnlBackendTest, ThreadsOptionAndReadOnlyIsa) {
  BackendRegistry& r = Registry();
  ASSERT_TRUE(r.SetOption("dnnl.threads=3").ok());
  EXPECT_EQ(*r.GetOption("dnnl", "threads"), "3");
  EXPECT_EQ(static_cast<DnnlDevice&>(Dnnl()).threads(), 3);
  absl::Status bad = r.SetOption("dnnl.threads=zero");
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(bad.message(), "integer >= 1")) << bad;
  absl::Status isa = r.SetOption("dnnl.isa=avx2");
  EXPECT_TRUE(absl::StrContains(isa.message(), "read-only")) << isa;
  EXPECT_EQ(*r.GetOption("dnnl", "isa"), EffectiveIsaName());
  ASSERT_TRUE(r.SetOption("dnnl.threads=2").ok());
}

TEST(DnnlBackendTest, ConvAlgorithmOption) {
  BackendRegistry& r = Registry();
  EXPECT_EQ(*r.GetOption("dnnl", "conv_algorithm"), "auto");
  ASSERT_TRUE(r.SetOption("dnnl.conv_algorithm=winograd").ok());
  EXPECT_EQ(*r.GetOption("dnnl", "conv_algorithm"), "winograd");
  absl::Status bad = r.SetOption("dnnl.conv_algorithm=fft");
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(bad.message(), "auto, direct or winograd")) << bad;
  ASSERT_TRUE(r.SetOption("dnnl.conv_algorithm=auto").ok());
}

// One 3x3 weight read at two image sizes, as a detector's RPN head reads
// its conv at every FPN level: each algorithm matches the reference. The
// two convolutions share the weight's reordered copy only where the layouts
// are the same; Winograd's weight layout depends on the problem, and when
// its key said only "wino" the second size read the first one's blocking.
TEST(DnnlDeviceTest, ConvAlgorithmsMatchTheReferenceWithAWeightSharedAcrossSizes) {
  std::mt19937 rng(21);
  const std::vector<float> weight = Random(64 * 64 * 9, rng, 0.05f);
  const std::vector<float> big = Random(64 * 40 * 40, rng);
  const std::vector<float> small = Random(2 * 64 * 9 * 11, rng);
  Conv2dAttrs pad1;
  pad1.pad_h = pad1.pad_w = 1;
  auto run = [&](BackendDevice& device, std::vector<std::string>* steps) {
    Graph g;
    ValueId x1 = g.AddInput("x1", Shape({1, 64, 40, 40}), device.device());
    ValueId x2 = g.AddInput("x2", Shape({2, 64, 9, 11}), device.device());
    ValueId w = g.AddConstant("w", *Tensor::FromVector({64, 64, 3, 3}, weight, device));
    g.AddOutput(g.AddNode("relu", "level0",
                          {g.AddNode("conv2d", "level0", {x1, w}, pad1.ToAttrMap())},
                          AttrMap()));
    g.AddOutput(g.AddNode("conv2d", "level1", {x2, w}, pad1.ToAttrMap()));
    CompileOptions options;
    options.backends = &Registry();
    absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(g), options);
    EXPECT_TRUE(plan.ok()) << plan.status();
    if (!plan.ok()) return std::vector<std::vector<float>>();
    if (steps != nullptr && !(*plan)->partitions().empty()) {
      absl::StatusOr<std::unique_ptr<Kernel>> kernel =
          device.CreatePartitionKernel((*plan)->partitions()[0], (*plan)->graph());
      EXPECT_TRUE(kernel.ok()) << kernel.status();
      if (kernel.ok()) *steps = KernelSteps(**kernel);
    }
    const Tensor t1 = *Tensor::FromVector({1, 64, 40, 40}, big, device);
    const Tensor t2 = *Tensor::FromVector({2, 64, 9, 11}, small, device);
    absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run({t1, t2});
    EXPECT_TRUE(out.ok()) << out.status();
    std::vector<std::vector<float>> values;
    if (out.ok()) {
      for (const Tensor& t : *out) values.push_back(*t.ToVector());
    }
    return values;
  };
  const std::vector<std::vector<float>> want = run(Ref(), nullptr);
  ASSERT_EQ(want.size(), 2u);
  testing::RestoreOptionAtExit restore("dnnl.conv_algorithm=auto");
  for (const char* algorithm : {"direct", "winograd", "auto"}) {
    SCOPED_TRACE(algorithm);
    ASSERT_TRUE(Registry().SetOption(absl::StrCat("dnnl.conv_algorithm=", algorithm)).ok());
    std::vector<std::string> steps;
    const std::vector<std::vector<float>> got = run(Dnnl(), &steps);
    ASSERT_EQ(got.size(), 2u);
    for (size_t o = 0; o < 2; ++o) {
      ASSERT_EQ(got[o].size(), want[o].size());
      for (size_t i = 0; i < got[o].size(); ++i) {
        // Winograd's transforms round differently: 1e-4 of a unit output.
        ASSERT_NEAR(got[o][i], want[o][i], 1e-4) << "output " << o << " element " << i;
      }
    }
    // Where oneDNN has Winograd (AVX-512), asking for it gets it.
    const bool wino = absl::StrContains(absl::StrJoin(steps, "\n"), "wino");
    if (std::string(algorithm) == "direct") {
      EXPECT_FALSE(wino);
    }
    if (std::string(algorithm) != "direct" &&
        absl::StrContains(EffectiveIsaName(), "avx512")) {
      EXPECT_TRUE(wino) << absl::StrJoin(steps, "\n");
    }
  }
}

// A one-node graph on dnnl:0, shape-inferred and placed, for Supports.
absl::Status SupportsOne(const std::string& op, std::vector<Shape> inputs,
                         AttrMap attrs, DType dtype = DType::kFloat32) {
  Graph g;
  std::vector<ValueId> ids;
  for (size_t i = 0; i < inputs.size(); ++i) {
    ids.push_back(g.AddInput("x" + std::to_string(i), inputs[i],
                             *Device::Parse("dnnl:0"), dtype));
  }
  g.AddOutput(g.AddNode(op, "layer", ids, std::move(attrs)));
  CompileOptions options;
  options.backends = &Registry();
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
      Compile(std::move(g), options);
  return plan.status();
}

TEST(DnnlDeviceTest, RefusesWhatOneDnnCannotRunWithTheReason) {
  absl::Status floor = SupportsOne("floor", {Shape({2, 3})}, AttrMap());
  EXPECT_EQ(floor.code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(floor.message(), "no primitive for op 'floor'"))
      << floor;
  EXPECT_TRUE(absl::StrContains(floor.message(), "it runs: abs, adaptive_avg_pool2d"))
      << floor;

  AttrMap adaptive;
  adaptive.Set("output_size", Ints{3, 2});
  absl::Status uneven =
      SupportsOne("adaptive_avg_pool2d", {Shape({1, 2, 7, 5})}, adaptive);
  EXPECT_EQ(uneven.code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(uneven.message(), "3x2 from 7x5")) << uneven;

  // oneDNN broadcasts the second operand only: 1 - x is refused, and so
  // is a broadcast of both operands.
  absl::Status first_broadcast =
      SupportsOne("sub", {Shape({3}), Shape({2, 3})}, AttrMap());
  EXPECT_EQ(first_broadcast.code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(first_broadcast.message(), "not commutative"))
      << first_broadcast;
  absl::Status both =
      SupportsOne("mul", {Shape({2, 1}), Shape({1, 3})}, AttrMap());
  EXPECT_TRUE(absl::StrContains(both.message(), "not both")) << both;
  EXPECT_TRUE(SupportsOne("sub", {Shape({2, 3}), Shape({3})}, AttrMap()).ok());
  EXPECT_TRUE(SupportsOne("mul", {Shape({3}), Shape({2, 3})}, AttrMap()).ok());

  absl::Status f64 =
      SupportsOne("relu", {Shape({4})}, AttrMap(), DType::kFloat64);
  EXPECT_TRUE(absl::StrContains(f64.message(), "float32 only")) << f64;

  AttrMap ok;
  ok.Set("output_size", Ints{7, 7});
  EXPECT_TRUE(SupportsOne("adaptive_avg_pool2d", {Shape({1, 2, 1, 1})}, ok).ok());
  EXPECT_TRUE(SupportsOne("adaptive_avg_pool2d", {Shape({1, 2, 14, 14})}, ok).ok());
}

// A small ResNet-and-VGG-like chain on `device`: conv+relu, max pool,
// conv, batch norm, relu, a basic block (conv+relu, conv + residual add +
// relu), adaptive pool,
// flatten, linear+relu, linear, softmax. The first relu's output is also a
// graph output (read outside the partition).
struct Chain {
  Graph graph;
  Tensor input;
};

Chain MakeChain(BackendDevice& device, int64_t batch) {
  std::mt19937 rng(7);
  Chain c;
  Graph& g = c.graph;
  const Device d = device.device();
  auto constant = [&](const std::string& name, Shape shape, float scale,
                      float offset = 0) {
    std::vector<float> v = Random(shape.num_elements(), rng, scale);
    for (float& x : v) x += offset;
    return g.AddConstant(name, *Tensor::FromVector(shape, v, device));
  };
  const Shape in({batch, 3, 16, 16});
  c.input = *Tensor::FromVector(in, Random(in.num_elements(), rng), device);
  ValueId x = g.AddInput("input", in, d);
  Conv2dAttrs pad1;
  pad1.pad_h = pad1.pad_w = 1;
  x = g.AddNode("conv2d", "c1",
                {x, constant("c1.w", Shape({8, 3, 3, 3}), 0.3f),
                 constant("c1.b", Shape({8}), 0.1f)},
                pad1.ToAttrMap());
  const ValueId r1 = g.AddNode("relu", "r1", {x}, AttrMap());
  g.AddOutput(r1);
  x = g.AddNode("max_pool2d", "p1", {r1}, MaxPool2dAttrs::Square(2, 2).ToAttrMap());
  x = g.AddNode("conv2d", "c2",
                {x, constant("c2.w", Shape({16, 8, 3, 3}), 0.2f)},
                pad1.ToAttrMap());
  x = g.AddNode("batch_norm", "bn",
                {x, constant("bn.w", Shape({16}), 0.3f, 1.0f),
                 constant("bn.b", Shape({16}), 0.1f),
                 constant("bn.mean", Shape({16}), 0.1f),
                 constant("bn.var", Shape({16}), 0.3f, 1.0f)},
                AttrMap());
  const ValueId r2 = g.AddNode("relu", "r2", {x}, AttrMap());
  x = g.AddNode("conv2d", "c3",
                {r2, constant("c3.w", Shape({16, 16, 3, 3}), 0.1f),
                 constant("c3.b", Shape({16}), 0.1f)},
                pad1.ToAttrMap());
  x = g.AddNode("relu", "r3a", {x}, AttrMap());
  x = g.AddNode("conv2d", "c4",
                {x, constant("c4.w", Shape({16, 16, 3, 3}), 0.1f),
                 constant("c4.b", Shape({16}), 0.1f)},
                pad1.ToAttrMap());
  x = g.AddNode("add", "res", {x, r2}, AttrMap());
  x = g.AddNode("relu", "r3", {x}, AttrMap());
  AttrMap adaptive;
  adaptive.Set("output_size", Ints{2, 2});
  x = g.AddNode("adaptive_avg_pool2d", "gap", {x}, adaptive);
  x = g.AddNode("flatten", "flat", {x}, AttrMap());
  x = g.AddNode("linear", "fc1",
                {x, constant("fc1.w", Shape({12, 64}), 0.2f),
                 constant("fc1.b", Shape({12}), 0.1f)},
                AttrMap());
  x = g.AddNode("relu", "r4", {x}, AttrMap());
  x = g.AddNode("linear", "fc2",
                {x, constant("fc2.w", Shape({5, 12}), 0.3f),
                 constant("fc2.b", Shape({5}), 0.1f)},
                AttrMap());
  AttrMap dim1;
  dim1.Set("dim", int64_t{1});
  g.AddOutput(g.AddNode("softmax", "sm", {x}, dim1));
  return c;
}

std::vector<std::vector<float>> RunChain(BackendDevice& device, int64_t batch,
                                         bool fold,
                                         std::vector<Partition>* partitions,
                                         std::vector<std::string>* steps) {
  Chain c = MakeChain(device, batch);
  CompileOptions options;
  options.backends = &Registry();
  options.fold_batch_norm = fold;
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
      Compile(std::move(c.graph), options);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return {};
  if (partitions != nullptr) *partitions = (*plan)->partitions();
  if (steps != nullptr && !(*plan)->partitions().empty()) {
    absl::StatusOr<std::unique_ptr<Kernel>> kernel =
        device.CreatePartitionKernel((*plan)->partitions()[0], (*plan)->graph());
    EXPECT_TRUE(kernel.ok()) << kernel.status();
    if (kernel.ok()) *steps = KernelSteps(**kernel);
  }
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run({c.input});
  EXPECT_TRUE(out.ok()) << out.status();
  std::vector<std::vector<float>> values;
  if (out.ok()) {
    for (const Tensor& t : *out) values.push_back(*t.ToVector());
  }
  return values;
}

void ExpectClose(const std::vector<float>& got, const std::vector<float>& want,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  float scale = 0;
  for (float v : want) scale = std::max(scale, std::abs(v));
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-5 + 1e-4 * scale) << what << " element " << i;
  }
}

class DnnlChainTest : public ::testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(DnnlChainTest, OnePartitionMatchesTheReference) {
  const auto [batch, fold] = GetParam();
  std::vector<Partition> partitions;
  std::vector<std::string> steps;
  std::vector<std::vector<float>> got =
      RunChain(Dnnl(), batch, fold, &partitions, &steps);
  std::vector<std::vector<float>> want =
      RunChain(Ref(), batch, fold, nullptr, nullptr);
  ASSERT_EQ(got.size(), 2u);
  ASSERT_EQ(want.size(), 2u);
  ExpectClose(got[0], want[0], "first relu (read outside the partition)");
  ExpectClose(got[1], want[1], "softmax");

  // Every node in one partition.
  ASSERT_EQ(partitions.size(), 1u);
  EXPECT_EQ(partitions[0].nodes.size(), fold ? 16u : 17u);
  EXPECT_TRUE(absl::StartsWith(partitions[0].name, "dnnl[")) << partitions[0].name;
  EXPECT_TRUE(absl::StrContains(partitions[0].name, "conv2d+add+relu"))
      << partitions[0].name;
  EXPECT_TRUE(absl::StrContains(partitions[0].name, "linear+relu"))
      << partitions[0].name;
  // Reorders only at the edges: the graph input into oneDNN's layout and
  // the two outputs back to plain; never between two primitives (the
  // residual add is the second convolution's sum post-op, accumulating
  // into the block input's own buffer).
  int outputs = 0;
  for (const std::string& step : steps) {
    if (absl::StartsWith(step, "output:")) {
      ++outputs;
    } else if (absl::StartsWith(step, "reorder:") ||
               absl::StartsWith(step, "to plain:") ||
               absl::StartsWith(step, "residual:")) {
      EXPECT_EQ(step, "reorder: input") << absl::StrJoin(steps, "\n");
    }
  }
  EXPECT_EQ(outputs, 2) << absl::StrJoin(steps, "\n");
  // Primitives: conv+relu, pool, conv(+bn folded or bn+relu), conv+sum+relu,
  // pool, linear+relu, linear, softmax.
  const int primitives = static_cast<int>(
      std::count_if(steps.begin(), steps.end(), [](const std::string& s) {
        return !absl::StartsWith(s, "output:") &&
               !absl::StartsWith(s, "reorder:") &&
               !absl::StartsWith(s, "to plain:") &&
               !absl::StartsWith(s, "residual:");
      }));
  EXPECT_GE(primitives, 8) << absl::StrJoin(steps, "\n");
  std::cerr << "steps (batch " << batch << (fold ? ", folded" : "") << "):\n"
            << absl::StrJoin(steps, "\n") << "\n";
}

INSTANTIATE_TEST_SUITE_P(Batches, DnnlChainTest,
                         ::testing::Combine(::testing::Values(1, 3),
                                            ::testing::Bool()));

// x + conv(x): the residual is also the convolution's source, so the sum
// post-op accumulates into a copy of it.
TEST(DnnlDeviceTest, ResidualThatIsTheConvolutionsOwnInput) {
  auto run = [](BackendDevice& device) {
    std::mt19937 rng(5);
    Graph g;
    const Shape in({2, 8, 6, 6});
    Tensor input = *Tensor::FromVector(in, Random(in.num_elements(), rng), device);
    ValueId x = g.AddInput("input", in, device.device());
    ValueId r = g.AddNode("relu", "r", {x}, AttrMap());
    Conv2dAttrs pad1;
    pad1.pad_h = pad1.pad_w = 1;
    ValueId w = g.AddConstant(
        "w", *Tensor::FromVector({8, 8, 3, 3}, Random(576, rng, 0.2f), device));
    ValueId y = g.AddNode("conv2d", "c", {r, w}, pad1.ToAttrMap());
    y = g.AddNode("add", "a", {y, r}, AttrMap());
    g.AddOutput(g.AddNode("relu", "r2", {y}, AttrMap()));
    CompileOptions options;
    options.backends = &Registry();
    absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
        Compile(std::move(g), options);
    EXPECT_TRUE(plan.ok()) << plan.status();
    absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run({input});
    EXPECT_TRUE(out.ok()) << out.status();
    return *(*out)[0].ToVector();
  };
  ExpectClose(run(Dnnl()), run(Ref()), "relu(x + conv(x))");
}

// MobileNet's ReLU6: clip after a conv2d (a clip post-op), after a
// depthwise conv2d, after a residual add, and on its own (eltwise clip_v2);
// the same numbers as the reference backend's clip.
TEST(DnnlDeviceTest, ClipAsPostOpAndOnItsOwn) {
  std::string names;
  auto run = [&names](BackendDevice& device) {
    std::mt19937 rng(9);
    Graph g;
    const Shape in({2, 8, 6, 6});
    Tensor input = *Tensor::FromVector(in, Random(in.num_elements(), rng), device);
    ValueId x = g.AddInput("input", in, device.device());
    AttrMap relu6;
    relu6.Set("min", 0.0);
    relu6.Set("max", 0.3);
    AttrMap band;
    band.Set("min", -0.2);
    band.Set("max", 0.2);
    ValueId c0 = g.AddNode("clip", "alone", {x}, band);
    Conv2dAttrs pad1;
    pad1.pad_h = pad1.pad_w = 1;
    ValueId w = g.AddConstant(
        "w", *Tensor::FromVector({8, 8, 3, 3}, Random(576, rng, 0.2f), device));
    ValueId y = g.AddNode("clip", "c1", {g.AddNode("conv2d", "conv", {c0, w}, pad1.ToAttrMap())},
                          relu6);
    Conv2dAttrs depthwise = pad1;
    depthwise.groups = 8;
    ValueId dw = g.AddConstant(
        "dw", *Tensor::FromVector({8, 1, 3, 3}, Random(72, rng, 0.5f), device));
    ValueId z = g.AddNode("clip", "c2", {g.AddNode("conv2d", "dw", {y, dw},
                                                     depthwise.ToAttrMap())},
                          relu6);
    ValueId sum = g.AddNode("add", "add", {z, y}, AttrMap());
    g.AddOutput(g.AddNode("clip", "c3", {sum}, band));
    CompileOptions options;
    options.backends = &Registry();
    absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(g), options);
    EXPECT_TRUE(plan.ok()) << plan.status();
    if (device.device().type() == "dnnl") {
      for (const Partition& p : (*plan)->partitions()) names += p.name + ";";
    }
    absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run({input});
    EXPECT_TRUE(out.ok()) << out.status();
    return *(*out)[0].ToVector();
  };
  const std::vector<float> got = run(Dnnl());
  ExpectClose(got, run(Ref()), "clip chain");
  EXPECT_TRUE(absl::StrContains(names, "conv2d+clip")) << names;
  EXPECT_TRUE(absl::StrContains(names, "add+clip")) << names;
  int at_bound = 0;
  for (float v : got) at_bound += std::abs(v) == 0.2f;
  EXPECT_GT(at_bound, 0);
}

// min > max (ONNX: max wins) is left to another device.
TEST(DnnlDeviceTest, ClipWithCrossedBoundsIsRefused) {
  AttrMap crossed;
  crossed.Set("min", 1.0);
  crossed.Set("max", 0.5);
  EXPECT_FALSE(SupportsOne("clip", {Shape({4})}, crossed, DType::kFloat32).ok());
  AttrMap fine;
  fine.Set("min", 0.0);
  fine.Set("max", 6.0);
  EXPECT_TRUE(SupportsOne("clip", {Shape({4})}, fine, DType::kFloat32).ok());
}

// Plans of one weight at several batch sizes (a model run at several input
// shapes) reorder it into oneDNN's layout once; a plan still computes its
// own batch right.
TEST(DnnlDeviceTest, WeightsAreReorderedOncePerModelNotPerPlan) {
  std::mt19937 rng(9);
  const Tensor weight =
      *Tensor::FromVector({16, 8, 3, 3}, Random(16 * 8 * 9, rng, 0.2f), Dnnl());
  const Tensor bias = *Tensor::FromVector({16}, Random(16, rng), Dnnl());
  Conv2dAttrs pad1;
  pad1.pad_h = pad1.pad_w = 1;
  auto plan_for = [&](int64_t n) {
    Graph g;
    ValueId x = g.AddInput("x", Shape({n, 8, 10, 10}), Dnnl().device());
    ValueId w = g.AddConstant("w", weight);
    ValueId b = g.AddConstant("b", bias);
    g.AddOutput(g.AddNode("conv2d", "conv", {x, w, b}, pad1.ToAttrMap()));
    CompileOptions options;
    options.backends = &Registry();
    absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(g), options);
    EXPECT_TRUE(plan.ok()) << plan.status();
    return *std::move(plan);
  };
  auto* dnnl = dynamic_cast<DnnlDevice*>(&Dnnl());
  ASSERT_NE(dnnl, nullptr);
  const PreparedWeights::Stats before = dnnl->prepared_weights().stats();
  std::vector<std::unique_ptr<ExecutablePlan>> plans;
  for (int64_t n : {1, 2, 4}) plans.push_back(plan_for(n));
  const PreparedWeights::Stats after = dnnl->prepared_weights().stats();
  // The weight and the bias, each once; the two later plans reuse both.
  EXPECT_EQ(after.prepared - before.prepared, 2);
  EXPECT_EQ(after.reused - before.reused, 4);

  const std::vector<float> image = Random(8 * 10 * 10, rng);
  std::vector<float> batch;
  for (int i = 0; i < 4; ++i) batch.insert(batch.end(), image.begin(), image.end());
  const Tensor x1 = *Tensor::FromVector({1, 8, 10, 10}, image, Dnnl());
  const Tensor x4 = *Tensor::FromVector({4, 8, 10, 10}, batch, Dnnl());
  const std::vector<float> y1 = *(*plans[0]->Run({x1}))[0].ToVector();
  const std::vector<float> y4 = *(*plans[2]->Run({x4}))[0].ToVector();
  ASSERT_EQ(y4.size(), 4 * y1.size());
  for (size_t i = 0; i < y4.size(); ++i) ASSERT_NEAR(y4[i], y1[i % y1.size()], 1e-5) << i;
}

// adaptive_avg_pool2d to its own size (VGG's 7x7 from 7x7) is no work: the
// output is the input, written straight from the partition's input.
TEST(DnnlDeviceTest, AdaptivePoolToTheSameSizeIsTheIdentity) {
  std::mt19937 rng(9);
  Graph g;
  const Shape in({2, 3, 7, 7});
  const std::vector<float> values = Random(in.num_elements(), rng);
  Tensor input = *Tensor::FromVector(in, values, Dnnl());
  ValueId x = g.AddInput("input", in, Dnnl().device());
  AttrMap same;
  same.Set("output_size", Ints{7, 7});
  g.AddOutput(g.AddNode("adaptive_avg_pool2d", "gap", {x}, same));
  CompileOptions options;
  options.backends = &Registry();
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
      Compile(std::move(g), options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run({input});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*(*out)[0].ToVector(), values);
}

// A node dnnl cannot run, in the middle, with auto placement: it falls back
// to the CPU... here to ref:0, and the dnnl nodes around it form two
// partitions with copies between.
TEST(DnnlDeviceTest, UnclaimedNodeSplitsThePartitions) {
  std::mt19937 rng(3);
  Graph g;
  const Device d = *Device::Parse("dnnl:0");
  ValueId x = g.AddInput("input", Shape({2, 4}), d);
  Tensor input = *Tensor::FromVector({2, 4}, Random(8, rng), Dnnl());
  x = g.AddNode("relu", "a", {x}, AttrMap());
  x = g.AddNode("floor", "b", {x}, AttrMap());
  x = g.AddNode("relu", "c", {x}, AttrMap());
  g.AddOutput(x);
  CompileOptions options;
  options.backends = &Registry();
  options.placement = PlacementPolicy::kAuto;
  options.target = d;
  options.fallback = *Device::Parse("ref:0");
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
      Compile(std::move(g), options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  int on_ref = 0;
  for (const Node& node : (*plan)->graph().nodes()) {
    if (node.op == "floor") {
      EXPECT_EQ(node.device->ToString(), "ref:0");
    }
    on_ref += node.device->ToString() == "ref:0" ? 1 : 0;
  }
  EXPECT_GE(on_ref, 1);
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run({input});
  ASSERT_TRUE(out.ok()) << out.status();
  const std::vector<float> values = *(*out)[0].ToVector();
  EXPECT_EQ(values, std::vector<float>(8, 0.0f));
}

// Profiled, a partition (one node event) reports each of its primitives as
// a part: named by its node, of the primitive's kind, inside the
// partition's span; the conv's part is oneDNN's implementation.
TEST(DnnlDeviceTest, ProfiledPartitionReportsItsPrimitivesAsParts) {
  std::mt19937 rng(4);
  Graph g;
  const Device d = *Device::Parse("dnnl:0");
  const Shape in({1, 4, 6, 6});
  ValueId x = g.AddInput("input", in, d);
  ValueId w = g.AddConstant("w", *Tensor::FromVector({8, 4, 3, 3}, Random(288, rng, 0.2f), Dnnl()));
  Conv2dAttrs pad1;
  pad1.pad_h = pad1.pad_w = 1;
  x = g.AddNode("conv2d", "c", {x, w}, pad1.ToAttrMap());
  x = g.AddNode("relu", "r", {x}, AttrMap());
  ValueId pooled = g.AddNode("max_pool2d", "p", {x}, MaxPool2dAttrs::Square(2, 2).ToAttrMap());
  g.AddOutput(pooled);
  CompileOptions options;
  options.backends = &Registry();
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(g), options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  Tensor input = *Tensor::FromVector(in, Random(in.num_elements(), rng), Dnnl());
  Profiler profiler;
  RunOptions run;
  run.profiler = &profiler;
  ASSERT_TRUE(profiler.BeginIteration(0).ok());
  ASSERT_TRUE((*plan)->Run({input}, run).ok());
  ASSERT_TRUE(profiler.EndIteration().ok());
  const ProfileEvent* node = nullptr;
  std::vector<const ProfileEvent*> parts;
  for (const ProfileEvent& e : profiler.events()) {
    if (e.kind == ProfileEvent::Kind::kNode) node = &e;
    if (e.kind == ProfileEvent::Kind::kPart) parts.push_back(&e);
  }
  ASSERT_NE(node, nullptr);
  std::string listed;
  for (const ProfileEvent* p : parts) listed += absl::StrCat(p->name, " | ", p->op, "\n");
  bool conv = false, pool = false;
  for (const ProfileEvent* p : parts) {
    EXPECT_EQ(p->lane, "dnnl:0");
    EXPECT_GE(p->start_us, node->start_us - 1e-3) << listed;
    EXPECT_LE(p->start_us + p->duration_us, node->start_us + node->duration_us + 1e-3) << listed;
    conv = conv || (p->name == "c/conv2d" && absl::StrContains(p->op, "conv"));
    pool = pool || (p->name == "p/max_pool2d" && absl::StrContains(p->op, "jit"));
  }
  EXPECT_TRUE(conv && pool) << listed;
}

}  // namespace
}  // namespace onednn
}  // namespace switchyard
