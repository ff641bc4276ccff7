#include "core/graph.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

using ::testing::HasSubstr;

TEST(GraphTest, NamesNodesByLayerAndPrints) {
  Graph g;
  ValueId x = g.AddInput("input", Shape({1, 4}), Device::Cpu());
  ValueId y = g.AddNode("relu", "features.1", {x}, AttrMap());
  g.AddOutput(y);
  EXPECT_EQ(g.node(0).name, "features.1/relu");
  EXPECT_EQ(g.value(y).name, "features.1/relu:0");
  EXPECT_EQ(g.value(y).producer, 0);
  EXPECT_EQ(g.ToText(),
            "input input [1, 4] on cpu:0\n"
            "features.1/relu  relu([1, 4]) -> ?  on ?\n"
            "output features.1/relu:0\n");
  EXPECT_THAT(g.ToDot(), HasSubstr("v0 -> n0;"));
  EXPECT_THAT(g.ToDot(), HasSubstr("n0 -> out1;"));
}

TEST(GraphTest, InsertNodeBeforeKeepsOrder) {
  Graph g;
  ValueId x = g.AddInput("input", Shape({4}), Device::Cpu());
  ValueId a = g.AddNode("relu", "a", {x}, AttrMap());
  AttrMap to;
  to.Set("device", std::string("other:0"));
  ValueId copied = g.InsertNodeBefore(0, "copy", "", {x}, to);
  EXPECT_EQ(g.node(0).op, "copy");
  EXPECT_EQ(g.node(1).op, "relu");
  EXPECT_EQ(g.value(copied).producer, 0);
  EXPECT_EQ(g.value(a).producer, 1);
}

}  // namespace
}  // namespace switchyard
