// The CPU batch_norm kernel against hand-computed values, with its
// parameters as constants (scale and shift folded when the kernel is made)
// and as runtime inputs (folded at every run).

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

struct Params {
  std::vector<float> weight, bias, mean, var;
};

// Makes the cpu kernel of one batch_norm node over `x` and runs it once.
// `constant_params`: the four parameters are graph constants, else inputs.
std::vector<float> RunBatchNorm(const Shape& shape, const std::vector<float>& x,
                                const Params& p, bool constant_params,
                                const AttrMap& attrs) {
  BackendDevice& device = **BackendRegistry::Global().GetDevice(Device::Cpu());
  const Shape channels({shape.dim(1)});
  std::vector<Tensor> tensors = {*Tensor::FromVector(shape, x, device)};
  for (const std::vector<float>* v : {&p.weight, &p.bias, &p.mean, &p.var}) {
    tensors.push_back(*Tensor::FromVector(channels, *v, device));
  }
  Graph graph;
  std::vector<ValueId> operands = {graph.AddInput("x", shape, Device::Cpu())};
  const char* names[] = {"bn.weight", "bn.bias", "bn.running_mean",
                         "bn.running_var"};
  for (int i = 0; i < 4; ++i) {
    operands.push_back(constant_params
                           ? graph.AddConstant(names[i], tensors[i + 1])
                           : graph.AddInput(names[i], channels, Device::Cpu()));
  }
  const ValueId y = graph.AddNode("batch_norm", "bn", operands, attrs);
  graph.mutable_value(y).shape = shape;  // what shape inference would say
  absl::StatusOr<std::unique_ptr<Kernel>> kernel =
      device.CreateKernel(graph.node(0), graph);
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  if (!kernel.ok()) return {};
  absl::StatusOr<Tensor> out = Tensor::Empty(shape, DType::kFloat32, device);
  EXPECT_TRUE(out.ok());
  // A folded kernel reads only the input; give it the parameters anyway, as
  // the executor does.
  std::vector<const Tensor*> inputs;
  for (const Tensor& t : tensors) inputs.push_back(&t);
  Tensor* outputs[] = {&*out};
  absl::Status status = (*kernel)->Run(inputs, outputs);
  EXPECT_TRUE(status.ok()) << status;
  return *out->ToVector();
}

TEST(BatchNormKernelTest, HandComputedValues) {
  // N = 1, C = 2, 2 values per channel, epsilon 1:
  //   channel 0: scale = 2 / sqrt(3 + 1) = 1,      shift = 0.1 - 1 * 1 = -0.9
  //   channel 1: scale = 0.5 / sqrt(0 + 1) = 0.5,  shift = -1 - 2 * 0.5 = -2
  const Params p = {{2.0f, 0.5f}, {0.1f, -1.0f}, {1.0f, 2.0f}, {3.0f, 0.0f}};
  AttrMap attrs;
  attrs.Set("epsilon", 1.0);
  const std::vector<float> want = {1 - 0.9f, 2 - 0.9f, 3 * 0.5f - 2, 4 * 0.5f - 2};
  for (bool constant : {true, false}) {
    const std::vector<float> got =
        RunBatchNorm(Shape({1, 2, 2}), {1, 2, 3, 4}, p, constant, attrs);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(got[i], want[i], 1e-6f) << (constant ? "folded " : "per run ") << i;
    }
  }
}

TEST(BatchNormKernelTest, DefaultEpsilonRankTwoAndFour) {
  // var + 1e-5 = 0.25 exactly enough: 1 / sqrt(0.25) = 2.
  const Params p = {{1.0f, -3.0f, 0.0f}, {0.0f, 0.5f, 7.0f}, {0.5f, -1.0f, 9.0f},
                    {0.25f - 1e-5f, 1.0f - 1e-5f, 4.0f}};
  // Rank 2 [N=2, C=3]: one value per (sample, channel).
  //   c0: (x - 0.5) * 2;  c1: (x + 1) * -3 + 0.5;  c2: 7
  std::vector<float> got =
      RunBatchNorm(Shape({2, 3}), {1.5f, 0.0f, 100.0f, -0.5f, 1.0f, -3.0f}, p,
                   /*constant_params=*/true, AttrMap());
  const std::vector<float> want2 = {2.0f, -2.5f, 7.0f, -2.0f, -5.5f, 7.0f};
  ASSERT_EQ(got.size(), want2.size());
  for (size_t i = 0; i < want2.size(); ++i) EXPECT_NEAR(got[i], want2[i], 1e-4f) << i;

  // Rank 4 [2, 3, 80, 80], large enough to run in parallel: the formula in
  // double, value by value.
  const Shape shape({2, 3, 80, 80});
  std::vector<float> x(shape.num_elements());
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37 * i) * 4;
  for (bool constant : {true, false}) {
    got = RunBatchNorm(shape, x, p, constant, AttrMap());
    ASSERT_EQ(got.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const int c = (i / 6400) % 3;
      const double want = (x[i] - double{p.mean[c]}) /
                              std::sqrt(double{p.var[c]} + 1e-5) * p.weight[c] +
                          p.bias[c];
      EXPECT_NEAR(got[i], want, 1e-5 * (1 + std::abs(want))) << i;
    }
  }
}

// The same node through shape inference, placement and lowering, with the
// op's default epsilon (1e-5): var = 4 - 1e-5 makes sqrt(var + eps) = 2.
TEST(BatchNormKernelTest, CompiledGraph) {
  BackendDevice& device = **BackendRegistry::Global().GetDevice(Device::Cpu());
  Graph graph;
  const Shape shape({2, 1, 3});
  ValueId x = graph.AddInput("x", shape, Device::Cpu());
  std::vector<ValueId> operands = {x};
  for (float v : {3.0f, 1.0f, 0.5f, 4.0f - 1e-5f}) {  // weight bias mean var
    operands.push_back(graph.AddConstant(
        "p" + std::to_string(operands.size()),
        *Tensor::FromVector(Shape({1}), {v}, device)));
  }
  graph.AddOutput(graph.AddNode("batch_norm", "bn", operands, AttrMap()));
  CompileOptions options;
  options.backends = &BackendRegistry::Global();
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
      Compile(std::move(graph), options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run(
      {*Tensor::FromVector(shape, {0.5f, 2.5f, -1.5f, 0, 1, 4.5f}, device)});
  ASSERT_TRUE(out.ok()) << out.status();
  // (x - 0.5) / 2 * 3 + 1
  const std::vector<float> want = {1, 4, -2, 0.25f, 1.75f, 7};
  const std::vector<float> got = *(*out)[0].ToVector();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f) << i;
}

}  // namespace
}  // namespace switchyard
