#include "core/passes/float32_fallback.h"

#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "core/backend.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/copy_op.h"
#include "core/graph.h"
#include "core/graph_verifier.h"
#include "core/tensor.h"

namespace switchyard {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A host-memory device that runs each op in the dtypes `kernels` lists
// (every operand and output of a floating dtype must be one of them) and
// casts when `casts` is set. It never creates kernels: the pass only asks.
class FakeDevice : public BackendDevice {
 public:
  FakeDevice(Device device, std::map<std::string, std::set<DType>> kernels,
             bool casts)
      : device_(std::move(device)), kernels_(std::move(kernels)), casts_(casts) {}

  const Device& device() const override { return device_; }
  DeviceInfo Info() const override { return {device_, "fake"}; }
  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t bytes) override {
    char* data = new char[bytes > 0 ? bytes : 1];
    return std::make_shared<Buffer>(*this, device_, data, bytes,
                                    [](void* p) { delete[] static_cast<char*>(p); });
  }
  absl::Status CopyFromHost(const void* src, Buffer& dst, size_t bytes) override {
    if (bytes > 0) std::memcpy(dst.data(), src, bytes);
    return absl::OkStatus();
  }
  absl::Status CopyToHost(const Buffer& src, void* dst, size_t bytes) override {
    if (bytes > 0) std::memcpy(dst, src.data(), bytes);
    return absl::OkStatus();
  }
  bool host_memory() const override { return true; }

  absl::Status Supports(const Node& node, const Graph& graph) const override {
    if (node.op == "cast") {
      return casts_ ? absl::OkStatus()
                    : absl::UnimplementedError("no cast kernel");
    }
    auto found = kernels_.find(node.op);
    if (found == kernels_.end()) {
      return absl::UnimplementedError(absl::StrCat("no kernel for ", node.op));
    }
    std::vector<ValueId> values = node.inputs;
    values.insert(values.end(), node.outputs.begin(), node.outputs.end());
    for (ValueId id : values) {
      const DType d = graph.value(id).dtype;
      if (IsFloatingPoint(d) && found->second.count(d) == 0) {
        return absl::UnimplementedError(
            absl::StrCat("no ", DTypeName(d), " kernel for ", node.op));
      }
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(const Node&,
                                                       const Graph&) override {
    return absl::UnimplementedError("the fake device runs nothing");
  }

 private:
  Device device_;
  std::map<std::string, std::set<DType>> kernels_;
  bool casts_;
};

class FakeBackend : public Backend {
 public:
  FakeBackend(std::string type, std::map<std::string, std::set<DType>> kernels,
              bool casts)
      : type_(type), device_(*Device::Create(type, 0), std::move(kernels), casts) {}
  std::string type() const override { return type_; }
  int DeviceCount() const override { return 1; }
  BackendDevice& GetDevice(int) override { return device_; }

 private:
  std::string type_;
  FakeDevice device_;
};

constexpr DType kF16 = DType::kFloat16;
constexpr DType kF32 = DType::kFloat32;

// "fake": relu and mul in float32 only, add in float16 too, casts.
// "nocast": relu in float32 only, no casts. "cpu": casts only.
std::unique_ptr<BackendRegistry> Registry() {
  auto registry = std::make_unique<BackendRegistry>();
  EXPECT_TRUE(registry
                  ->Register("fake",
                             [] {
                               return std::make_unique<FakeBackend>(
                                   "fake",
                                   std::map<std::string, std::set<DType>>{
                                       {"relu", {kF32}},
                                       {"mul", {kF32}},
                                       {"add", {kF32, kF16}}},
                                   true);
                             })
                  .ok());
  EXPECT_TRUE(registry
                  ->Register("nocast",
                             [] {
                               return std::make_unique<FakeBackend>(
                                   "nocast",
                                   std::map<std::string, std::set<DType>>{
                                       {"relu", {kF32}}},
                                   false);
                             })
                  .ok());
  EXPECT_TRUE(registry
                  ->Register("cpu",
                             [] {
                               return std::make_unique<FakeBackend>(
                                   "cpu", std::map<std::string, std::set<DType>>{},
                                   true);
                             })
                  .ok());
  return registry;
}

// What shape inference and strict placement would leave: every node on
// `device` (unless nullopt), outputs of the first operand's shape and dtype.
void InferAndPlace(Graph& graph, const std::optional<Device>& device) {
  for (const Node& node : graph.nodes()) {
    const Value& first = graph.value(node.inputs[0]);
    const Shape shape = *first.shape;
    const DType dtype = first.dtype;
    graph.mutable_node(node.id).device = device;
    for (ValueId out : node.outputs) {
      Value& v = graph.mutable_value(out);
      v.shape = shape;
      v.dtype = dtype;
      v.device = device;
    }
  }
}

Tensor HalfConstant(BackendRegistry& registry, const Device& device,
                    const std::vector<float>& values) {
  std::vector<uint16_t> bits;
  for (float v : values) bits.push_back(FloatToHalf(v));
  absl::StatusOr<Tensor> t = Tensor::FromBytes(
      Shape({static_cast<int64_t>(values.size())}), kF16, bits.data(),
      bits.size() * 2, **registry.GetDevice(device));
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

std::vector<std::string> NodeNames(const Graph& graph) {
  std::vector<std::string> names;
  for (const Node& n : graph.nodes()) names.push_back(n.name);
  return names;
}

const Device kFake = *Device::Create("fake", 0);

TEST(Float32FallbackTest, CastsAroundANodeWithOnlyAFloat32Kernel) {
  auto registry = Registry();
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({4}), kFake, kF16);
  ValueId y = graph.AddNode("relu", "act", {x}, AttrMap());
  graph.AddOutput(y);
  InferAndPlace(graph, kFake);

  Float32FallbackPass pass(*registry);
  absl::StatusOr<bool> changed = pass.Run(graph);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  ASSERT_TRUE(VerifyGraph(graph).ok()) << VerifyGraph(graph);
  EXPECT_THAT(pass.fallback_nodes(), ElementsAre("act/relu"));
  EXPECT_THAT(NodeNames(graph),
              ElementsAre("act/relu/float32_fallback/cast_in0", "act/relu",
                          "act/relu/float32_fallback/cast_out0"));
  const Node& up = graph.node(0);
  const Node& relu = graph.node(1);
  const Node& down = graph.node(2);
  EXPECT_EQ(up.op, "cast");
  EXPECT_EQ(up.layer, "act/float32_fallback");
  EXPECT_EQ(*up.attrs.GetString("to"), "float32");
  EXPECT_EQ(up.device, kFake);
  EXPECT_EQ(up.inputs[0], x);
  EXPECT_EQ(graph.value(relu.inputs[0]).dtype, kF32);
  EXPECT_EQ(graph.value(relu.outputs[0]).dtype, kF32);
  EXPECT_EQ(*down.attrs.GetString("to"), "float16");
  // The graph output keeps its id, its name and float16; the cast makes it.
  ASSERT_EQ(graph.outputs().size(), 1u);
  EXPECT_EQ(graph.outputs()[0], y);
  EXPECT_EQ(graph.value(y).dtype, kF16);
  EXPECT_EQ(graph.value(y).producer, down.id);
  EXPECT_EQ(graph.value(y).shape, Shape({4}));
  EXPECT_EQ(down.outputs[0], y);
  EXPECT_EQ(graph.value(relu.outputs[0]).name, absl::StrCat(graph.value(y).name, "/float32"));
  // The device now runs every node.
  BackendDevice* fake = *registry->GetDevice(kFake);
  for (const Node& n : graph.nodes()) EXPECT_TRUE(fake->Supports(n, graph).ok()) << n.name;
}

TEST(Float32FallbackTest, LeavesNodesTheDeviceRunsInFloat16) {
  auto registry = Registry();
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({4}), kFake, kF16);
  ValueId y = graph.AddNode("add", "sum", {x, x}, AttrMap());
  graph.AddOutput(y);
  InferAndPlace(graph, kFake);
  const std::string before = graph.ToText();

  Float32FallbackPass pass(*registry);
  absl::StatusOr<bool> changed = pass.Run(graph);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_TRUE(pass.fallback_nodes().empty());
  EXPECT_EQ(graph.ToText(), before);
}

TEST(Float32FallbackTest, NeighboursPassFloat32BetweenThem) {
  // relu -> relu (float32 only) -> add (float16 kernel) -> output, and the
  // second relu's output is also a graph output.
  auto registry = Registry();
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({4}), kFake, kF16);
  ValueId a = graph.AddNode("relu", "a", {x}, AttrMap());
  ValueId b = graph.AddNode("relu", "b", {a}, AttrMap());
  ValueId c = graph.AddNode("add", "c", {b, x}, AttrMap());
  graph.AddOutput(c);
  graph.AddOutput(b);
  InferAndPlace(graph, kFake);

  Float32FallbackPass pass(*registry);
  ASSERT_TRUE(pass.Run(graph).ok());
  ASSERT_TRUE(VerifyGraph(graph).ok()) << VerifyGraph(graph);
  EXPECT_THAT(pass.fallback_nodes(), ElementsAre("a/relu", "b/relu"));
  // One cast up before a, none between a and b, one cast down after b
  // (read by add and returned); add stays float16.
  EXPECT_THAT(NodeNames(graph),
              ElementsAre("a/relu/float32_fallback/cast_in0", "a/relu", "b/relu",
                          "b/relu/float32_fallback/cast_out0", "c/add"));
  EXPECT_EQ(graph.value(a).dtype, kF32);
  EXPECT_EQ(graph.node(2).inputs[0], a);
  EXPECT_EQ(graph.value(b).dtype, kF16);
  EXPECT_EQ(graph.node(4).inputs[0], b);
  EXPECT_EQ(graph.node(4).inputs[1], x);
  EXPECT_EQ(graph.value(c).dtype, kF16);
  EXPECT_THAT(graph.outputs(), ElementsAre(c, b));
}

TEST(Float32FallbackTest, TheModelsCastDownCancelsTheCastUp) {
  // x f32 -> cast to f16 -> relu (float32 only) -> cast to f32: relu reads
  // x itself (ONNX Runtime removes the cast down and the cast up it would
  // insert); its output is still cast down for the model's cast up.
  auto registry = Registry();
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({4}), kFake, kF32);
  AttrMap down;
  down.Set("to", std::string("float16"));
  ValueId h = graph.AddNode("cast", "down", {x}, down);
  ValueId r = graph.AddNode("relu", "act", {h}, AttrMap());
  AttrMap up;
  up.Set("to", std::string("float32"));
  ValueId y = graph.AddNode("cast", "up", {r}, up);
  graph.AddOutput(y);
  InferAndPlace(graph, kFake);
  graph.mutable_value(h).dtype = kF16;
  graph.mutable_value(r).dtype = kF16;
  graph.mutable_value(y).dtype = kF32;

  Float32FallbackPass pass(*registry);
  ASSERT_TRUE(pass.Run(graph).ok());
  ASSERT_TRUE(VerifyGraph(graph).ok()) << VerifyGraph(graph);
  EXPECT_THAT(pass.fallback_nodes(), ElementsAre("act/relu"));
  EXPECT_THAT(NodeNames(graph), ElementsAre("down/cast", "act/relu",
                                            "act/relu/float32_fallback/cast_out0", "up/cast"));
  EXPECT_EQ(graph.node(1).inputs[0], x);
  EXPECT_EQ(graph.value(r).dtype, kF16);
  EXPECT_EQ(graph.node(3).inputs[0], r);
}

TEST(Float32FallbackTest, FloatConstantsAreConvertedOnceAtCompileTime) {
  auto registry = Registry();
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({2}), kFake, kF16);
  ValueId w = graph.AddConstant("scale.weight", HalfConstant(*registry, kFake, {0.5f, -3}));
  ValueId p = graph.AddNode("mul", "scale", {x, w}, AttrMap());
  ValueId q = graph.AddNode("mul", "scale2", {p, w}, AttrMap());
  graph.AddOutput(q);
  InferAndPlace(graph, kFake);

  Float32FallbackPass pass(*registry);
  ASSERT_TRUE(pass.Run(graph).ok());
  ASSERT_TRUE(VerifyGraph(graph).ok()) << VerifyGraph(graph);
  EXPECT_THAT(NodeNames(graph),
              ElementsAre("scale/mul/float32_fallback/cast_in0", "scale/mul",
                          "scale2/mul", "scale2/mul/float32_fallback/cast_out0"));
  const ValueId wide = graph.node(1).inputs[1];
  EXPECT_EQ(graph.node(2).inputs[1], wide);  // converted once
  const Value& converted = graph.value(wide);
  ASSERT_TRUE(converted.constant.has_value());
  EXPECT_EQ(converted.name, "scale.weight/float32_fallback");
  EXPECT_EQ(converted.dtype, kF32);
  EXPECT_EQ(converted.constant->dtype(), kF32);
  EXPECT_THAT(*converted.constant->ToVector(), ElementsAre(0.5f, -3.0f));
  EXPECT_EQ(graph.value(w).dtype, kF16);  // the original is untouched
}

TEST(Float32FallbackTest, CastsRunOnTheCpuWhenTheDeviceHasNone) {
  auto registry = Registry();
  const Device nocast = *Device::Create("nocast", 0);
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({3}), nocast, kF16);
  ValueId y = graph.AddNode("relu", "act", {x}, AttrMap());
  graph.AddOutput(y);
  InferAndPlace(graph, nocast);

  Float32FallbackPass pass(*registry);
  ASSERT_TRUE(pass.Run(graph).ok());
  ASSERT_TRUE(VerifyGraph(graph).ok()) << VerifyGraph(graph);
  EXPECT_THAT(NodeNames(graph),
              ElementsAre("act/relu/float32_fallback/cast_in0/copy_to_cpu",
                          "act/relu/float32_fallback/cast_in0",
                          "act/relu/float32_fallback/cast_in0/copy_back",
                          "act/relu",
                          "act/relu/float32_fallback/cast_out0/copy_to_cpu",
                          "act/relu/float32_fallback/cast_out0",
                          "act/relu/float32_fallback/cast_out0/copy_back"));
  std::vector<std::string> where;
  for (const Node& n : graph.nodes()) {
    where.push_back(absl::StrCat(n.op, "@", n.device->ToString()));
  }
  EXPECT_THAT(where, ElementsAre("copy@cpu:0", "cast@cpu:0", "copy@nocast:0",
                                 "relu@nocast:0", "copy@cpu:0", "cast@cpu:0",
                                 "copy@nocast:0"));
  EXPECT_EQ(graph.value(y).dtype, kF16);
  EXPECT_EQ(graph.value(y).device, nocast);
  EXPECT_EQ(graph.value(graph.node(3).inputs[0]).dtype, kF32);
}

TEST(Float32FallbackTest, LeavesNodesWithNoFloat32KernelEither) {
  auto registry = Registry();
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({4}), kFake, kF16);
  ValueId y = graph.AddNode("conv2d", "conv", {x}, AttrMap());
  ValueId z = graph.AddNode("relu", "act", {x}, AttrMap());
  AttrMap to_half;
  to_half.Set("to", std::string("float16"));
  ValueId u = graph.AddNode("mul", "m", {x, x}, to_half);  // names float16
  graph.AddOutput(y);
  graph.AddOutput(z);
  graph.AddOutput(u);
  InferAndPlace(graph, kFake);

  Float32FallbackPass pass(*registry);
  ASSERT_TRUE(pass.Run(graph).ok());
  ASSERT_TRUE(VerifyGraph(graph).ok()) << VerifyGraph(graph);
  EXPECT_THAT(pass.fallback_nodes(), ElementsAre("act/relu"));
  EXPECT_EQ(graph.value(y).dtype, kF16);
  EXPECT_EQ(graph.value(u).dtype, kF16);
  int casts = 0;
  for (const Node& n : graph.nodes()) casts += n.op == "cast";
  EXPECT_EQ(casts, 2);
}

TEST(Float32FallbackTest, BeforeAutoPlacementTheCastsAreLeftUnplaced) {
  auto registry = Registry();
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({4}), kFake, kF16);
  ValueId y = graph.AddNode("relu", "act", {x}, AttrMap());
  graph.AddOutput(y);
  InferAndPlace(graph, std::nullopt);

  Float32FallbackPass pass(*registry, {*Device::Create("nocast", 0), Device::Cpu()});
  ASSERT_TRUE(pass.Run(graph).ok());
  ASSERT_TRUE(VerifyGraph(graph).ok()) << VerifyGraph(graph);
  EXPECT_THAT(NodeNames(graph),
              ElementsAre("act/relu/float32_fallback/cast_in0", "act/relu",
                          "act/relu/float32_fallback/cast_out0"));
  for (const Node& n : graph.nodes()) EXPECT_FALSE(n.device.has_value()) << n.name;
  EXPECT_EQ(graph.value(y).dtype, kF16);
}

TEST(Float32FallbackTest, Float32GraphsAreUntouched) {
  auto registry = Registry();
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({4}), kFake, kF32);
  graph.AddOutput(graph.AddNode("relu", "act", {x}, AttrMap()));
  InferAndPlace(graph, kFake);
  Float32FallbackPass pass(*registry);
  absl::StatusOr<bool> changed = pass.Run(graph);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(graph.nodes().size(), 1u);
}

}  // namespace
}  // namespace switchyard
