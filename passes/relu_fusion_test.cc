// The rules for fusing a node with the relu after it, on graphs built by
// hand (no shapes, no kernels: the rules read only the graph's structure
// and placement).

#include "passes/relu_fusion.h"

#include <vector>

#include "core/graph.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

const Device kGpu = *Device::Create("cuda", 0);

// x -> conv2d(x, w, b) -> relu, every node on `device`; returns the graph
// and leaves the relu's output unconsumed (callers add outputs).
struct ConvRelu {
  Graph graph;
  ValueId x, w, b, conv, relu;
};

ConvRelu MakeConvRelu(const Device& device = kGpu) {
  ConvRelu g;
  g.x = g.graph.AddInput("x", Shape({1, 2, 4, 4}), device);
  g.w = g.graph.AddInput("w", Shape({3, 2, 3, 3}), device);
  g.b = g.graph.AddInput("b", Shape({3}), device);
  g.conv = g.graph.AddNode("conv2d", "features.0", {g.x, g.w, g.b}, AttrMap());
  g.relu = g.graph.AddNode("relu", "features.1", {g.conv}, AttrMap());
  for (const Node& node : g.graph.nodes()) {
    g.graph.mutable_node(node.id).device = device;
  }
  return g;
}

void Place(Graph& graph, const Device& device) {
  for (const Node& node : graph.nodes()) {
    if (!node.device.has_value()) graph.mutable_node(node.id).device = device;
  }
}

TEST(ReluFusionTest, ConvThenItsReluFuse) {
  ConvRelu g = MakeConvRelu();
  g.graph.AddOutput(g.relu);
  std::vector<ReluFusion> fusions = FindReluFusions(g.graph, kGpu);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0].producer, 0);
  EXPECT_EQ(fusions[0].relu, 1);
}

TEST(ReluFusionTest, OnlyOnTheDeviceAsked) {
  ConvRelu g = MakeConvRelu();
  g.graph.AddOutput(g.relu);
  EXPECT_TRUE(FindReluFusions(g.graph, *Device::Create("cuda", 1)).empty());
  // The relu on another device than the conv: nothing.
  g.graph.mutable_node(1).device = Device::Cpu();
  EXPECT_TRUE(FindReluFusions(g.graph, kGpu).empty());
}

TEST(ReluFusionTest, NotWhenTheIntermediateIsAGraphOutput) {
  ConvRelu g = MakeConvRelu();
  g.graph.AddOutput(g.relu);
  g.graph.AddOutput(g.conv);
  EXPECT_TRUE(FindReluFusions(g.graph, kGpu).empty());
}

TEST(ReluFusionTest, NotWhenAnotherNodeReadsTheIntermediate) {
  ConvRelu g = MakeConvRelu();
  ValueId sum = g.graph.AddNode("add", "residual", {g.relu, g.conv}, AttrMap());
  Place(g.graph, kGpu);
  g.graph.AddOutput(sum);
  EXPECT_TRUE(FindReluFusions(g.graph, kGpu).empty());
}

TEST(ReluFusionTest, NotWhenNothingReadsTheRelu) {
  ConvRelu g = MakeConvRelu();
  ValueId other = g.graph.AddNode("relu", "other", {g.x}, AttrMap());
  Place(g.graph, kGpu);
  g.graph.AddOutput(other);
  EXPECT_TRUE(FindReluFusions(g.graph, kGpu).empty());
}

TEST(ReluFusionTest, NotWhenTheReluIsNotNext) {
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({2, 4}), kGpu);
  ValueId w = graph.AddInput("w", Shape({3, 4}), kGpu);
  ValueId y = graph.AddNode("linear", "fc", {x, w}, AttrMap());
  ValueId other = graph.AddNode("relu", "other", {x}, AttrMap());
  ValueId r = graph.AddNode("relu", "act", {y}, AttrMap());
  Place(graph, kGpu);
  graph.AddOutput(other);
  graph.AddOutput(r);
  EXPECT_TRUE(FindReluFusions(graph, kGpu).empty());
}

TEST(ReluFusionTest, NotWhenAnOperandRepeats) {
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({4, 4}), kGpu);
  ValueId y = graph.AddNode("linear", "fc", {x, x}, AttrMap());
  graph.AddOutput(graph.AddNode("relu", "act", {y}, AttrMap()));
  Place(graph, kGpu);
  EXPECT_TRUE(FindReluFusions(graph, kGpu).empty());
}

TEST(ReluFusionTest, EveryPairOfAChainAndNoReluTwice) {
  // linear -> relu -> linear -> relu -> relu: two pairs; the last relu reads
  // a relu and stays alone.
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({2, 4}), kGpu);
  ValueId w1 = graph.AddInput("w1", Shape({4, 4}), kGpu);
  ValueId w2 = graph.AddInput("w2", Shape({4, 4}), kGpu);
  ValueId h = graph.AddNode("linear", "fc1", {x, w1}, AttrMap());
  h = graph.AddNode("relu", "act1", {h}, AttrMap());
  h = graph.AddNode("linear", "fc2", {h, w2}, AttrMap());
  h = graph.AddNode("relu", "act2", {h}, AttrMap());
  graph.AddOutput(graph.AddNode("relu", "act3", {h}, AttrMap()));
  Place(graph, kGpu);
  std::vector<ReluFusion> fusions = FindReluFusions(graph, kGpu);
  ASSERT_EQ(fusions.size(), 2u);
  EXPECT_EQ(fusions[0].producer, 0);
  EXPECT_EQ(fusions[0].relu, 1);
  EXPECT_EQ(fusions[1].producer, 2);
  EXPECT_EQ(fusions[1].relu, 3);
}

TEST(ReluFusionTest, NameIsTheProducersPlusRelu) {
  EXPECT_EQ(ReluFusionName("conv2d"), "conv2d+relu");
  EXPECT_EQ(ReluFusionName("linear"), "linear+relu");
  EXPECT_EQ(ReluFusionName("conv2d", "clip"), "conv2d+clip");
}

// Other followers (the cpu device's clip): the same rules, only the ops
// asked for, and never a follower as the producer.
TEST(ReluFusionTest, ActivationFusionsTakeTheFollowersAsked) {
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({1, 2, 4, 4}), kGpu);
  ValueId w = graph.AddInput("w", Shape({2, 2, 1, 1}), kGpu);
  ValueId conv = graph.AddNode("conv2d", "conv", {x, w}, AttrMap());
  ValueId clip = graph.AddNode("clip", "clip", {conv}, AttrMap());
  ValueId clip2 = graph.AddNode("clip", "clip2", {clip}, AttrMap());
  ValueId relu = graph.AddNode("relu", "relu", {clip2}, AttrMap());
  graph.AddOutput(relu);
  Place(graph, kGpu);
  // Relu alone: clip2 -> relu is a pair (the device picks the producers it
  // has kernels for); conv -> clip is not.
  const std::vector<ReluFusion> relus = FindReluFusions(graph, kGpu);
  ASSERT_EQ(relus.size(), 1u);
  EXPECT_EQ(relus[0].producer, 2);
  const std::vector<ReluFusion> fusions =
      FindActivationFusions(graph, kGpu, {"relu", "clip"});
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0].producer, 0);
  EXPECT_EQ(fusions[0].relu, 1);
}

}  // namespace
}  // namespace switchyard
