// What a CUDA device claims as fused partitions. Claiming reads the graph
// and loads cuDNN/cuBLASLt (to know whether the fused kernel can exist),
// but touches no GPU, so this runs wherever the build has CUDA and the
// libraries are installed; running the fused kernels is cuda_kernels_test's
// (on a GPU).

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"

#ifdef SWITCHYARD_TEST_WITH_CUDA
#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_libraries.h"
#include "backends/cuda/cuda_options.h"
#include "core/backend.h"
#include "core/graph.h"
#endif

namespace switchyard {
namespace cuda {
namespace {

#ifdef SWITCHYARD_TEST_WITH_CUDA

const Device kGpu = *Device::Create("cuda", 0);

// A graph whose node outputs have the shapes shape inference would give
// (set by hand: no op registry here), every node placed on cuda:0.
class GraphBuilder {
 public:
  ValueId Input(const std::string& name, Shape shape) {
    return graph_.AddInput(name, shape, kGpu);
  }
  ValueId Node(const std::string& op, std::vector<ValueId> inputs, Shape out,
               AttrMap attrs = AttrMap()) {
    ValueId id = graph_.AddNode(op, op, std::move(inputs), std::move(attrs));
    graph_.mutable_value(id).shape = out;
    graph_.mutable_node(graph_.nodes().size() - 1).device = kGpu;
    return id;
  }
  Graph& graph() { return graph_; }

 private:
  Graph graph_;
};

std::vector<std::string> Claimed(const Graph& graph) {
  CudaOptions options(false);
  CudaDevice device(0, options);  // never activated: no GPU needed
  std::vector<std::string> claimed;
  for (const Partition& p : device.ClaimPartitions(graph)) {
    std::string nodes;
    for (NodeId id : p.nodes) nodes += " " + std::to_string(id);
    claimed.push_back(p.name + nodes);
  }
  return claimed;
}

#define SKIP_WITHOUT(load)                                                \
  if (auto api = load(); !api.ok()) {                                     \
    GTEST_SKIP() << "the fused kernel needs a library that is not here: " \
                 << api.status().message();                               \
  }

TEST(CudaPartitionTest, ClaimsConvReluAndLinearRelu) {
  SKIP_WITHOUT(LoadCudnn);
  SKIP_WITHOUT(LoadCublasLt);
  GraphBuilder g;
  ValueId x = g.Input("x", Shape({1, 3, 8, 8}));
  ValueId w = g.Input("w", Shape({4, 3, 3, 3}));
  ValueId b = g.Input("b", Shape({4}));
  ValueId h = g.Node("conv2d", {x, w, b}, Shape({1, 4, 6, 6}));
  h = g.Node("relu", {h}, Shape({1, 4, 6, 6}));
  h = g.Node("flatten", {h}, Shape({1, 144}));
  ValueId fc = g.Input("fc", Shape({10, 144}));
  h = g.Node("linear", {h, fc}, Shape({1, 10}));
  h = g.Node("relu", {h}, Shape({1, 10}));
  g.graph().AddOutput(h);
  EXPECT_EQ(Claimed(g.graph()),
            (std::vector<std::string>{"conv2d+relu 0 1", "linear+relu 3 4"}));
}

TEST(CudaPartitionTest, NothingWithoutAFusedKernel) {
  GraphBuilder g;
  ValueId x = g.Input("x", Shape({1, 3, 8, 8}));
  AttrMap pool;
  pool.Set("kernel_size", std::vector<int64_t>{2, 2});
  ValueId h = g.Node("max_pool2d", {x}, Shape({1, 3, 4, 4}), pool);
  g.graph().AddOutput(g.Node("relu", {h}, Shape({1, 3, 4, 4})));
  EXPECT_TRUE(Claimed(g.graph()).empty());
}

TEST(CudaPartitionTest, NothingWhenTheConvOutputIsAlsoReturned) {
  SKIP_WITHOUT(LoadCudnn);
  GraphBuilder g;
  ValueId x = g.Input("x", Shape({1, 3, 8, 8}));
  ValueId w = g.Input("w", Shape({4, 3, 3, 3}));
  ValueId conv = g.Node("conv2d", {x, w}, Shape({1, 4, 6, 6}));
  g.graph().AddOutput(g.Node("relu", {conv}, Shape({1, 4, 6, 6})));
  g.graph().AddOutput(conv);
  EXPECT_TRUE(Claimed(g.graph()).empty());
}

TEST(CudaPartitionTest, NothingForFloat64) {
  GraphBuilder g;
  ValueId x = g.graph().AddInput("x", Shape({2, 4}), kGpu, DType::kFloat64);
  ValueId w = g.graph().AddInput("w", Shape({3, 4}), kGpu, DType::kFloat64);
  ValueId h = g.Node("linear", {x, w}, Shape({2, 3}));
  g.graph().AddOutput(g.Node("relu", {h}, Shape({2, 3})));
  EXPECT_TRUE(Claimed(g.graph()).empty());
}

// What CreatePartitionKernel refuses before it touches the GPU.
TEST(CudaPartitionTest, CreateRefusesWhatItDidNotClaim) {
  GraphBuilder g;
  ValueId x = g.Input("x", Shape({2, 4}));
  ValueId w = g.Input("w", Shape({3, 4}));
  ValueId h = g.Node("linear", {x, w}, Shape({2, 3}));
  h = g.Node("relu", {h}, Shape({2, 3}));
  g.graph().AddOutput(g.Node("relu", {h}, Shape({2, 3})));
  CudaOptions options(false);
  CudaDevice device(0, options);

  absl::StatusOr<std::unique_ptr<Kernel>> three =
      device.CreatePartitionKernel(Partition{{0, 1, 2}, "linear+relu"}, g.graph());
  EXPECT_EQ(three.status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(three.status().message().find("only pairs of nodes"), std::string::npos)
      << three.status();

  absl::StatusOr<std::unique_ptr<Kernel>> unknown =
      device.CreatePartitionKernel(Partition{{1, 2}, "relu+relu"}, g.graph());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(unknown.status().message().find("no fused kernel for relu+relu (float32)"),
            std::string::npos)
      << unknown.status();
}

#else

TEST(CudaPartitionTest, BuiltWithoutCuda) {
  GTEST_SKIP() << "this build has no CUDA, so no CUDA partitions";
}

#endif

}  // namespace
}  // namespace cuda
}  // namespace switchyard
