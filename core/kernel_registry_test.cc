#include "core/kernel_registry.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

using ::testing::HasSubstr;

struct FakeDevice {};

class NoopKernel : public Kernel {
 public:
  absl::Status Run(absl::Span<const Tensor* const>,
                   absl::Span<Tensor* const>) override {
    return absl::OkStatus();
  }
};

KernelRegistry<FakeDevice>::Factory Noop() {
  return [](const Node&, const Graph&, FakeDevice&)
             -> absl::StatusOr<std::unique_ptr<Kernel>> {
    return std::make_unique<NoopKernel>();
  };
}

// A graph with one node `op` over one input of `dtype`.
Graph OneNode(const std::string& op, DType dtype) {
  Graph g;
  ValueId x = g.AddInput("x", Shape({2}), Device::Cpu(), dtype);
  g.AddOutput(g.AddNode(op, "layer", {x}, AttrMap()));
  return g;
}

TEST(KernelRegistryTest, KeysByOpAndDType) {
  KernelRegistry<FakeDevice> kernels;
  EXPECT_TRUE(kernels.Register("relu", DType::kFloat32, Noop()));
  EXPECT_TRUE(kernels.Register("relu", DType::kFloat64, Noop()));
  EXPECT_FALSE(kernels.Register("relu", DType::kFloat32, Noop()));  // taken
  EXPECT_NE(kernels.Find("relu", DType::kFloat64), nullptr);
  EXPECT_EQ(kernels.Find("relu", DType::kInt8), nullptr);
  EXPECT_EQ(kernels.DTypesOf("relu"),
            (std::vector<DType>{DType::kFloat32, DType::kFloat64}));
  EXPECT_EQ(kernels.Keys().size(), 2u);

  Graph ok = OneNode("relu", DType::kFloat64);
  FakeDevice device;
  EXPECT_TRUE(kernels.Supports(ok.node(0), ok, "fake").ok());
  EXPECT_TRUE(kernels.Create(ok.node(0), ok, device, "fake").ok());
}

TEST(KernelRegistryTest, MissesSayWhatTheBackendRuns) {
  KernelRegistry<FakeDevice> kernels;
  kernels.Register("relu", DType::kFloat32, Noop());
  kernels.Register("add", DType::kFloat32, Noop());

  Graph wrong_dtype = OneNode("relu", DType::kFloat16);
  absl::Status status = kernels.Supports(wrong_dtype.node(0), wrong_dtype, "fake");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("the fake backend has no float16 kernel for op 'relu' "
                        "(node 'layer/relu'); it runs relu in: float32"));

  Graph unknown = OneNode("gelu", DType::kFloat32);
  status = kernels.Supports(unknown.node(0), unknown, "fake");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("no kernel for op 'gelu' (node 'layer/gelu'); it runs: add, relu"));
}

TEST(KernelRegistryTest, SupportsPredicateGivesTheReason) {
  KernelRegistry<FakeDevice> kernels;
  kernels.Register(
      "conv2d", DType::kFloat32,
      [](const Node&, const Graph&) {
        return absl::UnimplementedError("cuDNN is not loaded");
      },
      Noop());
  Graph g = OneNode("conv2d", DType::kFloat32);
  FakeDevice device;
  absl::StatusOr<std::unique_ptr<Kernel>> kernel =
      kernels.Create(g.node(0), g, device, "fake");
  EXPECT_EQ(kernel.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(kernel.status().message()),
              HasSubstr("cannot run node 'layer/conv2d' (conv2d (float32)): "
                        "cuDNN is not loaded"));
}

}  // namespace
}  // namespace switchyard
