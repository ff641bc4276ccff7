// LayerNormFusionPass on hand-built decompositions as torch.onnx exports
// them below opset 17: what it fuses (operand orders, several trailing
// axes, without gamma and beta, gamma with leading 1s), every broken
// condition that must leave the graph as it was, and the fused graph's
// output against the unfused one on the cpu backend.

#include "passes/layer_norm_fusion.h"

#include <cmath>
#include <memory>
#include <random>
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
#include "ops/norm_attrs.h"

namespace switchyard {
namespace {

using ::testing::ElementsAre;
using ::testing::Each;

BackendDevice& Cpu() { return **BackendRegistry::Global().GetDevice(Device::Cpu()); }

ValueId Constant(Graph& graph, const std::string& name, const Shape& shape,
                 const std::vector<float>& values) {
  absl::StatusOr<Tensor> t = Tensor::FromVector(shape, values, Cpu());
  EXPECT_TRUE(t.ok()) << t.status();
  return graph.AddConstant(name, *t);
}

AttrMap ReduceAxes(std::vector<int64_t> axes, bool keepdims = true) {
  AttrMap attrs;
  attrs.Set("axes", axes);
  attrs.Set("keepdims", keepdims);
  return attrs;
}

// The decomposition, as convnext's and vit's exports have it, with knobs
// for each condition the pass checks.
struct Spec {
  Shape x_shape = Shape({2, 3, 4});
  DType dtype = DType::kFloat32;
  std::vector<int64_t> mean_axes = {2};
  std::vector<int64_t> var_axes = {-1};
  float exponent = 2;
  Shape eps_shape = Shape();
  float eps = 1e-5f;
  bool with_mul = true;
  bool with_add = true;
  Shape gamma_shape = Shape({4});
  bool swap_operands = false;  // add(eps, var), mul(gamma, y), add(beta, .)
};

struct Built {
  Graph graph;
  ValueId x, mean, d, pow, var, var_eps, root, y, scaled, out;
  ValueId gamma = -1, beta = -1;
};

Built Build(const Spec& s) {
  Built b;
  Graph& g = b.graph;
  b.x = g.AddInput("x", s.x_shape, Device::Cpu(), s.dtype);
  const ValueId two = Constant(g, "two", Shape(), {s.exponent});
  const ValueId eps = Constant(
      g, "eps", s.eps_shape,
      std::vector<float>(static_cast<size_t>(s.eps_shape.num_elements()), s.eps));
  b.mean = g.AddNode("reduce_mean", "ln/ReduceMean", {b.x}, ReduceAxes(s.mean_axes));
  b.d = g.AddNode("sub", "ln/Sub", {b.x, b.mean}, AttrMap());
  b.pow = g.AddNode("pow", "ln/Pow", {b.d, two}, AttrMap());
  b.var = g.AddNode("reduce_mean", "ln/ReduceMean_1", {b.pow}, ReduceAxes(s.var_axes));
  b.var_eps = g.AddNode("add", "ln/Add",
                        s.swap_operands ? std::vector<ValueId>{eps, b.var}
                                        : std::vector<ValueId>{b.var, eps},
                        AttrMap());
  b.root = g.AddNode("sqrt", "ln/Sqrt", {b.var_eps}, AttrMap());
  b.y = g.AddNode("div", "ln/Div", {b.d, b.root}, AttrMap());
  b.out = b.y;
  const int64_t n = s.gamma_shape.num_elements();
  if (s.with_mul) {
    std::vector<float> gamma;
    for (int64_t i = 0; i < n; ++i) gamma.push_back(0.5f + 0.25f * i);
    b.gamma = Constant(g, "ln.weight", s.gamma_shape, gamma);
    b.out = b.scaled = g.AddNode("mul", "ln/Mul",
                                 s.swap_operands ? std::vector<ValueId>{b.gamma, b.out}
                                                 : std::vector<ValueId>{b.out, b.gamma},
                                 AttrMap());
  }
  if (s.with_add) {
    std::vector<float> beta;
    for (int64_t i = 0; i < n; ++i) beta.push_back(-1.0f + 0.5f * i);
    b.beta = Constant(g, "ln.bias", s.gamma_shape, beta);
    b.out = g.AddNode("add", "ln/Add_1",
                      s.swap_operands ? std::vector<ValueId>{b.beta, b.out}
                                      : std::vector<ValueId>{b.out, b.beta},
                      AttrMap());
  }
  return b;
}

// Shape inference, then the pass; whether it changed the graph.
bool InferAndFuse(Graph& graph) {
  absl::StatusOr<bool> inferred = ShapeInferencePass().Run(graph);
  EXPECT_TRUE(inferred.ok()) << inferred.status();
  absl::StatusOr<bool> changed = LayerNormFusionPass().Run(graph);
  EXPECT_TRUE(changed.ok()) << changed.status();
  return changed.ok() && *changed;
}

std::vector<float> ValuesOf(const Graph& graph, ValueId id) {
  const Value& v = graph.value(id);
  if (!v.constant.has_value()) {
    ADD_FAILURE() << v.name << " is not a constant";
    return {};
  }
  absl::StatusOr<std::vector<float>> values = v.constant->ToVector();
  EXPECT_TRUE(values.ok()) << values.status();
  return values.ok() ? *values : std::vector<float>();
}

TEST(LayerNormFusionTest, FusesTheExportedPatternIntoOneNode) {
  Built b = Build(Spec());
  b.graph.AddOutput(b.out);
  const std::string out_name = b.graph.value(b.out).name;

  LayerNormFusionPass pass;
  EXPECT_EQ(pass.name(), "layer-norm-fusion");
  ASSERT_TRUE(InferAndFuse(b.graph));

  ASSERT_EQ(b.graph.nodes().size(), 1u);
  const Node& ln = b.graph.node(0);
  EXPECT_EQ(ln.op, "layer_norm");
  EXPECT_EQ(ln.layer, "ln");
  EXPECT_EQ(ln.name, "ln/layer_norm");
  EXPECT_THAT(ln.inputs, ElementsAre(b.x, b.gamma, b.beta));
  // The graph output is the same value, made by the fused node.
  EXPECT_THAT(b.graph.outputs(), ElementsAre(b.out));
  EXPECT_EQ(b.graph.value(b.out).name, out_name);
  EXPECT_EQ(b.graph.value(b.out).producer, 0);
  absl::StatusOr<LayerNormAttrs> attrs = LayerNormAttrs::FromAttrMap(ln.attrs);
  ASSERT_TRUE(attrs.ok()) << attrs.status();
  EXPECT_EQ(attrs->axis, 2);
  EXPECT_EQ(attrs->epsilon, static_cast<double>(1e-5f));
  // The intermediates are read by nothing and made by nothing.
  for (ValueId v : {b.mean, b.d, b.pow, b.var, b.var_eps, b.root, b.y, b.scaled}) {
    EXPECT_EQ(b.graph.value(v).producer, -1) << b.graph.value(v).name;
  }
  // The fused graph still passes shape inference; nothing left to fuse.
  absl::StatusOr<bool> inferred = ShapeInferencePass().Run(b.graph);
  EXPECT_TRUE(inferred.ok()) << inferred.status();
  absl::StatusOr<bool> again = pass.Run(b.graph);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
}

TEST(LayerNormFusionTest, EitherOperandOrderOfAddAndMul) {
  Spec s;
  s.swap_operands = true;
  Built b = Build(s);
  b.graph.AddOutput(b.out);
  ASSERT_TRUE(InferAndFuse(b.graph));
  ASSERT_EQ(b.graph.nodes().size(), 1u);
  EXPECT_THAT(b.graph.node(0).inputs, ElementsAre(b.x, b.gamma, b.beta));
}

TEST(LayerNormFusionTest, ReadersOfTheOutputKeepReadingIt) {
  Built b = Build(Spec());
  const ValueId relu = b.graph.AddNode("relu", "after", {b.out}, AttrMap());
  b.graph.AddOutput(relu);
  b.graph.AddOutput(b.out);
  ASSERT_TRUE(InferAndFuse(b.graph));
  ASSERT_EQ(b.graph.nodes().size(), 2u);
  EXPECT_EQ(b.graph.node(0).op, "layer_norm");
  EXPECT_THAT(b.graph.node(1).inputs, ElementsAre(b.out));
  EXPECT_THAT(b.graph.outputs(), ElementsAre(relu, b.out));
}

TEST(LayerNormFusionTest, SeveralTrailingAxes) {
  Spec s;
  s.mean_axes = {-1, -2};
  s.var_axes = {1, 2};
  s.gamma_shape = Shape({3, 4});
  Built b = Build(s);
  b.graph.AddOutput(b.out);
  ASSERT_TRUE(InferAndFuse(b.graph));
  ASSERT_EQ(b.graph.nodes().size(), 1u);
  absl::StatusOr<LayerNormAttrs> attrs =
      LayerNormAttrs::FromAttrMap(b.graph.node(0).attrs);
  ASSERT_TRUE(attrs.ok());
  EXPECT_EQ(attrs->axis, 1);
}

TEST(LayerNormFusionTest, WithoutMulOrAddTheScaleIsOnes) {
  Spec s;
  s.with_mul = false;
  s.with_add = false;
  s.eps_shape = Shape({1, 1, 1});  // one element, not rank 0
  Built b = Build(s);
  b.graph.AddOutput(b.out);
  ASSERT_TRUE(InferAndFuse(b.graph));
  ASSERT_EQ(b.graph.nodes().size(), 1u);
  const Node& ln = b.graph.node(0);
  ASSERT_EQ(ln.inputs.size(), 2u);
  EXPECT_EQ(ln.inputs[0], b.x);
  EXPECT_EQ(b.graph.value(ln.inputs[1]).shape, Shape({4}));
  EXPECT_THAT(ValuesOf(b.graph, ln.inputs[1]), Each(1.0f));
  EXPECT_EQ(ValuesOf(b.graph, ln.inputs[1]).size(), 4u);
}

TEST(LayerNormFusionTest, GammaWithLeadingOnesIsReshaped) {
  Spec s;
  s.gamma_shape = Shape({1, 1, 4});
  Built b = Build(s);
  b.graph.AddOutput(b.out);
  ASSERT_TRUE(InferAndFuse(b.graph));
  ASSERT_EQ(b.graph.nodes().size(), 1u);
  const Node& ln = b.graph.node(0);
  ASSERT_EQ(ln.inputs.size(), 3u);
  EXPECT_EQ(b.graph.value(ln.inputs[1]).shape, Shape({4}));
  EXPECT_THAT(ValuesOf(b.graph, ln.inputs[1]), ElementsAre(0.5f, 0.75f, 1.0f, 1.25f));
  EXPECT_EQ(b.graph.value(ln.inputs[2]).shape, Shape({4}));
  EXPECT_THAT(ValuesOf(b.graph, ln.inputs[2]), ElementsAre(-1.0f, -0.5f, 0.0f, 0.5f));
  // The model's own parameters are untouched.
  EXPECT_EQ(b.graph.value(b.gamma).shape, Shape({1, 1, 4}));
}

// A mul whose gamma is not x's trailing shape is not part of the layer
// norm: the core is fused and the mul (and the add after it) stay.
TEST(LayerNormFusionTest, AMulByANonTrailingShapeStaysAfterTheFusedNode) {
  Spec s;
  s.gamma_shape = Shape({3, 1});
  Built b = Build(s);
  b.graph.AddOutput(b.out);
  ASSERT_TRUE(InferAndFuse(b.graph));
  ASSERT_EQ(b.graph.nodes().size(), 3u);
  EXPECT_EQ(b.graph.node(0).op, "layer_norm");
  EXPECT_EQ(b.graph.node(0).outputs[0], b.y);
  EXPECT_EQ(b.graph.node(0).inputs.size(), 2u);  // a ones scale, no bias
  EXPECT_EQ(b.graph.node(1).op, "mul");
  EXPECT_THAT(b.graph.node(1).inputs, ElementsAre(b.y, b.gamma));
  EXPECT_EQ(b.graph.node(2).op, "add");
}

// Each broken condition: the graph is exactly as it was.
void ExpectUnchanged(Built& b) {
  LayerNormFusionPass pass;
  ExpectPassLeavesGraph(pass, b.graph);
}

TEST(LayerNormFusionTest, LeavesAnIntermediateWithAnotherReader) {
  for (int which = 0; which < 4; ++which) {
    SCOPED_TRACE(which);
    Built b = Build(Spec());
    const ValueId read[] = {b.mean, b.d, b.var, b.root};
    b.graph.AddOutput(b.out);
    b.graph.AddOutput(b.graph.AddNode("relu", "side", {read[which]}, AttrMap()));
    ExpectUnchanged(b);
  }
}

TEST(LayerNormFusionTest, LeavesAnIntermediateThatIsAGraphOutput) {
  Built b = Build(Spec());
  b.graph.AddOutput(b.out);
  b.graph.AddOutput(b.var_eps);
  ExpectUnchanged(b);
}

TEST(LayerNormFusionTest, LeavesAnExponentOtherThanTwo) {
  Spec s;
  s.exponent = 3;
  Built b = Build(s);
  b.graph.AddOutput(b.out);
  ExpectUnchanged(b);
}

TEST(LayerNormFusionTest, LeavesAxesThatAreNotTrailing) {
  Spec s;
  s.mean_axes = {1};
  s.var_axes = {1};
  s.gamma_shape = Shape({4});
  Built b = Build(s);
  b.graph.AddOutput(b.out);
  ExpectUnchanged(b);
}

TEST(LayerNormFusionTest, LeavesReductionsOverDifferentAxes) {
  Spec s;
  s.mean_axes = {1, 2};
  s.var_axes = {2};
  Built b = Build(s);
  b.graph.AddOutput(b.out);
  ExpectUnchanged(b);
}

TEST(LayerNormFusionTest, LeavesAnEpsilonThatIsNotOneElement) {
  Spec s;
  s.eps_shape = Shape({4});
  Built b = Build(s);
  b.graph.AddOutput(b.out);
  ExpectUnchanged(b);
}

TEST(LayerNormFusionTest, LeavesAnEpsilonThatIsNotAConstant) {
  Built b;
  Graph& g = b.graph;
  b.x = g.AddInput("x", Shape({2, 4}), Device::Cpu());
  const ValueId eps = g.AddInput("eps", Shape(), Device::Cpu());
  const ValueId two = Constant(g, "two", Shape(), {2});
  const ValueId mean = g.AddNode("reduce_mean", "m", {b.x}, ReduceAxes({1}));
  const ValueId d = g.AddNode("sub", "s", {b.x, mean}, AttrMap());
  const ValueId p = g.AddNode("pow", "p", {d, two}, AttrMap());
  const ValueId var = g.AddNode("reduce_mean", "v", {p}, ReduceAxes({1}));
  const ValueId ve = g.AddNode("add", "a", {var, eps}, AttrMap());
  const ValueId root = g.AddNode("sqrt", "r", {ve}, AttrMap());
  g.AddOutput(g.AddNode("div", "y", {d, root}, AttrMap()));
  ExpectUnchanged(b);
}

TEST(LayerNormFusionTest, LeavesFloat64) {
  Built b;
  Graph& g = b.graph;
  b.x = g.AddInput("x", Shape({2, 4}), Device::Cpu(), DType::kFloat64);
  const std::vector<double> two_value = {2.0}, eps_value = {1e-5};
  absl::StatusOr<Tensor> two = Tensor::FromValues<double>(Shape(), two_value, Cpu());
  absl::StatusOr<Tensor> eps = Tensor::FromValues<double>(Shape(), eps_value, Cpu());
  ASSERT_TRUE(two.ok() && eps.ok());
  const ValueId mean = g.AddNode("reduce_mean", "m", {b.x}, ReduceAxes({1}));
  const ValueId d = g.AddNode("sub", "s", {b.x, mean}, AttrMap());
  const ValueId p = g.AddNode("pow", "p", {d, g.AddConstant("two", *two)}, AttrMap());
  const ValueId var = g.AddNode("reduce_mean", "v", {p}, ReduceAxes({1}));
  const ValueId ve =
      g.AddNode("add", "a", {var, g.AddConstant("eps", *eps)}, AttrMap());
  const ValueId root = g.AddNode("sqrt", "r", {ve}, AttrMap());
  g.AddOutput(g.AddNode("div", "y", {d, root}, AttrMap()));
  ExpectUnchanged(b);
}

TEST(LayerNormFusionTest, LeavesADivisionOfSomethingElse) {
  Built b;
  Graph& g = b.graph;
  b.x = g.AddInput("x", Shape({2, 4}), Device::Cpu());
  const ValueId two = Constant(g, "two", Shape(), {2});
  const ValueId eps = Constant(g, "eps", Shape(), {1e-5f});
  const ValueId mean = g.AddNode("reduce_mean", "m", {b.x}, ReduceAxes({1}));
  const ValueId d = g.AddNode("sub", "s", {b.x, mean}, AttrMap());
  const ValueId p = g.AddNode("pow", "p", {d, two}, AttrMap());
  const ValueId var = g.AddNode("reduce_mean", "v", {p}, ReduceAxes({1}));
  const ValueId ve = g.AddNode("add", "a", {var, eps}, AttrMap());
  const ValueId root = g.AddNode("sqrt", "r", {ve}, AttrMap());
  // d is read by pow and a div, but the div divides x, not d.
  g.AddOutput(g.AddNode("div", "y", {b.x, root}, AttrMap()));
  g.AddOutput(g.AddNode("div", "z", {d, two}, AttrMap()));
  ExpectUnchanged(b);
}

// The fused graph computes what the decomposition does, on the cpu backend.
std::vector<float> CompileAndRun(const Spec& s, const std::vector<float>& x,
                                 bool fuse, std::string* ops) {
  Built b = Build(s);
  b.graph.AddOutput(b.out);
  CompileOptions options;
  if (!fuse) options.disabled_passes = {kLayerNormFusionPassName};
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
      Compile(std::move(b.graph), options);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return {};
  for (const Node& node : (*plan)->graph().nodes()) *ops += node.op + " ";
  absl::StatusOr<Tensor> input = Tensor::FromVector(s.x_shape, x, Cpu());
  EXPECT_TRUE(input.ok());
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run({*input});
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  absl::StatusOr<std::vector<float>> values = (*out)[0].ToVector();
  EXPECT_TRUE(values.ok());
  return values.ok() ? *values : std::vector<float>();
}

TEST(LayerNormFusionTest, FusedOutputMatchesTheDecompositionOnCpu) {
  for (const bool affine : {true, false}) {
    SCOPED_TRACE(affine);
    Spec s;
    s.x_shape = Shape({3, 5, 48});
    s.gamma_shape = Shape({48});
    s.with_mul = s.with_add = affine;
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(2.0f, 3.0f);  // a mean far from 0
    std::vector<float> x(3 * 5 * 48);
    for (float& v : x) v = normal(rng);
    std::string fused_ops, plain_ops;
    const std::vector<float> fused = CompileAndRun(s, x, true, &fused_ops);
    const std::vector<float> plain = CompileAndRun(s, x, false, &plain_ops);
    EXPECT_EQ(fused_ops, "layer_norm ");
    EXPECT_THAT(plain_ops, ::testing::HasSubstr("pow"));
    ASSERT_EQ(fused.size(), x.size());
    ASSERT_EQ(plain.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_NEAR(fused[i], plain[i], 2e-5f * (1 + std::fabs(plain[i]))) << i;
    }
  }
}

// Linking //passes is what makes Compile fuse.
TEST(LayerNormFusionTest, LinkingPassesRegistersIt) {
  EXPECT_TRUE(
      OptimizationPassRegistry::Global().Contains(kLayerNormFusionPassName));
}

}  // namespace
}  // namespace switchyard
