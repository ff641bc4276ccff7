#include "core/graph_verifier.h"

#include <cstdio>
#include <memory>
#include <string>

#include "core/pass.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

using ::testing::HasSubstr;

// x -> a/relu -> b/relu
Graph TwoNodes() {
  Graph g;
  ValueId x = g.AddInput("x", Shape({2}), Device::Cpu());
  ValueId a = g.AddNode("relu", "a", {x}, AttrMap());
  g.AddOutput(g.AddNode("relu", "b", {a}, AttrMap()));
  return g;
}

TEST(GraphVerifierTest, AWellFormedGraphPasses) {
  EXPECT_TRUE(VerifyGraph(TwoNodes()).ok());
}

TEST(GraphVerifierTest, ReadingAValueBeforeItIsMadeIsCaught) {
  Graph g = TwoNodes();
  g.mutable_node(0).inputs[0] = g.node(1).outputs[0];
  absl::Status status = VerifyGraph(g);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("node 'a/relu' (op relu, layer 'a') reads 'b/relu:0' "
                        "before the node that makes it"));
}

TEST(GraphVerifierTest, APlacedNodeReadingAnotherDeviceIsCaught) {
  Graph g = TwoNodes();
  const Device other = *Device::Parse("ref:1");
  for (NodeId n : {0, 1}) {
    g.mutable_node(n).device = Device::Cpu();
    g.mutable_value(g.node(n).outputs[0]).device = Device::Cpu();
  }
  EXPECT_TRUE(VerifyGraph(g).ok());
  g.mutable_value(g.node(0).outputs[0]).device = other;
  absl::Status status = VerifyGraph(g);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()), HasSubstr("output 'a/relu:0' on ref:1"));
}

// A pass that breaks the graph: the first node reads the last one's output.
class BreakingPass : public Pass {
 public:
  std::string name() const override { return "breaking-pass"; }
  absl::StatusOr<bool> Run(Graph& graph) override {
    graph.mutable_node(0).inputs[0] = graph.node(1).outputs[0];
    return true;
  }
};

class NoopPass : public Pass {
 public:
  std::string name() const override { return "noop"; }
  absl::StatusOr<bool> Run(Graph& graph) override { return false; }
};

TEST(PassPipelineTest, TheVerifierNamesThePassThatBrokeTheGraph) {
  PassPipeline pipeline;
  pipeline.Add(std::make_unique<BreakingPass>());
  pipeline.set_verify(true);
  Graph g = TwoNodes();
  absl::StatusOr<bool> result = pipeline.Run(g);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr("after pass breaking-pass: graph invariant broken"));
}

TEST(PassPipelineTest, DumpsAfterANamedPassAndRefusesAnUnknownOne) {
  PassPipeline pipeline;
  pipeline.Add(std::make_unique<NoopPass>());
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  pipeline.set_dump_after("noop", out);
  Graph g = TwoNodes();
  ASSERT_TRUE(pipeline.Run(g).ok());
  std::rewind(out);
  char text[256] = {};
  [[maybe_unused]] const size_t bytes_read =
      std::fread(text, 1, sizeof(text) - 1, out);
  std::fclose(out);
  EXPECT_THAT(std::string(text), HasSubstr("after noop:\ninput x [2] on cpu:0\na/relu"));

  pipeline.set_dump_after("shape-inference", stderr);
  absl::StatusOr<bool> result = pipeline.Run(g);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr("the pipeline's passes are noop (or 'all')"));
}

}  // namespace
}  // namespace switchyard
