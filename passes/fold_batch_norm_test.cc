// FoldBatchNormPass on hand-built graphs: the folded weights and bias
// against hand-computed values, the rewiring, and every case it must leave
// alone. (tests/golden_test.cc and models/batch_norm_test.cc compare whole
// models run with and without it.)

#include "passes/fold_batch_norm.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/backend_registry.h"
#include "core/graph.h"
#include "core/optimization_pass_registry.h"
#include "core/tensor.h"
#include "core/testing/host_backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class FoldBatchNormTest : public ::testing::Test {
 protected:
  FoldBatchNormTest() {
    EXPECT_TRUE(
        registry_
            .Register("host",
                      [] { return testing::MakeHostBackend("host", 2); })
            .ok());
  }

  ValueId Constant(Graph& graph, const std::string& name, const Shape& shape,
                   const std::vector<float>& values) {
    return ConstantOn(graph, name, shape, values, device_);
  }
  ValueId ConstantOn(Graph& graph, const std::string& name, const Shape& shape,
                     const std::vector<float>& values, const Device& device) {
    absl::StatusOr<Tensor> t =
        Tensor::FromVector(shape, values, device, registry_);
    EXPECT_TRUE(t.ok()) << t.status();
    return graph.AddConstant(name, *t);
  }

  std::vector<float> ValuesOf(const Graph& graph, ValueId id) {
    const Value& v = graph.value(id);
    EXPECT_TRUE(v.constant.has_value()) << v.name;
    if (!v.constant.has_value()) return {};
    absl::StatusOr<std::vector<float>> values = v.constant->ToVector();
    EXPECT_TRUE(values.ok()) << values.status();
    return values.ok() ? *values : std::vector<float>();
  }

  // input [1, 2, 3, 3] -> conv (2 -> 2 channels, 1x1, bias unless
  // `conv_bias` is false) -> batch_norm (epsilon 0.25) -> returned.
  // Scale per channel: gamma / sqrt(var + eps) = 2 / 2 = 1 and 3 / 1 = 3.
  struct ConvBn {
    Graph graph;
    ValueId input, weight, conv_out, bn_out;
    NodeId conv, bn;
  };
  ConvBn Build(bool conv_bias = true) {
    ConvBn m;
    m.input = m.graph.AddInput("input", Shape({1, 2, 3, 3}), device_);
    m.weight =
        Constant(m.graph, "conv.weight", Shape({2, 2, 1, 1}), {1, 2, 3, 4});
    std::vector<ValueId> conv_operands = {m.input, m.weight};
    if (conv_bias) {
      conv_operands.push_back(
          Constant(m.graph, "conv.bias", Shape({2}), {0.5f, -1}));
    }
    AttrMap conv_attrs;
    m.conv_out = m.graph.AddNode("conv2d", "conv", conv_operands, conv_attrs);
    m.conv = m.graph.value(m.conv_out).producer;
    const ValueId gamma = Constant(m.graph, "bn.weight", Shape({2}), {2, 3});
    const ValueId beta = Constant(m.graph, "bn.bias", Shape({2}), {0, 3});
    const ValueId mean =
        Constant(m.graph, "bn.running_mean", Shape({2}), {1, -1});
    const ValueId var =
        Constant(m.graph, "bn.running_var", Shape({2}), {3.75f, 0.75f});
    AttrMap bn_attrs;
    bn_attrs.Set("epsilon", 0.25);
    m.bn_out = m.graph.AddNode("batch_norm", "bn",
                               {m.conv_out, gamma, beta, mean, var}, bn_attrs);
    m.bn = m.graph.value(m.bn_out).producer;
    return m;
  }

  BackendRegistry registry_;
  Device device_ = *Device::Create("host", 0);
};

TEST_F(FoldBatchNormTest, FoldsIntoTheConvAndRewiresTheReaders) {
  ConvBn m = Build();
  const ValueId relu = m.graph.AddNode("relu", "relu", {m.bn_out}, AttrMap());
  m.graph.AddOutput(relu);

  FoldBatchNormPass pass;
  EXPECT_EQ(pass.name(), "fold-batch-norm");
  absl::StatusOr<bool> changed = pass.Run(m.graph);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);

  ASSERT_EQ(m.graph.nodes().size(), 2u);
  const Node& conv = m.graph.node(0);
  const Node& relu_node = m.graph.node(1);
  EXPECT_EQ(conv.op, "conv2d");
  EXPECT_EQ(relu_node.op, "relu");
  EXPECT_EQ(relu_node.id, 1);
  EXPECT_THAT(relu_node.inputs, ElementsAre(m.conv_out));
  EXPECT_EQ(m.graph.value(relu).producer, 1);
  ASSERT_EQ(conv.inputs.size(), 3u);
  EXPECT_EQ(conv.inputs[0], m.input);
  // W' = W * scale per output channel; b' = (b - mean) * scale + beta.
  EXPECT_EQ(m.graph.value(conv.inputs[1]).name, "conv.weight+bn");
  EXPECT_THAT(ValuesOf(m.graph, conv.inputs[1]), ElementsAre(1, 2, 9, 12));
  EXPECT_EQ(m.graph.value(conv.inputs[2]).name, "conv.bias+bn");
  EXPECT_THAT(ValuesOf(m.graph, conv.inputs[2]), ElementsAre(-0.5f, 3));
  EXPECT_EQ(m.graph.value(conv.inputs[1]).device, device_);
  EXPECT_EQ(m.graph.value(conv.inputs[1]).shape, Shape({2, 2, 1, 1}));
  // The layer's own parameters are untouched.
  EXPECT_THAT(ValuesOf(m.graph, m.weight), ElementsAre(1, 2, 3, 4));
  // The removed output is read by nothing and made by nothing.
  EXPECT_EQ(m.graph.value(m.bn_out).producer, -1);

  // Nothing left to fold.
  changed = pass.Run(m.graph);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
}

TEST_F(FoldBatchNormTest, AGraphOutputMovesToTheConv) {
  ConvBn m = Build(/*conv_bias=*/false);
  m.graph.AddOutput(m.bn_out);
  absl::StatusOr<bool> changed = FoldBatchNormPass().Run(m.graph);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  ASSERT_EQ(m.graph.nodes().size(), 1u);
  EXPECT_THAT(m.graph.outputs(), ElementsAre(m.conv_out));
  // No conv bias: b' = -mean * scale + beta.
  const Node& conv = m.graph.node(0);
  ASSERT_EQ(conv.inputs.size(), 3u);
  EXPECT_EQ(m.graph.value(conv.inputs[2]).name, "conv.bias+bn");
  EXPECT_THAT(ValuesOf(m.graph, conv.inputs[2]), ElementsAre(-1, 6));
}

TEST_F(FoldBatchNormTest, LeavesAConvOutputThatHasAnotherReader) {
  ConvBn m = Build();
  const ValueId side = m.graph.AddNode("relu", "side", {m.conv_out}, AttrMap());
  m.graph.AddOutput(m.bn_out);
  m.graph.AddOutput(side);
  absl::StatusOr<bool> changed = FoldBatchNormPass().Run(m.graph);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_EQ(m.graph.nodes().size(), 3u);
  EXPECT_EQ(m.graph.node(1).op, "batch_norm");
  EXPECT_EQ(m.graph.node(0).inputs[1], m.weight);
}

TEST_F(FoldBatchNormTest, LeavesAConvOutputThatIsAGraphOutput) {
  ConvBn m = Build();
  m.graph.AddOutput(m.conv_out);
  m.graph.AddOutput(m.bn_out);
  absl::StatusOr<bool> changed = FoldBatchNormPass().Run(m.graph);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(m.graph.nodes().size(), 2u);
}

TEST_F(FoldBatchNormTest, LeavesStatisticsThatAreNotConstants) {
  Graph graph;
  const ValueId x = graph.AddInput("input", Shape({1, 2, 1, 1}), device_);
  const ValueId var = graph.AddInput("var", Shape({2}), device_);
  const ValueId w =
      Constant(graph, "conv.weight", Shape({2, 2, 1, 1}), {1, 0, 0, 1});
  const ValueId conv = graph.AddNode("conv2d", "conv", {x, w}, AttrMap());
  const ValueId one = Constant(graph, "one", Shape({2}), {1, 1});
  const ValueId zero = Constant(graph, "zero", Shape({2}), {0, 0});
  graph.AddOutput(graph.AddNode("batch_norm", "bn",
                                {conv, one, zero, zero, var}, AttrMap()));
  absl::StatusOr<bool> changed = FoldBatchNormPass().Run(graph);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(graph.nodes().size(), 2u);
}

// A statistic on another device is a placement error strict placement
// reports; folding must not hide it by copying the value.
TEST_F(FoldBatchNormTest, LeavesConstantsOnAnotherDevice) {
  Graph graph;
  const ValueId x = graph.AddInput("input", Shape({1, 2, 1, 1}), device_);
  const ValueId w =
      Constant(graph, "conv.weight", Shape({2, 2, 1, 1}), {1, 0, 0, 1});
  const ValueId conv = graph.AddNode("conv2d", "conv", {x, w}, AttrMap());
  const ValueId one = Constant(graph, "one", Shape({2}), {1, 1});
  const ValueId zero = Constant(graph, "zero", Shape({2}), {0, 0});
  const ValueId var =
      ConstantOn(graph, "var", Shape({2}), {1, 1}, *Device::Create("host", 1));
  graph.AddOutput(graph.AddNode("batch_norm", "bn",
                                {conv, one, zero, zero, var}, AttrMap()));
  absl::StatusOr<bool> changed = FoldBatchNormPass().Run(graph);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(graph.nodes().size(), 2u);
}

TEST_F(FoldBatchNormTest, LeavesABatchNormNotAfterAConv) {
  Graph graph;
  const ValueId x = graph.AddInput("input", Shape({1, 2, 1, 1}), device_);
  const ValueId relu = graph.AddNode("relu", "relu", {x}, AttrMap());
  const ValueId one = Constant(graph, "one", Shape({2}), {1, 1});
  const ValueId zero = Constant(graph, "zero", Shape({2}), {0, 0});
  graph.AddOutput(graph.AddNode("batch_norm", "bn",
                                {relu, one, zero, zero, one}, AttrMap()));
  const ValueId bn_on_input =
      graph.AddNode("batch_norm", "bn2", {x, one, zero, zero, one}, AttrMap());
  graph.AddOutput(bn_on_input);
  absl::StatusOr<bool> changed = FoldBatchNormPass().Run(graph);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(graph.nodes().size(), 3u);
}

TEST(GraphRemoveNodeTest, ChecksItsReplacements) {
  Graph graph;
  const ValueId x = graph.AddInput("input", Shape({2}), Device::Cpu());
  const ValueId a = graph.AddNode("relu", "a", {x}, AttrMap());
  const ValueId b = graph.AddNode("relu", "b", {a}, AttrMap());
  graph.AddOutput(b);
  const ValueId none[] = {x, x};
  absl::Status status = graph.RemoveNode(0, none);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("has 1 outputs but 2 replacements"));
  const ValueId itself[] = {a};
  EXPECT_EQ(graph.RemoveNode(0, itself).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(graph.RemoveNode(5, itself).code(),
            absl::StatusCode::kInvalidArgument);

  const ValueId input[] = {x};
  ASSERT_TRUE(graph.RemoveNode(0, input).ok());
  ASSERT_EQ(graph.nodes().size(), 1u);
  EXPECT_EQ(graph.node(0).name, "b/relu");
  EXPECT_THAT(graph.node(0).inputs, ElementsAre(x));
  EXPECT_EQ(graph.value(b).producer, 0);
  EXPECT_THAT(graph.outputs(), ElementsAre(b));
}

// Linking //passes is what makes Compile fold.
TEST(FoldBatchNormRegistrationTest, LinkingPassesRegistersIt) {
  EXPECT_TRUE(
      OptimizationPassRegistry::Global().Contains(kFoldBatchNormPassName));
}

}  // namespace
}  // namespace switchyard
