// Partitions end to end: a backend that claims scale->relu pairs, and what
// core does with the claim (validation, one kernel launch, no buffer for the
// value inside the group, the same numbers as unfused).

#include "core/partition.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/compile.h"
#include "core/kernel_registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

using ::testing::HasSubstr;

// Elementwise ops of this test: "scale" (attribute factor) and "relu".
class ElementwiseOp : public OpDef {
 public:
  explicit ElementwiseOp(std::string name, bool has_factor)
      : name_(std::move(name)) {
    schema_.inputs = {{"input"}};
    if (has_factor) schema_.attrs = {{"factor", AttrType::kFloat, 1.0, ""}};
  }
  std::string name() const override { return name_; }
  const OpSchema& schema() const override { return schema_; }
  absl::StatusOr<Shape> InferShape(const AttrMap&,
                                   absl::Span<const Shape> operands) const override {
    return operands[0];
  }

 private:
  std::string name_;
  OpSchema schema_;
};

struct Counters {
  int fused_runs = 0;
  int single_runs = 0;
};

class FusingDevice;
KernelRegistry<FusingDevice>& Kernels() {
  static auto* kernels = new KernelRegistry<FusingDevice>();
  return *kernels;
}

// Applies scale (optional) then relu (optional) on host memory.
class ElementwiseKernel : public Kernel {
 public:
  ElementwiseKernel(double factor, bool relu, int* runs)
      : factor_(factor), relu_(relu), runs_(runs) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    ++*runs_;
    const float* in = inputs[0]->data<float>();
    float* out = outputs[0]->data<float>();
    for (int64_t i = 0; i < inputs[0]->num_elements(); ++i) {
      float v = static_cast<float>(in[i] * factor_);
      out[i] = relu_ ? std::max(v, 0.0f) : v;
    }
    return absl::OkStatus();
  }

 private:
  double factor_;
  bool relu_;
  int* runs_;
};

class FusingDevice : public BackendDevice {
 public:
  FusingDevice(Device device, Counters* counters, bool claim_bad)
      : device_(std::move(device)), counters_(counters), claim_bad_(claim_bad) {}
  const Device& device() const override { return device_; }
  DeviceInfo Info() const override { return {device_, "fusing test device"}; }
  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t bytes) override {
    return std::make_shared<Buffer>(*this, device_, std::malloc(bytes + 1), bytes,
                                    &std::free);
  }
  absl::Status CopyFromHost(const void* src, Buffer& dst, size_t bytes) override {
    std::memcpy(dst.data(), src, bytes);
    return absl::OkStatus();
  }
  absl::Status CopyToHost(const Buffer& src, void* dst, size_t bytes) override {
    std::memcpy(dst, src.data(), bytes);
    return absl::OkStatus();
  }
  absl::Status Supports(const Node& node, const Graph& graph) const override {
    return Kernels().Supports(node, graph, "fusing");
  }
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(const Node& node,
                                                       const Graph& graph) override {
    return Kernels().Create(node, graph, *this, "fusing");
  }
  // Claims scale followed by relu when relu is the scale output's only reader.
  std::vector<Partition> ClaimPartitions(const Graph& graph) const override {
    std::vector<Partition> claims;
    if (claim_bad_) {  // two nodes that are not consecutive
      claims.push_back({{0, 2}, "bad"});
      return claims;
    }
    for (const Node& node : graph.nodes()) {
      if (node.op != "scale" || node.id + 1 >= static_cast<int>(graph.nodes().size())) {
        continue;
      }
      const Node& next = graph.node(node.id + 1);
      int readers = 0;
      for (const Node& n : graph.nodes()) {
        readers += std::count(n.inputs.begin(), n.inputs.end(), node.outputs[0]);
      }
      const bool returned = std::count(graph.outputs().begin(), graph.outputs().end(),
                                       node.outputs[0]) > 0;
      if (next.op == "relu" && next.inputs[0] == node.outputs[0] && readers == 1 &&
          !returned) {
        claims.push_back({{node.id, next.id}, "scale+relu"});
      }
    }
    return claims;
  }
  absl::StatusOr<std::unique_ptr<Kernel>> CreatePartitionKernel(
      const Partition& partition, const Graph& graph) override {
    const double factor = *graph.node(partition.nodes[0]).attrs.GetFloat("factor", 1.0);
    return std::make_unique<ElementwiseKernel>(factor, true, &counters_->fused_runs);
  }
  Counters* counters() const { return counters_; }

 private:
  Device device_;
  Counters* counters_;
  bool claim_bad_;
};

SY_REGISTER_KERNEL(Kernels(), "scale", DType::kFloat32,
                   [](const Node& node, const Graph&, FusingDevice& d)
                       -> absl::StatusOr<std::unique_ptr<Kernel>> {
                     return std::make_unique<ElementwiseKernel>(
                         *node.attrs.GetFloat("factor", 1.0), false,
                         &d.counters()->single_runs);
                   });
SY_REGISTER_KERNEL(Kernels(), "relu", DType::kFloat32,
                   [](const Node&, const Graph&, FusingDevice& d)
                       -> absl::StatusOr<std::unique_ptr<Kernel>> {
                     return std::make_unique<ElementwiseKernel>(
                         1.0, true, &d.counters()->single_runs);
                   });

class FusingBackend : public Backend {
 public:
  FusingBackend(Counters* counters, bool claim_bad)
      : device_(*Device::Create("fuse", 0), counters, claim_bad) {}
  std::string type() const override { return "fuse"; }
  int DeviceCount() const override { return 1; }
  BackendDevice& GetDevice(int) override { return device_; }

 private:
  FusingDevice device_;
};

class PartitionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(ops_.Register(std::make_unique<ElementwiseOp>("scale", true)).ok());
    ASSERT_TRUE(ops_.Register(std::make_unique<ElementwiseOp>("relu", false)).ok());
  }
  void UseBackend(bool claim_bad) {
    ASSERT_TRUE(registry_
                    .Register("fuse",
                              [this, claim_bad]() -> absl::StatusOr<std::unique_ptr<Backend>> {
                                return std::make_unique<FusingBackend>(&counters_, claim_bad);
                              })
                    .ok());
  }
  Device Fuse() { return *Device::Create("fuse", 0); }
  CompileOptions Options() {
    CompileOptions options;
    options.backends = &registry_;
    options.ops = &ops_;
    return options;
  }
  // x -> scale(-2) -> relu -> scale(3) -> output, plus `also_return` values.
  Graph Chain(bool return_first_scale) {
    Graph g;
    ValueId x = g.AddInput("x", Shape({4}), Fuse());
    AttrMap minus_two;
    minus_two.Set("factor", -2.0);
    ValueId a = g.AddNode("scale", "a", {x}, minus_two);
    ValueId b = g.AddNode("relu", "b", {a}, AttrMap());
    AttrMap three;
    three.Set("factor", 3.0);
    g.AddOutput(g.AddNode("scale", "c", {b}, three));
    if (return_first_scale) g.AddOutput(a);
    return g;
  }

  Counters counters_;
  OpRegistry ops_;
  BackendRegistry registry_;
};

TEST_F(PartitionTest, InputsAndOutputsOfAGroup) {
  Graph g = Chain(false);
  Partition p{{0, 1}, "scale+relu"};
  EXPECT_EQ(PartitionInputs(g, p), std::vector<ValueId>{0});
  EXPECT_EQ(PartitionOutputs(g, p), std::vector<ValueId>{g.node(1).outputs[0]});
  Graph returned = Chain(true);
  EXPECT_EQ(PartitionOutputs(returned, p),
            (std::vector<ValueId>{returned.node(0).outputs[0],
                                  returned.node(1).outputs[0]}));
}

TEST_F(PartitionTest, ClaimedGroupRunsAsOneKernelWithTheSameNumbers) {
  UseBackend(false);
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(Chain(false), Options());
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ((*plan)->partitions().size(), 1u);
  EXPECT_EQ((*plan)->partitions()[0].name, "scale+relu");
  EXPECT_EQ((*plan)->PartitionsToString(), "a/scale + b/relu -> scale+relu on fuse:0\n");
  // The value between scale and relu is never materialized.
  EXPECT_EQ((*plan)->buffer_plan().value_slot[(*plan)->graph().node(0).outputs[0]], -1);

  Tensor x = *Tensor::FromVector({4}, {1, -1, 2, -0.5f}, Fuse(), registry_);
  absl::StatusOr<std::vector<Tensor>> y = (*plan)->Run({x});
  ASSERT_TRUE(y.ok()) << y.status();
  // relu(-2x) * 3
  EXPECT_EQ(*(*y)[0].ToVector(), (std::vector<float>{0, 6, 0, 3}));
  EXPECT_EQ(counters_.fused_runs, 1);
  EXPECT_EQ(counters_.single_runs, 1);  // the last scale
}

TEST_F(PartitionTest, NoClaimWhenTheInsideValueIsAlsoReturned) {
  UseBackend(false);
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(Chain(true), Options());
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE((*plan)->partitions().empty());
  Tensor x = *Tensor::FromVector({4}, {1, -1, 2, -0.5f}, Fuse(), registry_);
  std::vector<Tensor> y = *(*plan)->Run({x});
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(*y[0].ToVector(), (std::vector<float>{0, 6, 0, 3}));
  EXPECT_EQ(*y[1].ToVector(), (std::vector<float>{-2, 2, -4, 1}));
  EXPECT_EQ(counters_.fused_runs, 0);
}

TEST_F(PartitionTest, ABrokenClaimIsAnInternalError) {
  UseBackend(true);
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(Chain(false), Options());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(plan.status().message()),
              HasSubstr("partition 'bad' claimed by fuse:0 is not a run of consecutive nodes"));
}

}  // namespace
}  // namespace switchyard
