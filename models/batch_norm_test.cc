// BatchNorm2d in models: the fold-batch-norm pass gives the same outputs as
// running batch_norm (1e-5 of the output's largest magnitude) on conv + bn
// (+ relu) models with and without conv bias, grouped convs and eps
// (tests/golden_test.cc checks both against PyTorch), and leaves a conv
// whose output has another reader alone.

#include "models/batch_norm.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/compile.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/conv2d.h"
#include "models/parameterless_layers.h"
#include "models/sequential.h"

namespace switchyard {
namespace {

using nn::BatchNorm2d;
using nn::Conv2d;
using nn::Conv2dOptions;
using nn::ReLU;
using nn::Sequential;

int CountOps(const Graph& graph, const std::string& op) {
  int n = 0;
  for (const Node& node : graph.nodes()) n += node.op == op ? 1 : 0;
  return n;
}

// Every parameter and buffer drawn from `seed`: weights N(0, 0.3), BN
// weights in [0.5, 1.5], biases and means in [-0.5, 0.5], variances in
// [0.05, 2] (some small, so the scale is far from 1).
std::map<std::string, HostArray> RandomState(const Module& model,
                                             uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::map<std::string, HostArray> state;
  for (const StateSpec& spec : model.StateSpecs()) {
    std::vector<float> values(spec.shape.num_elements());
    for (float& v : values) {
      if (spec.name.find("running_var") != std::string::npos) {
        v = 0.05f + 1.95f * (UniformSample(rng, 1) + 1) / 2;
      } else if (spec.shape.rank() == 1 &&
                 spec.name.find("weight") != std::string::npos) {
        v = 1 + UniformSample(rng, 0.5f);
      } else if (spec.shape.rank() == 1) {
        v = UniformSample(rng, 0.5f);
      } else {
        v = NormalSample(rng, 0.3f);
      }
    }
    if (spec.dtype == DType::kInt64) {
      state[spec.name] = HostArray::Of<int64_t>(spec.shape, {100});
    } else {
      state[spec.name] = HostArray(spec.shape, std::move(values));
    }
  }
  return state;
}

// The model on `x`, compiled with folding on or off.
struct RunResult {
  std::vector<float> values;
  int batch_norms = -1;
};
RunResult Compute(const Module& model, const Tensor& x, bool fold) {
  absl::StatusOr<Graph> graph = model.TraceGraph(x.shape(), x.device());
  EXPECT_TRUE(graph.ok()) << graph.status();
  CompileOptions options;
  options.fold_batch_norm = fold;
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
      Compile(*std::move(graph), options);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return {};
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run({x});
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  return {*(*out)[0].ToVector(), CountOps((*plan)->graph(), "batch_norm")};
}

// Folding must not change the numbers beyond float32 rounding.
void ExpectFoldingKeepsOutputs(Module& model, const Shape& input_shape,
                               int expected_batch_norms) {
  ASSERT_TRUE(model.LoadStateDict(RandomState(model, 42)).ok());
  std::mt19937_64 rng(7);
  std::vector<float> pixels(input_shape.num_elements());
  for (float& v : pixels) v = NormalSample(rng, 1.5f) + 0.5f;
  absl::StatusOr<Tensor> x =
      Tensor::FromVector(input_shape, pixels, Device::Cpu(), model.registry());
  ASSERT_TRUE(x.ok()) << x.status();

  const RunResult unfolded = Compute(model, *x, /*fold=*/false);
  const RunResult folded = Compute(model, *x, /*fold=*/true);
  EXPECT_EQ(unfolded.batch_norms, expected_batch_norms);
  EXPECT_EQ(folded.batch_norms, 0);
  ASSERT_EQ(folded.values.size(), unfolded.values.size());
  ASSERT_FALSE(folded.values.empty());
  float scale = 0;
  for (float v : unfolded.values) scale = std::max(scale, std::abs(v));
  ASSERT_GT(scale, 0.1f);
  double worst = 0;
  for (size_t i = 0; i < folded.values.size(); ++i) {
    const double diff = std::abs(folded.values[i] - unfolded.values[i]);
    worst = std::max(worst, diff / scale);
    ASSERT_LE(diff, 1e-5 * scale) << "element " << i;
  }
  std::cout << "largest |folded - unfolded| / max|unfolded|: " << worst << "\n";

  // Module::Forward folds by default and gives the same.
  absl::StatusOr<Tensor> y = model.Forward(*x);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(*y->ToVector(), folded.values);
}

TEST(BatchNormFoldTest, ConvBnReluWithAndWithoutConvBias) {
  Sequential net;
  Conv2dOptions no_bias;
  no_bias.pad_h = no_bias.pad_w = 1;
  no_bias.bias = false;
  net.Add(std::make_unique<Conv2d>(3, 8, 3, 3, no_bias));
  net.Add(std::make_unique<BatchNorm2d>(8));
  net.Add(std::make_unique<ReLU>());
  Conv2dOptions strided;
  strided.stride_h = strided.stride_w = 2;
  net.Add(std::make_unique<Conv2d>(8, 6, 3, 3, strided));
  net.Add(std::make_unique<BatchNorm2d>(6, /*eps=*/1e-3));
  ExpectFoldingKeepsOutputs(net, Shape({2, 3, 12, 12}), 2);
}

TEST(BatchNormFoldTest, GroupedConvThenBn) {
  Sequential net;
  Conv2dOptions grouped;
  grouped.groups = 2;
  grouped.pad_h = grouped.pad_w = 1;
  net.Add(std::make_unique<Conv2d>(4, 6, 3, 3, grouped));
  net.Add(std::make_unique<BatchNorm2d>(6, /*eps=*/0.1));
  net.Add(std::make_unique<ReLU>());
  ExpectFoldingKeepsOutputs(net, Shape({1, 4, 7, 5}), 1);
}

// relu(bn(conv(x))) + conv(x): the conv's output is read twice, so folding
// would change the skip path; the pass must leave it.
class ConvBnSkip : public Module {
 public:
  ConvBnSkip() {
    Conv2dOptions same;
    same.pad_h = same.pad_w = 1;
    conv_ = RegisterChild("conv", std::make_unique<Conv2d>(2, 2, 3, 3, same));
    bn_ = RegisterChild("bn", std::make_unique<BatchNorm2d>(2));
  }
  std::string type_name() const override { return "ConvBnSkip"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override {
    absl::StatusOr<ValueId> c = conv_->Trace(graph, x, "conv");
    if (!c.ok()) return c;
    absl::StatusOr<ValueId> b = bn_->Trace(graph, *c, "bn");
    if (!b.ok()) return b;
    const ValueId r = graph.AddNode("relu", "relu", {*b}, AttrMap());
    return graph.AddNode("add", "skip", {r, *c}, AttrMap());
  }

 private:
  Module* conv_;
  Module* bn_;
};

TEST(BatchNormFoldTest, LeavesAConvWhoseOutputHasAnotherReader) {
  ConvBnSkip model;
  ASSERT_TRUE(model.LoadStateDict(RandomState(model, 3)).ok());
  std::vector<float> pixels(2 * 5 * 5);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = 0.1f * (i % 7) - 0.3f;
  absl::StatusOr<Tensor> x = Tensor::FromVector(
      Shape({1, 2, 5, 5}), pixels, Device::Cpu(), model.registry());
  ASSERT_TRUE(x.ok());
  const RunResult folded = Compute(model, *x, /*fold=*/true);
  const RunResult unfolded = Compute(model, *x, /*fold=*/false);
  EXPECT_EQ(folded.batch_norms, 1);
  EXPECT_EQ(unfolded.batch_norms, 1);
  EXPECT_EQ(folded.values, unfolded.values);
}

}  // namespace
}  // namespace switchyard
