// ScatterRowsPass on torchvision's per-level RoI merge (expand + axis-0
// scatter_elements): rewritten into scatter_nd with identical outputs on the
// cpu backend, duplicates and reductions included; and every broken
// condition leaves the graph as it was.

#include "passes/scatter_rows.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/optimization_pass_registry.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/gather_scatter_attrs.h"
#include "ops/shape_attrs.h"
#include "passes/pass_test_util.h"

namespace switchyard {
namespace {

BackendDevice& Cpu() { return **BackendRegistry::Global().GetDevice(Device::Cpu()); }

struct Spec {
  Shape data = Shape({6, 4, 2, 2});
  Shape rows = Shape({3, 1, 1, 1});
  std::vector<int64_t> row_values = {4, 0, 4};  // row 4 twice: the last wins
  Shape updates = Shape({3, 4, 2, 2});
  int64_t axis = 0;
  ScatterReduction reduction = ScatterReduction::kNone;
  bool expand_also_an_output = false;
};

struct Built {
  Graph graph;
  ValueId y = -1;
};

Built Build(const Spec& s) {
  Built b;
  Graph& g = b.graph;
  const ValueId data = g.AddInput("data", s.data, Device::Cpu());
  absl::StatusOr<Tensor> rows =
      Tensor::FromValues<int64_t>(s.rows, s.row_values, Cpu());
  EXPECT_TRUE(rows.ok()) << rows.status();
  const ValueId j = g.AddConstant("rows", *rows);
  const ValueId updates = g.AddInput("updates", s.updates, Device::Cpu());
  ExpandAttrs expand;
  expand.shape = s.updates.dims();
  const ValueId i = g.AddNode("expand", "pool/Expand", {j}, expand.ToAttrMap());
  ScatterElementsAttrs scatter;
  scatter.axis = s.axis;
  scatter.reduction = s.reduction;
  b.y = g.AddNode("scatter_elements", "pool/ScatterElements", {data, i, updates},
                  scatter.ToAttrMap());
  g.AddOutput(b.y);
  if (s.expand_also_an_output) g.AddOutput(i);
  return b;
}

std::vector<float> Iota(const Shape& shape, float start) {
  std::vector<float> v(static_cast<size_t>(shape.num_elements()));
  for (size_t k = 0; k < v.size(); ++k) v[k] = start + static_cast<float>(k);
  return v;
}

// Compiles (with or without the pass) and runs on the cpu; the ops of the
// compiled graph go to `ops`.
std::vector<float> CompileAndRun(const Spec& s, bool rewrite, std::string* ops) {
  Built b = Build(s);
  CompileOptions options;
  if (!rewrite) options.disabled_passes = {kScatterRowsPassName};
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
      Compile(std::move(b.graph), options);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return {};
  for (const Node& node : (*plan)->graph().nodes()) *ops += node.op + " ";
  absl::StatusOr<Tensor> data = Tensor::FromVector(s.data, Iota(s.data, 0.5f), Cpu());
  absl::StatusOr<Tensor> updates =
      Tensor::FromVector(s.updates, Iota(s.updates, 1000.0f), Cpu());
  EXPECT_TRUE(data.ok() && updates.ok());
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run({*data, *updates});
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  absl::StatusOr<std::vector<float>> values = (*out)[0].ToVector();
  EXPECT_TRUE(values.ok());
  return values.ok() ? *values : std::vector<float>();
}

TEST(ScatterRowsTest, RowScattersBecomeScatterNdWithTheSameOutput) {
  for (ScatterReduction reduction :
       {ScatterReduction::kNone, ScatterReduction::kAdd, ScatterReduction::kMax}) {
    for (int64_t axis : {0, -4}) {
      SCOPED_TRACE(static_cast<int>(reduction));
      Spec s;
      s.reduction = reduction;
      s.axis = axis;
      std::string rewritten_ops, plain_ops;
      const std::vector<float> rewritten = CompileAndRun(s, true, &rewritten_ops);
      const std::vector<float> plain = CompileAndRun(s, false, &plain_ops);
      EXPECT_EQ(rewritten_ops, "reshape scatter_nd ");
      EXPECT_EQ(plain_ops, "expand scatter_elements ");
      ASSERT_EQ(rewritten.size(), static_cast<size_t>(s.data.num_elements()));
      EXPECT_EQ(rewritten, plain);
    }
  }
}

TEST(ScatterRowsTest, NoRowsAtAll) {
  Spec s;
  s.rows = Shape({0, 1, 1, 1});
  s.row_values = {};
  s.updates = Shape({0, 4, 2, 2});
  std::string rewritten_ops, plain_ops;
  EXPECT_EQ(CompileAndRun(s, true, &rewritten_ops), CompileAndRun(s, false, &plain_ops));
  EXPECT_EQ(rewritten_ops, "reshape scatter_nd ");
}

TEST(ScatterRowsTest, AnExpandReadElsewhereStays) {
  Spec s;
  s.expand_also_an_output = true;
  Built b = Build(s);
  ASSERT_TRUE(ShapeInferencePass().Run(b.graph).ok());
  absl::StatusOr<bool> changed = ScatterRowsPass().Run(b.graph);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  std::string ops;
  for (const Node& node : b.graph.nodes()) ops += node.op + " ";
  EXPECT_EQ(ops, "expand reshape scatter_nd ");
}

TEST(ScatterRowsTest, LeavesOtherScatters) {
  std::vector<Spec> specs(4);
  specs[0].axis = 1;  // along another axis
  specs[0].rows = Shape({1, 3, 1, 1});
  specs[0].updates = Shape({1, 3, 2, 2});
  specs[0].data = Shape({1, 4, 2, 2});
  specs[0].row_values = {0, 1, 2};
  // Indices that vary inside a row.
  specs[1].rows = Shape({3, 4, 1, 1});
  specs[1].row_values = std::vector<int64_t>(12, 1);
  // Updates narrower than data's rows: a partial row, not a whole one.
  specs[2].updates = Shape({3, 2, 2, 2});
  // Rows given at a lower rank ([3, 1, 1] broadcasts along other dims).
  specs[3].rows = Shape({3, 1, 1});
  specs[3].updates = Shape({3, 3, 2, 2});
  specs[3].data = Shape({6, 3, 2, 2});
  for (size_t k = 0; k < specs.size(); ++k) {
    SCOPED_TRACE(k);
    Built b = Build(specs[k]);
    ScatterRowsPass pass;
    ExpectPassLeavesGraph(pass, b.graph);
  }
}

TEST(ScatterRowsTest, LinkingPassesRegistersIt) {
  EXPECT_TRUE(OptimizationPassRegistry::Global().Contains(kScatterRowsPassName));
}

}  // namespace
}  // namespace switchyard
