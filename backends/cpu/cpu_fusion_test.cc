// The CPU device's partitions: which conv2d/linear -> relu pairs it claims,
// and that the fused kernels give the unfused pair's numbers.

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/testing/random_values.h"
#include "core/attributes.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace cpu {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::switchyard::testing::RandomValues;

class CpuFusionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(registry_
                    .Register("cpu",
                              []() -> absl::StatusOr<std::unique_ptr<Backend>> {
                                return CreateCpuBackend();
                              })
                    .ok());
    ASSERT_TRUE(registry_.SetOption("cpu", "threads", "2").ok());
    device_ = *registry_.GetDevice(Device::Cpu());
  }

  ValueId Constant(Graph& graph, const std::string& name, const Shape& shape,
                   uint64_t seed) {
    absl::StatusOr<Tensor> t = Tensor::FromVector(
        shape, RandomValues(shape.num_elements(), seed), *device_);
    EXPECT_TRUE(t.ok()) << t.status();
    return graph.AddConstant(name, *t);
  }

  // x [2, 3, 12, 12] -> conv(+bias) -> relu -> conv (no bias, stride 2) ->
  // relu -> flatten -> linear(+bias) -> relu -> linear (no bias) -> relu:
  // four fusable pairs. Each pair's relu is what the next node reads.
  Graph Network() {
    Graph g;
    ValueId x = g.AddInput("x", Shape({2, 3, 12, 12}), Device::Cpu());
    AttrMap conv;
    conv.Set("padding", std::vector<int64_t>{1, 1});
    ValueId c1 = g.AddNode("conv2d", "c1",
                           {x, Constant(g, "c1.weight", Shape({8, 3, 3, 3}), 1),
                            Constant(g, "c1.bias", Shape({8}), 2)},
                           conv);
    ValueId r1 = g.AddNode("relu", "r1", {c1}, AttrMap());
    AttrMap strided;
    strided.Set("stride", std::vector<int64_t>{2, 2});
    ValueId c2 = g.AddNode(
        "conv2d", "c2", {r1, Constant(g, "c2.weight", Shape({4, 8, 3, 3}), 3)},
        strided);
    ValueId r2 = g.AddNode("relu", "r2", {c2}, AttrMap());
    ValueId flat = g.AddNode("flatten", "flatten", {r2}, AttrMap());
    ValueId l1 = g.AddNode("linear", "l1",
                           {flat, Constant(g, "l1.weight", Shape({40, 100}), 4),
                            Constant(g, "l1.bias", Shape({40}), 5)},
                           AttrMap());
    ValueId r3 = g.AddNode("relu", "r3", {l1}, AttrMap());
    ValueId l2 = g.AddNode(
        "linear", "l2", {r3, Constant(g, "l2.weight", Shape({10, 40}), 6)},
        AttrMap());
    g.AddOutput(g.AddNode("relu", "r4", {l2}, AttrMap()));
    return g;
  }

  std::unique_ptr<ExecutablePlan> CompileWithFusion(Graph graph,
                                                    const std::string& fusion) {
    EXPECT_TRUE(registry_.SetOption("cpu", "fusion", fusion).ok());
    CompileOptions options;
    options.backends = &registry_;
    absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
        Compile(std::move(graph), options);
    EXPECT_TRUE(plan.ok()) << plan.status();
    return plan.ok() ? *std::move(plan) : nullptr;
  }

  // The placed graph, as ClaimPartitions sees it during lowering.
  Graph Placed(Graph graph) {
    CompileOptions options;
    options.backends = &registry_;
    absl::Status status = InferAndPlace(graph, options);
    EXPECT_TRUE(status.ok()) << status;
    return graph;
  }

  std::vector<std::string> Claimed(const Graph& graph) {
    std::vector<std::string> claimed;
    for (const Partition& p : device_->ClaimPartitions(graph)) {
      std::string nodes;
      for (NodeId id : p.nodes) nodes += " " + graph.node(id).name;
      claimed.push_back(p.name + ":" + nodes);
    }
    return claimed;
  }

  BackendRegistry registry_;
  BackendDevice* device_ = nullptr;
};

TEST_F(CpuFusionTest, FusedGraphGivesTheUnfusedNumbers) {
  std::unique_ptr<ExecutablePlan> unfused = CompileWithFusion(Network(), "off");
  std::unique_ptr<ExecutablePlan> fused = CompileWithFusion(Network(), "on");
  ASSERT_NE(unfused, nullptr);
  ASSERT_NE(fused, nullptr);
  EXPECT_TRUE(unfused->partitions().empty());
  std::vector<std::string> names;
  for (const Partition& p : fused->partitions()) names.push_back(p.name);
  EXPECT_THAT(names, ElementsAre("conv2d+relu", "conv2d+relu", "linear+relu",
                                 "linear+relu"));

  absl::StatusOr<Tensor> x = Tensor::FromVector(
      Shape({2, 3, 12, 12}), RandomValues(2 * 3 * 12 * 12, 7), *device_);
  ASSERT_TRUE(x.ok());
  absl::StatusOr<std::vector<Tensor>> want = unfused->Run({*x});
  absl::StatusOr<std::vector<Tensor>> got = fused->Run({*x});
  ASSERT_TRUE(want.ok()) << want.status();
  ASSERT_TRUE(got.ok()) << got.status();
  const std::vector<float> a = *(*want)[0].ToVector();
  const std::vector<float> b = *(*got)[0].ToVector();
  ASSERT_EQ(a.size(), 20u);
  ASSERT_EQ(b.size(), a.size());
  int zeros = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_NEAR(b[i], a[i], 1e-6f * (1 + std::abs(a[i]))) << i;
    zeros += a[i] == 0.0f;
  }
  // The final ReLU did clip something, and not everything.
  EXPECT_GT(zeros, 0);
  EXPECT_LT(zeros, 20);
}

// The fused conv2d+relu alone, on the pointwise (1x1) path and the im2col
// path, several tiles and groups: elementwise max(unfused, 0) of the conv.
TEST_F(CpuFusionTest, FusedConvMatchesConvThenRelu) {
  struct Case {
    int64_t n, c, h, o, k, stride, groups;
  };
  for (const Case& cc : {Case{1, 16, 37, 24, 3, 1, 1}, Case{3, 8, 20, 12, 3, 2, 2},
                         Case{1, 4, 50, 8, 1, 1, 1}}) {
    SCOPED_TRACE(::testing::Message() << "c=" << cc.c << " k=" << cc.k
                                      << " groups=" << cc.groups);
    auto network = [&] {
      Graph g;
      ValueId x = g.AddInput("x", Shape({cc.n, cc.c, cc.h, cc.h}), Device::Cpu());
      AttrMap attrs;
      attrs.Set("stride", std::vector<int64_t>{cc.stride, cc.stride});
      attrs.Set("padding", std::vector<int64_t>{cc.k / 2, cc.k / 2});
      attrs.Set("groups", cc.groups);
      ValueId conv = g.AddNode(
          "conv2d", "conv",
          {x, Constant(g, "w", Shape({cc.o, cc.c / cc.groups, cc.k, cc.k}), 11),
           Constant(g, "b", Shape({cc.o}), 12)},
          attrs);
      g.AddOutput(g.AddNode("relu", "relu", {conv}, AttrMap()));
      return g;
    };
    std::unique_ptr<ExecutablePlan> unfused = CompileWithFusion(network(), "off");
    std::unique_ptr<ExecutablePlan> fused = CompileWithFusion(network(), "on");
    ASSERT_TRUE(unfused != nullptr && fused != nullptr);
    ASSERT_EQ(fused->partitions().size(), 1u);
    absl::StatusOr<Tensor> x = Tensor::FromVector(
        Shape({cc.n, cc.c, cc.h, cc.h}),
        RandomValues(cc.n * cc.c * cc.h * cc.h, 13), *device_);
    ASSERT_TRUE(x.ok());
    const std::vector<float> a = *(*unfused->Run({*x}))[0].ToVector();
    const std::vector<float> b = *(*fused->Run({*x}))[0].ToVector();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_NEAR(b[i], a[i], 1e-6f * (1 + std::abs(a[i]))) << i;
    }
  }
}

// conv2d or linear then clip (ReLU6, and bounds that cut both ways) as one
// partition on every conv path: pointwise, im2col, depthwise, Winograd
// (3x3, stride 1) and linear; bit for bit the unfused pair's numbers.
TEST_F(CpuFusionTest, FusedClipMatchesOpThenClip) {
  struct Case {
    const char* name;
    int64_t c, h, o, k, stride, groups;  // o = 0: linear
    double low, high;
    const char* algorithm = "auto";  // the cpu option conv_algorithm
  };
  const double inf = std::numeric_limits<double>::infinity();
  for (const Case& cc : {Case{"pointwise", 16, 9, 24, 1, 1, 1, 0, 0.5},
                         Case{"im2col strided", 8, 20, 12, 3, 2, 2, -0.3, 0.4},
                         Case{"depthwise", 12, 15, 12, 3, 1, 12, 0, 0.5},
                         Case{"depthwise strided", 12, 16, 12, 3, 2, 12, -inf, 0.25},
                         Case{"winograd2", 16, 20, 16, 3, 1, 1, -0.5, inf, "winograd2"},
                         Case{"winograd4", 16, 20, 16, 3, 1, 1, -0.25, 0.25, "winograd4"},
                         Case{"linear", 40, 1, 0, 0, 1, 1, -0.2, 0.2}}) {
    SCOPED_TRACE(cc.name);
    ASSERT_TRUE(registry_.SetOption("cpu", "conv_algorithm", cc.algorithm).ok());
    const bool linear = cc.o == 0;
    const Shape in = linear ? Shape({3, cc.c}) : Shape({2, cc.c, cc.h, cc.h});
    auto network = [&] {
      Graph g;
      ValueId x = g.AddInput("x", in, Device::Cpu());
      ValueId y;
      if (linear) {
        y = g.AddNode("linear", "fc",
                      {x, Constant(g, "w", Shape({10, cc.c}), 21),
                       Constant(g, "b", Shape({10}), 22)},
                      AttrMap());
      } else {
        AttrMap attrs;
        attrs.Set("stride", std::vector<int64_t>{cc.stride, cc.stride});
        attrs.Set("padding", std::vector<int64_t>{cc.k / 2, cc.k / 2});
        attrs.Set("groups", cc.groups);
        y = g.AddNode("conv2d", "conv",
                      {x, Constant(g, "w", Shape({cc.o, cc.c / cc.groups, cc.k, cc.k}), 23),
                       Constant(g, "b", Shape({cc.o}), 24)},
                      attrs);
      }
      AttrMap clip;
      clip.Set("min", cc.low);
      clip.Set("max", cc.high);
      g.AddOutput(g.AddNode("clip", "clip", {y}, clip));
      return g;
    };
    std::unique_ptr<ExecutablePlan> unfused = CompileWithFusion(network(), "off");
    std::unique_ptr<ExecutablePlan> fused = CompileWithFusion(network(), "on");
    ASSERT_TRUE(unfused != nullptr && fused != nullptr);
    ASSERT_EQ(fused->partitions().size(), 1u);
    EXPECT_EQ(fused->partitions()[0].name, linear ? "linear+clip" : "conv2d+clip");
    // One NaN in the input: the outputs it reaches stay NaN, fused or not.
    std::vector<float> values = RandomValues(in.num_elements(), 25);
    values[values.size() / 2] = std::numeric_limits<float>::quiet_NaN();
    absl::StatusOr<Tensor> x = Tensor::FromVector(in, values, *device_);
    ASSERT_TRUE(x.ok());
    const std::vector<float> a = *(*unfused->Run({*x}))[0].ToVector();
    const std::vector<float> b = *(*fused->Run({*x}))[0].ToVector();
    ASSERT_EQ(a.size(), b.size());
    int at_low = 0, at_high = 0, nans = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      if (std::isnan(a[i])) {
        ASSERT_TRUE(std::isnan(b[i])) << i;
        ++nans;
        continue;
      }
      ASSERT_EQ(b[i], a[i]) << i;
      ASSERT_GE(b[i], static_cast<float>(cc.low)) << i;
      ASSERT_LE(b[i], static_cast<float>(cc.high)) << i;
      at_low += b[i] == static_cast<float>(cc.low);
      at_high += b[i] == static_cast<float>(cc.high);
    }
    EXPECT_GT(nans, 0);
    // The bounds did cut something (where they are finite).
    if (std::isfinite(cc.low)) EXPECT_GT(at_low, 0);
    if (std::isfinite(cc.high)) EXPECT_GT(at_high, 0);
  }
  ASSERT_TRUE(registry_.SetOption("cpu", "conv_algorithm", "auto").ok());
}

TEST_F(CpuFusionTest, ClaimsOnlyPairsWhoseIntermediateNobodyElseNeeds) {
  ASSERT_TRUE(registry_.SetOption("cpu", "fusion", "on").ok());
  EXPECT_THAT(Claimed(Placed(Network())),
              ElementsAre("conv2d+relu: c1/conv2d r1/relu",
                          "conv2d+relu: c2/conv2d r2/relu",
                          "linear+relu: l1/linear r3/relu",
                          "linear+relu: l2/linear r4/relu"));

  Graph g;
  ValueId x = g.AddInput("x", Shape({4, 6}), Device::Cpu());
  ValueId w = Constant(g, "w", Shape({6, 6}), 1);
  // The linear's output is a graph output too: it must be stored.
  ValueId kept = g.AddNode("linear", "kept", {x, w}, AttrMap());
  g.AddOutput(kept);
  ValueId a = g.AddNode("relu", "a", {kept}, AttrMap());
  // Read by the relu and by the add.
  ValueId shared = g.AddNode("linear", "shared", {a, w}, AttrMap());
  ValueId b = g.AddNode("relu", "b", {shared}, AttrMap());
  ValueId sum = g.AddNode("add", "sum", {b, shared}, AttrMap());
  // Not consecutive: a node runs between the linear and its relu.
  ValueId apart = g.AddNode("linear", "apart", {sum, w}, AttrMap());
  ValueId between = g.AddNode("relu", "between", {sum}, AttrMap());
  ValueId c = g.AddNode("relu", "c", {apart}, AttrMap());
  // A relu of a relu: nothing to fuse.
  ValueId d = g.AddNode("relu", "d", {c}, AttrMap());
  // The one pair that qualifies.
  ValueId fine = g.AddNode("linear", "fine", {d, w}, AttrMap());
  g.AddOutput(g.AddNode("relu", "e", {fine}, AttrMap()));
  g.AddOutput(between);
  EXPECT_THAT(Claimed(Placed(std::move(g))),
              ElementsAre("linear+relu: fine/linear e/relu"));

  ASSERT_TRUE(registry_.SetOption("cpu", "fusion", "off").ok());
  EXPECT_THAT(Claimed(Placed(Network())), ::testing::IsEmpty());
}

TEST_F(CpuFusionTest, RefusesPartitionsItDidNotClaim) {
  Graph g = Placed(Network());
  // flatten -> linear is no partition of this device.
  Partition bogus{{4, 5}, "flatten+linear"};
  absl::StatusOr<std::unique_ptr<Kernel>> kernel =
      device_->CreatePartitionKernel(bogus, g);
  EXPECT_EQ(kernel.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(kernel.status().message(),
              HasSubstr("cpu:0 runs only the partitions it claims (conv2d or linear, "
                        "then relu or clip), not 'flatten+linear' of 2 nodes"));
}

}  // namespace
}  // namespace cpu
}  // namespace switchyard
