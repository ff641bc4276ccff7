#include "core/buffer_plan.h"

#include "core/graph.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

// Shapes and devices set by hand, as shape inference and placement would.
void Annotate(Graph& g, ValueId v, const Shape& shape) {
  g.mutable_value(v).shape = shape;
  g.mutable_value(v).device = Device::Cpu();
}

TEST(BufferPlanTest, ChainReusesTwoSlots) {
  Graph g;
  ValueId x = g.AddInput("x", Shape({100}), Device::Cpu());
  ValueId a = g.AddNode("relu", "a", {x}, AttrMap());
  ValueId b = g.AddNode("relu", "b", {a}, AttrMap());
  ValueId c = g.AddNode("relu", "c", {b}, AttrMap());
  ValueId d = g.AddNode("relu", "d", {c}, AttrMap());
  g.AddOutput(d);
  for (ValueId v : {a, b, c, d}) Annotate(g, v, Shape({100}));
  BufferPlan plan = *PlanBuffers(g);
  EXPECT_EQ(plan.slots.size(), 2u);
  EXPECT_NE(plan.value_slot[a], plan.value_slot[b]);
  EXPECT_EQ(plan.value_slot[a], plan.value_slot[c]);
  EXPECT_EQ(plan.value_slot[d], -1);  // outputs are fresh per run
  EXPECT_EQ(plan.value_slot[x], -1);
  EXPECT_EQ(plan.planned_bytes, 800u);
  EXPECT_EQ(plan.unplanned_bytes, 1200u);
}

TEST(BufferPlanTest, LiveValuesNeverShareAndSlotsGrow) {
  Graph g;
  ValueId x = g.AddInput("x", Shape({10}), Device::Cpu());
  ValueId a = g.AddNode("relu", "a", {x}, AttrMap());
  ValueId b = g.AddNode("relu", "b", {a}, AttrMap());
  ValueId c = g.AddNode("add", "c", {a, b}, AttrMap());  // a still live here
  ValueId d = g.AddNode("relu", "d", {c}, AttrMap());
  g.AddOutput(d);
  Annotate(g, a, Shape({10}));
  Annotate(g, b, Shape({10}));
  Annotate(g, c, Shape({40}));
  Annotate(g, d, Shape({10}));
  BufferPlan plan = *PlanBuffers(g);
  EXPECT_NE(plan.value_slot[a], plan.value_slot[b]);
  EXPECT_NE(plan.value_slot[c], plan.value_slot[a]);
  EXPECT_NE(plan.value_slot[c], plan.value_slot[b]);
  for (const BufferPlan::Slot& s : plan.slots) EXPECT_GE(s.bytes, 40u);
}

// TopK's values unused, its indices read later: the unused output frees
// its slot only after the node, so the two never share one (the kernel
// writes both: a Faster R-CNN's RPN read its indices back as garbage).
TEST(BufferPlanTest, OutputsOfOneNodeNeverShareASlot) {
  Graph g;
  ValueId x = g.AddInput("x", Shape({100}), Device::Cpu());
  ValueId warm = g.AddNode("relu", "warm", {x}, AttrMap());  // leaves a free slot behind
  ValueId used = g.AddNode("relu", "used", {warm}, AttrMap());
  std::vector<ValueId> topk =
      g.AddNodeWithOutputs("topk", "topk", {used}, AttrMap(), 2);
  ValueId y = g.AddNode("relu", "y", {topk[1]}, AttrMap());
  g.AddOutput(y);
  for (ValueId v : {warm, used, topk[0], topk[1]}) Annotate(g, v, Shape({100}));
  Annotate(g, y, Shape({100}));
  BufferPlan plan = *PlanBuffers(g);
  EXPECT_NE(plan.value_slot[topk[0]], plan.value_slot[topk[1]]);
  EXPECT_NE(plan.value_slot[topk[1]], plan.value_slot[used]);
}

TEST(BufferPlanTest, DevicesDoNotShareSlots) {
  Graph g;
  ValueId x = g.AddInput("x", Shape({10}), Device::Cpu());
  ValueId a = g.AddNode("relu", "a", {x}, AttrMap());
  ValueId b = g.AddNode("relu", "b", {a}, AttrMap());
  ValueId c = g.AddNode("relu", "c", {b}, AttrMap());
  g.AddOutput(g.AddNode("relu", "d", {c}, AttrMap()));
  Annotate(g, a, Shape({10}));
  Annotate(g, b, Shape({10}));
  Annotate(g, c, Shape({10}));
  g.mutable_value(c).device = *Device::Parse("other:0");
  BufferPlan plan = *PlanBuffers(g);
  EXPECT_EQ(plan.slots.size(), 3u);
}

TEST(BufferPlanTest, UnplacedGraphIsAnError) {
  Graph g;
  ValueId x = g.AddInput("x", Shape({10}), Device::Cpu());
  ValueId a = g.AddNode("relu", "a", {x}, AttrMap());
  g.AddOutput(g.AddNode("relu", "b", {a}, AttrMap()));
  EXPECT_EQ(PlanBuffers(g).status().code(), absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace switchyard
