// GeluFusionPass on hand-built exact-GELU decompositions as torch.onnx
// exports them below opset 20: the three mul arrangements and both operand
// orders, div by sqrt(2) and mul by 1/sqrt(2), every broken condition that
// must leave the graph as it was, and the fused graph's output against the
// unfused one on the cpu backend.

#include "passes/gelu_fusion.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/optimization_pass_registry.h"
#include "core/passes/shape_inference.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/pass_test_util.h"

namespace switchyard {
namespace {

using ::testing::ElementsAre;

BackendDevice& Cpu() { return **BackendRegistry::Global().GetDevice(Device::Cpu()); }

ValueId Scalar(Graph& graph, const std::string& name, float value,
               const Shape& shape = Shape()) {
  absl::StatusOr<Tensor> t = Tensor::FromVector(
      shape, std::vector<float>(static_cast<size_t>(shape.num_elements()), value),
      Cpu());
  EXPECT_TRUE(t.ok()) << t.status();
  return graph.AddConstant(name, *t);
}

// How the pattern is written.
enum class Form {
  kHalfLast,    // mul(mul(x, a), 0.5): torch's export
  kHalfOfA,     // mul(x, mul(a, 0.5))
  kHalfOfX,     // mul(mul(x, 0.5), a)
};

struct Spec {
  Form form = Form::kHalfLast;
  bool swap = false;        // every add and mul with its operands swapped
  bool mul_by_inverse = false;  // mul(x, 1/sqrt 2) rather than div(x, sqrt 2)
  float divisor = 1.4142135f;   // sqrt 2 as float32 rounds it
  float inverse = 0.70710678f;
  float one = 1.0f;
  float half = 0.5f;
  Shape constant_shape = Shape();
};

struct Built {
  Graph graph;
  ValueId x, t, e, a, inner, y;
};

ValueId Binary(Graph& g, const char* op, const std::string& layer, ValueId l,
               ValueId r, bool swap) {
  return g.AddNode(op, layer, swap ? std::vector<ValueId>{r, l}
                                   : std::vector<ValueId>{l, r},
                   AttrMap());
}

// x [2, 3, 8] -> the decomposition; `x_producer` (when set) makes x a
// node's output rather than the graph input.
Built Build(const Spec& s, Built b = Built(), ValueId x = -1) {
  Graph& g = b.graph;
  b.x = x >= 0 ? x : g.AddInput("x", Shape({2, 3, 8}), Device::Cpu());
  const Shape& cs = s.constant_shape;
  if (s.mul_by_inverse) {
    b.t = Binary(g, "mul", "act/Mul_0", b.x, Scalar(g, "inv", s.inverse, cs), s.swap);
  } else {
    b.t = g.AddNode("div", "act/Div", {b.x, Scalar(g, "c", s.divisor, cs)}, AttrMap());
  }
  b.e = g.AddNode("erf", "act/Erf", {b.t}, AttrMap());
  b.a = Binary(g, "add", "act/Add", b.e, Scalar(g, "one", s.one, cs), s.swap);
  const ValueId half = Scalar(g, "half", s.half, cs);
  switch (s.form) {
    case Form::kHalfLast:
      b.inner = Binary(g, "mul", "act/Mul", b.x, b.a, s.swap);
      b.y = Binary(g, "mul", "act/Mul_1", b.inner, half, s.swap);
      break;
    case Form::kHalfOfA:
      b.inner = Binary(g, "mul", "act/Mul", b.a, half, s.swap);
      b.y = Binary(g, "mul", "act/Mul_1", b.x, b.inner, s.swap);
      break;
    case Form::kHalfOfX:
      b.inner = Binary(g, "mul", "act/Mul", b.x, half, s.swap);
      b.y = Binary(g, "mul", "act/Mul_1", b.inner, b.a, s.swap);
      break;
  }
  return b;
}

bool InferAndFuse(Graph& graph) {
  absl::StatusOr<bool> inferred = ShapeInferencePass().Run(graph);
  EXPECT_TRUE(inferred.ok()) << inferred.status();
  absl::StatusOr<bool> changed = GeluFusionPass().Run(graph);
  EXPECT_TRUE(changed.ok()) << changed.status();
  return changed.ok() && *changed;
}

void ExpectFusedToOneGelu(const Built& b) {
  ASSERT_EQ(b.graph.nodes().size(), 1u);
  const Node& gelu = b.graph.node(0);
  EXPECT_EQ(gelu.op, "gelu");
  EXPECT_EQ(gelu.name, "act/gelu");
  EXPECT_THAT(gelu.inputs, ElementsAre(b.x));
  EXPECT_THAT(gelu.outputs, ElementsAre(b.y));
  EXPECT_THAT(b.graph.outputs(), ElementsAre(b.y));
  for (ValueId v : {b.t, b.e, b.a, b.inner}) {
    EXPECT_EQ(b.graph.value(v).producer, -1) << b.graph.value(v).name;
  }
}

TEST(GeluFusionTest, FusesEveryFormAndOperandOrder) {
  for (Form form : {Form::kHalfLast, Form::kHalfOfA, Form::kHalfOfX}) {
    for (bool swap : {false, true}) {
      for (bool mul_by_inverse : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "form " << static_cast<int>(form)
                                          << " swap " << swap << " inverse "
                                          << mul_by_inverse);
        Spec s;
        s.form = form;
        s.swap = swap;
        s.mul_by_inverse = mul_by_inverse;
        Built b = Build(s);
        b.graph.AddOutput(b.y);
        const std::string y_name = b.graph.value(b.y).name;
        ASSERT_TRUE(InferAndFuse(b.graph));
        ExpectFusedToOneGelu(b);
        EXPECT_EQ(b.graph.value(b.y).name, y_name);
      }
    }
  }
}

TEST(GeluFusionTest, OneElementConstantsOfAnyRankAndExactValues) {
  Spec s;
  s.constant_shape = Shape({1, 1, 1});
  s.divisor = static_cast<float>(std::sqrt(2.0));
  Built b = Build(s);
  b.graph.AddOutput(b.y);
  ASSERT_TRUE(InferAndFuse(b.graph));
  ExpectFusedToOneGelu(b);
}

// Two in a row (vit's MLP has one per block): both fuse, the second reads
// the first's output.
TEST(GeluFusionTest, ChainedPatternsBothFuse) {
  Built first = Build(Spec());
  const ValueId first_y = first.y;
  Built second = Build(Spec(), std::move(first), first_y);
  second.graph.AddOutput(second.y);
  ASSERT_TRUE(InferAndFuse(second.graph));
  ASSERT_EQ(second.graph.nodes().size(), 2u);
  EXPECT_EQ(second.graph.node(0).op, "gelu");
  EXPECT_EQ(second.graph.node(1).op, "gelu");
  EXPECT_THAT(second.graph.node(1).inputs, ElementsAre(first_y));
  EXPECT_THAT(second.graph.outputs(), ElementsAre(second.y));
}

void ExpectUnchanged(Built& b) {
  GeluFusionPass pass;
  ExpectPassLeavesGraph(pass, b.graph);
}

TEST(GeluFusionTest, LeavesAnIntermediateWithAnotherReader) {
  for (int which = 0; which < 4; ++which) {
    SCOPED_TRACE(which);
    Built b = Build(Spec());
    const ValueId read[] = {b.t, b.e, b.a, b.inner};
    b.graph.AddOutput(b.y);
    b.graph.AddOutput(b.graph.AddNode("relu", "side", {read[which]}, AttrMap()));
    ExpectUnchanged(b);
  }
}

TEST(GeluFusionTest, LeavesAnIntermediateThatIsAGraphOutput) {
  Built b = Build(Spec());
  b.graph.AddOutput(b.y);
  b.graph.AddOutput(b.e);
  ExpectUnchanged(b);
}

TEST(GeluFusionTest, LeavesWrongConstants) {
  Spec divisor;
  divisor.divisor = 1.5f;
  Spec near_divisor;  // 1e-5 relative off: beyond the 1e-6 allowed
  near_divisor.divisor = 1.4142135f * (1 + 1e-5f);
  Spec inverse;
  inverse.mul_by_inverse = true;
  inverse.inverse = 0.7f;
  Spec one;
  one.one = 2.0f;
  Spec half;
  half.half = 0.6f;
  Spec half_of_a;
  half_of_a.form = Form::kHalfOfA;
  half_of_a.half = 0.25f;
  Spec half_of_x;
  half_of_x.form = Form::kHalfOfX;
  half_of_x.half = 1.0f;
  Spec not_one_element;
  not_one_element.constant_shape = Shape({8});
  int i = 0;
  for (const Spec& s : {divisor, near_divisor, inverse, one, half, half_of_a,
                        half_of_x, not_one_element}) {
    SCOPED_TRACE(i++);
    Built b = Build(s);
    b.graph.AddOutput(b.y);
    ExpectUnchanged(b);
  }
}

TEST(GeluFusionTest, LeavesADivisorThatIsNotAConstant) {
  Graph g;
  const ValueId x = g.AddInput("x", Shape({4}), Device::Cpu());
  const ValueId c = g.AddInput("c", Shape(), Device::Cpu());
  const ValueId t = g.AddNode("div", "d", {x, c}, AttrMap());
  const ValueId e = g.AddNode("erf", "e", {t}, AttrMap());
  const ValueId a = g.AddNode("add", "a", {e, Scalar(g, "one", 1)}, AttrMap());
  const ValueId m = g.AddNode("mul", "m", {x, a}, AttrMap());
  g.AddOutput(g.AddNode("mul", "h", {m, Scalar(g, "half", 0.5f)}, AttrMap()));
  Built b;
  b.graph = std::move(g);
  ExpectUnchanged(b);
}

// The outer mul multiplies something other than x: that is no gelu.
TEST(GeluFusionTest, LeavesAMulByAnotherValue) {
  Graph g;
  const ValueId x = g.AddInput("x", Shape({4}), Device::Cpu());
  const ValueId z = g.AddInput("z", Shape({4}), Device::Cpu());
  const ValueId t =
      g.AddNode("div", "d", {x, Scalar(g, "c", 1.4142135f)}, AttrMap());
  const ValueId e = g.AddNode("erf", "e", {t}, AttrMap());
  const ValueId a = g.AddNode("add", "a", {e, Scalar(g, "one", 1)}, AttrMap());
  const ValueId m = g.AddNode("mul", "m", {z, a}, AttrMap());
  g.AddOutput(g.AddNode("mul", "h", {m, Scalar(g, "half", 0.5f)}, AttrMap()));
  Built b;
  b.graph = std::move(g);
  ExpectUnchanged(b);
}

// A one-element constant of higher rank would broadcast x bigger.
TEST(GeluFusionTest, LeavesAConstantThatBroadcastsXBigger) {
  Graph g;
  const ValueId x = g.AddInput("x", Shape({4}), Device::Cpu());
  const ValueId t =
      g.AddNode("div", "d", {x, Scalar(g, "c", 1.4142135f, Shape({1, 1}))}, AttrMap());
  const ValueId e = g.AddNode("erf", "e", {t}, AttrMap());
  const ValueId a = g.AddNode("add", "a", {e, Scalar(g, "one", 1)}, AttrMap());
  const ValueId m = g.AddNode("mul", "m", {x, a}, AttrMap());
  g.AddOutput(g.AddNode("mul", "h", {m, Scalar(g, "half", 0.5f)}, AttrMap()));
  Built b;
  b.graph = std::move(g);
  ExpectUnchanged(b);
}

std::vector<float> CompileAndRun(const Spec& s, const std::vector<float>& x,
                                 bool fuse, std::string* ops) {
  Built b = Build(s);
  b.graph.AddOutput(b.y);
  CompileOptions options;
  if (!fuse) options.disabled_passes = {kGeluFusionPassName};
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
      Compile(std::move(b.graph), options);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return {};
  for (const Node& node : (*plan)->graph().nodes()) *ops += node.op + " ";
  absl::StatusOr<Tensor> input = Tensor::FromVector(Shape({2, 3, 8}), x, Cpu());
  EXPECT_TRUE(input.ok());
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run({*input});
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  absl::StatusOr<std::vector<float>> values = (*out)[0].ToVector();
  EXPECT_TRUE(values.ok());
  return values.ok() ? *values : std::vector<float>();
}

TEST(GeluFusionTest, FusedOutputMatchesTheDecompositionOnCpu) {
  std::vector<float> x;
  for (int i = 0; i < 48; ++i) x.push_back(-6.0f + 0.25f * i);  // [-6, 5.75]
  for (Form form : {Form::kHalfLast, Form::kHalfOfA, Form::kHalfOfX}) {
    SCOPED_TRACE(static_cast<int>(form));
    Spec s;
    s.form = form;
    std::string fused_ops, plain_ops;
    const std::vector<float> fused = CompileAndRun(s, x, true, &fused_ops);
    const std::vector<float> plain = CompileAndRun(s, x, false, &plain_ops);
    EXPECT_EQ(fused_ops, "gelu ");
    EXPECT_THAT(plain_ops, ::testing::HasSubstr("erf"));
    ASSERT_EQ(fused.size(), x.size());
    ASSERT_EQ(plain.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const double exact =
          0.5 * x[i] * (1.0 + std::erf(static_cast<double>(x[i]) / std::sqrt(2.0)));
      // Both within float rounding of the exact GELU, so of each other.
      EXPECT_NEAR(fused[i], exact, 1e-6 * (1 + std::fabs(exact))) << x[i];
      EXPECT_NEAR(fused[i], plain[i], 2e-6 * (1 + std::fabs(exact))) << x[i];
    }
  }
}

TEST(GeluFusionTest, LinkingPassesRegistersIt) {
  EXPECT_TRUE(OptimizationPassRegistry::Global().Contains(kGeluFusionPassName));
}

}  // namespace
}  // namespace switchyard
