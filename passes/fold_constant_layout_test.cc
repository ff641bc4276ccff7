// FoldConstantLayoutPass on hand-built graphs: transpose and reshape chains
// of a constant folded to one constant with the right values, the reader
// rewired, and what it must leave alone (computed operands, graph outputs).

#include <memory>
#include <vector>

#include "core/backend_registry.h"
#include "core/graph.h"
#include "core/optimization_pass_registry.h"
#include "core/passes/shape_inference.h"
#include "core/tensor.h"
#include "core/testing/host_backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/pass_test_util.h"

namespace switchyard {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

// The pass as Compile gets it: from the registry linking the library
// filled (it has no header).
std::unique_ptr<Pass> FoldConstantLayout() {
  for (const OptimizationPassRegistry::Entry& e : OptimizationPassRegistry::Global().Entries()) {
    if (e.name == "fold-constant-layout") return e.make();
  }
  ADD_FAILURE() << "fold-constant-layout is not registered";
  return nullptr;
}

class FoldConstantLayoutTest : public ::testing::Test {
 protected:
  FoldConstantLayoutTest() {
    EXPECT_TRUE(registry_
                    .Register("host", [] { return testing::MakeHostBackend("host", 1); })
                    .ok());
  }
  ValueId Constant(Graph& graph, const Shape& shape, const std::vector<float>& values) {
    absl::StatusOr<Tensor> t = Tensor::FromVector(shape, values, device_, registry_);
    EXPECT_TRUE(t.ok()) << t.status();
    return graph.AddConstant("w", *t);
  }
  BackendRegistry registry_;
  const Device device_ = *Device::Create("host", 0);
};

TEST_F(FoldConstantLayoutTest, TransposeThenReshapeOfAConstantIsOneConstant) {
  Graph graph;
  // [2, 3, 2] -> transpose (0, 2, 1) -> [2, 2, 3] -> reshape [4, 3].
  std::vector<float> w(12);
  for (int i = 0; i < 12; ++i) w[i] = static_cast<float>(i);
  const ValueId weight = Constant(graph, Shape({2, 3, 2}), w);
  AttrMap perm;
  perm.Set("perm", std::vector<int64_t>{0, 2, 1});
  const ValueId t = graph.AddNode("transpose", "t", {weight}, perm);
  AttrMap shape;
  shape.Set("shape", std::vector<int64_t>{4, 3});
  const ValueId r = graph.AddNode("reshape", "r", {t}, shape);
  const ValueId x = graph.AddInput("x", Shape({4, 3}), device_);
  graph.AddOutput(graph.AddNode("add", "sum", {x, r}, AttrMap()));
  ASSERT_TRUE(ShapeInferencePass().Run(graph).ok());

  std::unique_ptr<Pass> pass = FoldConstantLayout();
  ASSERT_NE(pass, nullptr);
  absl::StatusOr<bool> changed = pass->Run(graph);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  ASSERT_EQ(graph.nodes().size(), 1u);  // the add alone
  const Value& folded = graph.value(graph.node(0).inputs[1]);
  ASSERT_TRUE(folded.constant.has_value());
  EXPECT_EQ(folded.constant->shape(), Shape({4, 3}));
  // w[a][b][c] at [a][c][b]: rows (0,2,4) (1,3,5) (6,8,10) (7,9,11).
  EXPECT_THAT(*folded.constant->ToVector(),
              ElementsAreArray({0, 2, 4, 1, 3, 5, 6, 8, 10, 7, 9, 11}));
}

TEST_F(FoldConstantLayoutTest, LeavesComputedOperandsAndGraphOutputs) {
  Graph graph;
  const ValueId x = graph.AddInput("x", Shape({2, 3}), device_);
  AttrMap perm;
  perm.Set("perm", std::vector<int64_t>{1, 0});
  graph.AddOutput(graph.AddNode("transpose", "of_input", {x}, perm));
  std::unique_ptr<Pass> pass = FoldConstantLayout();
  ASSERT_NE(pass, nullptr);
  ExpectPassLeavesGraph(*pass, graph);

  Graph out;
  const ValueId w = Constant(out, Shape({2, 3}), {1, 2, 3, 4, 5, 6});
  out.AddOutput(out.AddNode("transpose", "an_output", {w}, perm));
  ExpectPassLeavesGraph(*pass, out);
}

TEST(FoldConstantLayoutRegistrationTest, LinkingPassesRegistersIt) {
  EXPECT_TRUE(OptimizationPassRegistry::Global().Contains("fold-constant-layout"));
}

}  // namespace
}  // namespace switchyard
