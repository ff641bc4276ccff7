// Module: parameter and buffer naming, seeded initialisation, forward
// against hand computed results, the plan cache, To() (all or nothing),
// placement, StateDict / LoadStateDict with dtypes, several inputs and
// outputs.

#include "models/module.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "backends/cpu/cpu_backend.h"
#include "core/backend.h"
#include "core/backend_registry.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "core/testing/host_backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/batch_norm.h"
#include "models/conv2d.h"
#include "models/linear.h"
#include "models/parameterless_layers.h"
#include "models/sequential.h"

namespace switchyard {
namespace {

using nn::BatchNorm2d;
using nn::Conv2d;
using nn::Conv2dOptions;
using nn::Linear;
using nn::ReLU;
using nn::Sequential;
using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Not;

Device Dev(const std::string& text) { return *Device::Parse(text); }

// A Sequential of Linear(2, 3), Sequential(Linear(3, 4), ReLU,
// Linear(4, 2, bias=false)), ReLU.
// `inner` (optional) receives the nested Sequential, `inner_first` its
// first Linear.
std::unique_ptr<Sequential> MakeNested(BackendRegistry& registry,
                                       Module** inner_out = nullptr,
                                       Module** inner_first = nullptr) {
  auto net = std::make_unique<Sequential>(registry);
  net->Add(std::make_unique<Linear>(2, 3));
  auto inner = std::make_unique<Sequential>();
  Module* first = inner->Add(std::make_unique<Linear>(3, 4));
  inner->Add(std::make_unique<ReLU>());
  inner->Add(std::make_unique<Linear>(4, 2, /*bias=*/false));
  Module* inner_ptr = net->Add(std::move(inner));
  net->Add(std::make_unique<ReLU>());
  if (inner_out != nullptr) *inner_out = inner_ptr;
  if (inner_first != nullptr) *inner_first = first;
  return net;
}

std::vector<float> Values(const Tensor& t) {
  absl::StatusOr<std::vector<float>> v = t.ToVector();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::vector<float>();
}

Tensor MakeTensor(const Shape& shape, const std::vector<float>& values,
                  const Device& device = Device::Cpu(),
                  BackendRegistry& registry = BackendRegistry::Global()) {
  absl::StatusOr<Tensor> t =
      Tensor::FromVector(shape, values, device, registry);
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

// Forward on `x`, copied to the host; fails the test on error.
std::vector<float> ForwardValues(Module& module, const Tensor& x) {
  absl::StatusOr<Tensor> y = module.Forward(x);
  EXPECT_TRUE(y.ok()) << y.status();
  return y.ok() ? Values(*y) : std::vector<float>();
}

std::vector<float> Iota(int64_t n, float start, float step) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = start + step * i;
  return v;
}

// Parameter buffers by name, to prove a failed call changed nothing.
std::map<std::string, const Buffer*> Buffers(const Module& module) {
  std::map<std::string, const Buffer*> out;
  for (const auto& [name, t] : module.NamedParameters()) {
    out[name] = t->defined() ? t->buffer().get() : nullptr;
  }
  return out;
}

// The buffers the compiled plan bound as constants, by value name.
std::map<std::string, const Buffer*> PlanConstants(const ExecutablePlan& plan) {
  std::map<std::string, const Buffer*> out;
  for (const Value& v : plan.graph().values()) {
    if (v.constant) out[v.name] = v.constant->buffer().get();
  }
  return out;
}

// A registry with the Eigen CPU backend as "cpu" and a 2-device host-memory
// test backend as "fake" (relu/add kernels only).
class TwoBackendRegistry {
 public:
  TwoBackendRegistry() {
    EXPECT_TRUE(registry_
                    .Register("cpu",
                              []() -> absl::StatusOr<std::unique_ptr<Backend>> {
                                return cpu::CreateCpuBackend();
                              })
                    .ok());
    EXPECT_TRUE(registry_
                    .Register("fake",
                              []() -> absl::StatusOr<std::unique_ptr<Backend>> {
                                return testing::MakeHostBackend("fake", 2);
                              })
                    .ok());
  }
  BackendRegistry& get() { return registry_; }

 private:
  BackendRegistry registry_;
};

// A backend whose device runs out of memory after `budget` allocations, to
// make To() fail half way through a model.
class FlakyDevice : public BackendDevice {
 public:
  FlakyDevice(Device device, int budget)
      : device_(std::move(device)), budget_(budget) {}
  const Device& device() const override { return device_; }
  DeviceInfo Info() const override {
    DeviceInfo info;
    info.device = device_;
    info.name = "flaky test device";
    return info;
  }
  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t bytes) override {
    if (budget_-- <= 0) {
      return absl::ResourceExhaustedError("flaky device is out of memory");
    }
    void* data = std::malloc(bytes == 0 ? 1 : bytes);
    return std::make_shared<Buffer>(*this, device_, data, bytes, &std::free);
  }
  absl::Status CopyFromHost(const void* src, Buffer& dst,
                            size_t bytes) override {
    std::memcpy(dst.data(), src, bytes);
    return absl::OkStatus();
  }
  absl::Status CopyToHost(const Buffer& src, void* dst, size_t bytes) override {
    std::memcpy(dst, src.data(), bytes);
    return absl::OkStatus();
  }
  absl::Status Supports(const Node& node, const Graph&) const override {
    return absl::UnimplementedError("the flaky device runs nothing");
  }
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(
      const Node& node, const Graph& graph) override {
    return Supports(node, graph);
  }

 private:
  Device device_;
  int budget_;
};

class FlakyBackend : public Backend {
 public:
  explicit FlakyBackend(int budget)
      : device_(*Device::Create("flaky", 0), budget) {}
  std::string type() const override { return "flaky"; }
  int DeviceCount() const override { return 1; }
  BackendDevice& GetDevice(int index) override { return device_; }

 private:
  FlakyDevice device_;
};

// ---------------------------------------------------------------------------
// Naming and initialisation

TEST(ModuleTest, NestedSequentialParameterNamesFollowPyTorch) {
  std::unique_ptr<Sequential> net = MakeNested(BackendRegistry::Global());
  std::vector<std::string> names;
  for (const auto& [name, tensor] : net->NamedParameters()) {
    names.push_back(name);
    EXPECT_FALSE(tensor->defined()) << name << " should start unmaterialized";
  }
  EXPECT_THAT(names, ElementsAre("0.weight", "0.bias", "1.0.weight", "1.0.bias",
                                 "1.2.weight"));
  const auto shapes = net->ParameterShapes();
  ASSERT_EQ(shapes.size(), 5u);
  EXPECT_EQ(shapes[0].second, Shape({3, 2}));
  EXPECT_EQ(shapes[1].second, Shape({3}));
  EXPECT_EQ(shapes[2].second, Shape({4, 3}));
  EXPECT_EQ(shapes[3].second, Shape({4}));
  EXPECT_EQ(shapes[4].second, Shape({2, 4}));
  EXPECT_EQ(net->NumParameters(), 6 + 3 + 12 + 4 + 8);
}

TEST(ModuleTest, ConvParameterShapesWithGroups) {
  Conv2dOptions o;
  o.groups = 2;
  o.bias = false;
  Conv2d conv(4, 6, 3, 2, o);
  const auto shapes = conv.ParameterShapes();
  ASSERT_EQ(shapes.size(), 1u);
  EXPECT_EQ(shapes[0].first, "weight");
  EXPECT_EQ(shapes[0].second, Shape({6, 2, 3, 2}));
}

TEST(ModuleTest, InitializeParametersIsDeterministicPerSeed) {
  std::unique_ptr<Sequential> a = MakeNested(BackendRegistry::Global());
  std::unique_ptr<Sequential> b = MakeNested(BackendRegistry::Global());
  std::unique_ptr<Sequential> c = MakeNested(BackendRegistry::Global());
  ASSERT_TRUE(a->InitializeParameters(7).ok());
  ASSERT_TRUE(b->InitializeParameters(7).ok());
  ASSERT_TRUE(c->InitializeParameters(8).ok());
  absl::StatusOr<std::map<std::string, HostArray>> sa = a->StateDict();
  absl::StatusOr<std::map<std::string, HostArray>> sb = b->StateDict();
  absl::StatusOr<std::map<std::string, HostArray>> sc = c->StateDict();
  ASSERT_TRUE(sa.ok() && sb.ok() && sc.ok());
  for (const auto& [name, array] : *sa) {
    EXPECT_EQ(array.ToFloats(), sb->at(name).ToFloats()) << name;
    EXPECT_NE(array.ToFloats(), sc->at(name).ToFloats()) << name;
    // PyTorch's default: U(-1/sqrt(fan_in), 1/sqrt(fan_in)); the bias uses
    // its weight's fan_in.
    const float fan_in =
        name.rfind("0.", 0) == 0 ? 2 : (name == "1.2.weight" ? 4 : 3);
    const float bound = 1.0f / std::sqrt(fan_in);
    for (float v : array.values()) {
      EXPECT_LE(std::abs(v), bound) << name;
    }
  }
  // Re-initializing with the same seed gives the same values again.
  ASSERT_TRUE(a->InitializeParameters(7).ok());
  EXPECT_EQ(a->StateDict()->at("1.2.weight").ToFloats(),
            sb->at("1.2.weight").ToFloats());
}

// ---------------------------------------------------------------------------
// Forward against hand-computed results

TEST(ModuleTest, LinearForwardMatchesHandComputed) {
  Linear fc(3, 2);
  ASSERT_TRUE(
      fc.LoadStateDict({{"weight", {Shape({2, 3}), {1, 2, 3, -1, 0, 1}}},
                        {"bias", {Shape({2}), {0.5f, -1}}}})
          .ok());
  Tensor x = MakeTensor({2, 3}, {1, 1, 1, 2, 0, -1});
  absl::StatusOr<Tensor> y = fc.Forward(x);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->shape(), Shape({2, 2}));
  // [1+2+3+0.5, -1+0+1-1], [2+0-3+0.5, -2+0-1-1]
  EXPECT_THAT(Values(*y), ElementsAre(6.5f, -1.0f, -0.5f, -4.0f));
}

TEST(ModuleTest, LinearWithoutBiasMatchesHandComputed) {
  Linear fc(2, 3, /*bias=*/false);
  ASSERT_TRUE(
      fc.LoadStateDict({{"weight", {Shape({3, 2}), {1, 0, 0, 1, 1, 1}}}}).ok());
  EXPECT_THAT(ForwardValues(fc, MakeTensor({1, 2}, {3, -4})),
              ElementsAre(3.0f, -4.0f, -1.0f));
}

TEST(ModuleTest, Conv2dForwardMatchesHandComputed) {
  Conv2d conv(1, 1, 2, 2);
  ASSERT_TRUE(
      conv.LoadStateDict({{"weight", {Shape({1, 1, 2, 2}), {1, 2, 3, 4}}},
                          {"bias", {Shape({1}), {0.5f}}}})
          .ok());
  // x = [[1 2 3] [4 5 6] [7 8 9]];
  // y[i][j] = x[i][j] + 2 x[i][j+1] + 3 x[i+1][j] + 4 x[i+1][j+1] + 0.5
  Tensor x = MakeTensor({1, 1, 3, 3}, Iota(9, 1, 1));
  absl::StatusOr<Tensor> y = conv.Forward(x);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->shape(), Shape({1, 1, 2, 2}));
  EXPECT_THAT(Values(*y), ElementsAre(37.5f, 47.5f, 67.5f, 77.5f));
}

TEST(ModuleTest, Conv2dPaddingStrideMatchesHandComputed) {
  // Two input channels into one output, 3x3 kernel of ones, padding 1,
  // stride 2 over a 3x3 image: each output sums the window in both channels.
  Conv2dOptions o;
  o.pad_h = o.pad_w = 1;
  o.stride_h = o.stride_w = 2;
  Conv2d conv(2, 1, 3, 3, o);
  std::vector<float> w(18, 1.0f);
  ASSERT_TRUE(conv.LoadStateDict({{"weight", {Shape({1, 2, 3, 3}), w}},
                                  {"bias", {Shape({1}), {0}}}})
                  .ok());
  // Channel 0: 1..9, channel 1: all 10.
  std::vector<float> x = Iota(9, 1, 1);
  x.insert(x.end(), 9, 10.0f);
  absl::StatusOr<Tensor> y = conv.Forward(MakeTensor({1, 2, 3, 3}, x));
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->shape(), Shape({1, 1, 2, 2}));
  // Windows centered at (0,0), (0,2), (2,0), (2,2): 2x2 corners.
  // (0,0): 1+2+4+5 = 12, + 4*10; (0,2): 2+3+5+6 = 16; (2,0): 4+5+7+8 = 24;
  // (2,2): 5+6+8+9 = 28.
  EXPECT_THAT(Values(*y), ElementsAre(52.0f, 56.0f, 64.0f, 68.0f));
}

TEST(ModuleTest, ForwardOfSequentialComposesLayers) {
  Sequential net;
  net.Add(std::make_unique<Linear>(2, 2));
  net.Add(std::make_unique<ReLU>());
  ASSERT_TRUE(net.LoadStateDict({{"0.weight", {Shape({2, 2}), {1, 0, 0, -1}}},
                                 {"0.bias", {Shape({2}), {0, 0}}}})
                  .ok());
  EXPECT_THAT(ForwardValues(net, MakeTensor({1, 2}, {3, 5})),
              ElementsAre(3.0f, 0.0f));
}

// ---------------------------------------------------------------------------
// Plan cache

TEST(ModuleTest, PlanIsReusedForTheSameShapeAndCompiledPerBatch) {
  Sequential net;
  net.Add(std::make_unique<Linear>(4, 3));
  ASSERT_TRUE(net.InitializeParameters(1).ok());
  Tensor x2 = MakeTensor({2, 4}, Iota(8, -1, 0.25f));
  const std::vector<float> first = ForwardValues(net, x2);
  absl::StatusOr<ExecutablePlan*> plan_a =
      net.Compiled(Shape({2, 4}), Device::Cpu());
  ASSERT_TRUE(plan_a.ok()) << plan_a.status();
  EXPECT_EQ(ForwardValues(net, x2), first);
  absl::StatusOr<ExecutablePlan*> plan_b =
      net.Compiled(Shape({2, 4}), Device::Cpu());
  ASSERT_TRUE(plan_b.ok());
  EXPECT_EQ(*plan_a, *plan_b);

  Tensor x5 = MakeTensor({5, 4}, Iota(20, -2, 0.2f));
  const std::vector<float> five = ForwardValues(net, x5);
  EXPECT_EQ(five.size(), 15u);
  absl::StatusOr<ExecutablePlan*> plan_c =
      net.Compiled(Shape({5, 4}), Device::Cpu());
  ASSERT_TRUE(plan_c.ok());
  EXPECT_NE(*plan_c, *plan_a);  // both alive in the cache: a real comparison
  EXPECT_EQ(*net.Compiled(Shape({2, 4}), Device::Cpu()), *plan_a);
  EXPECT_EQ(*net.Compiled(Shape({5, 4}), Device::Cpu()), *plan_c);
}

TEST(ModuleTest, LoadStateDictInvalidatesThePlan) {
  Linear fc(2, 1);
  ASSERT_TRUE(fc.LoadStateDict({{"weight", {Shape({1, 2}), {1, 1}}},
                                {"bias", {Shape({1}), {0}}}})
                  .ok());
  Tensor x = MakeTensor({1, 2}, {2, 3});
  EXPECT_THAT(ForwardValues(fc, x), ElementsAre(5.0f));
  ASSERT_TRUE(fc.LoadStateDict({{"weight", {Shape({1, 2}), {10, -1}}},
                                {"bias", {Shape({1}), {0.5f}}}})
                  .ok());
  EXPECT_THAT(ForwardValues(fc, x), ElementsAre(17.5f));
  // The cached plan is bound to the new parameter buffers.
  absl::StatusOr<ExecutablePlan*> plan =
      fc.Compiled(Shape({1, 2}), Device::Cpu());
  ASSERT_TRUE(plan.ok());
  const auto constants = PlanConstants(**plan);
  const auto params = Buffers(fc);
  EXPECT_EQ(constants.at("weight"), params.at("weight"));
  EXPECT_EQ(constants.at("bias"), params.at("bias"));

  // InitializeParameters invalidates too.
  ASSERT_TRUE(fc.InitializeParameters(3).ok());
  const std::vector<float> w = fc.StateDict()->at("weight").ToFloats();
  const float b = fc.StateDict()->at("bias").ToFloats()[0];
  EXPECT_THAT(ForwardValues(fc, x),
              ElementsAre(::testing::FloatNear(2 * w[0] + 3 * w[1] + b, 1e-6)));
}

TEST(ModuleTest, ToInvalidatesThePlan) {
  TwoBackendRegistry two;
  BackendRegistry& registry = two.get();
  Sequential net(registry);
  net.Add(std::make_unique<Linear>(3, 2));
  ASSERT_TRUE(net.InitializeParameters(5).ok());
  Tensor x = MakeTensor({1, 3}, {1, -2, 0.5f}, Device::Cpu(), registry);
  const std::vector<float> on_cpu = ForwardValues(net, x);

  ASSERT_TRUE(net.To(Dev("fake:1")).ok());
  EXPECT_EQ(net.device(), Dev("fake:1"));
  EXPECT_EQ(net.Placement().ToString(), "fake:1");
  // The cpu plan would still "work" if it were reused; it must not be.
  absl::StatusOr<Tensor> stale = net.Forward(x);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(stale.status().message(), HasSubstr("different devices"));
  EXPECT_THAT(stale.status().message(), HasSubstr("0.weight"));
  EXPECT_THAT(stale.status().message(), HasSubstr("fake:1"));
  // On the fake device, linear has no kernel.
  absl::StatusOr<Tensor> x_fake = x.To(Dev("fake:1"), registry);
  ASSERT_TRUE(x_fake.ok());
  absl::StatusOr<Tensor> unsupported = net.Forward(*x_fake);
  ASSERT_FALSE(unsupported.ok());
  EXPECT_EQ(unsupported.status().code(), absl::StatusCode::kUnimplemented)
      << unsupported.status();
  EXPECT_THAT(unsupported.status().message(), HasSubstr("linear"));

  ASSERT_TRUE(net.To(Device::Cpu()).ok());
  EXPECT_EQ(ForwardValues(net, x), on_cpu);
  absl::StatusOr<ExecutablePlan*> plan =
      net.Compiled(Shape({1, 3}), Device::Cpu());
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(PlanConstants(**plan).at("0.weight"), Buffers(net).at("0.weight"));
}

// ---------------------------------------------------------------------------
// To(): all or nothing

TEST(ModuleTest, ToFailingHalfwayLeavesEveryParameterInPlace) {
  BackendRegistry registry;
  ASSERT_TRUE(registry
                  .Register("cpu",
                            []() -> absl::StatusOr<std::unique_ptr<Backend>> {
                              return cpu::CreateCpuBackend();
                            })
                  .ok());
  // Room for two tensors: 0.weight and 0.bias move, 1.0.weight does not.
  ASSERT_TRUE(registry
                  .Register("flaky",
                            []() -> absl::StatusOr<std::unique_ptr<Backend>> {
                              return std::make_unique<FlakyBackend>(2);
                            })
                  .ok());
  std::unique_ptr<Sequential> net = MakeNested(registry);
  ASSERT_TRUE(net->InitializeParameters(11).ok());
  Tensor x = MakeTensor({2, 2}, {0.5f, -1, 2, 0.25f}, Device::Cpu(), registry);
  const std::vector<float> before = ForwardValues(*net, x);
  const auto buffers = Buffers(*net);

  absl::Status moved = net->To(Dev("flaky:0"));
  ASSERT_FALSE(moved.ok());
  EXPECT_EQ(moved.code(), absl::StatusCode::kResourceExhausted) << moved;
  EXPECT_THAT(moved.message(),
              HasSubstr("moving parameter '1.0.weight' to flaky:0"));
  EXPECT_THAT(moved.message(), HasSubstr("out of memory"));

  EXPECT_EQ(net->device(), Device::Cpu());
  EXPECT_EQ(Buffers(*net), buffers);
  for (const auto& [name, t] : net->NamedParameters()) {
    EXPECT_EQ(t->device(), Device::Cpu()) << name;
  }
  EXPECT_EQ(net->Placement().ToString(), "cpu:0");
  EXPECT_EQ(ForwardValues(*net, x), before);
}

TEST(ModuleTest, ToUnavailableDeviceFailsAndChangesNothing) {
  TwoBackendRegistry two;
  BackendRegistry& registry = two.get();
  std::unique_ptr<Sequential> net = MakeNested(registry);
  ASSERT_TRUE(net->InitializeParameters(2).ok());
  const auto buffers = Buffers(*net);

  absl::Status status = net->To(Dev("fake:2"));
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_THAT(status.message(), HasSubstr("fake:2 is not available"));
  EXPECT_THAT(status.message(), HasSubstr("use fake:0 to fake:1"));

  status = net->To(Dev("cuda:0"));
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
  EXPECT_THAT(status.message(), HasSubstr("registered types: [cpu, fake]"));

  EXPECT_EQ(net->device(), Device::Cpu());
  EXPECT_EQ(Buffers(*net), buffers);
  EXPECT_EQ(net->Placement().ToString(), "cpu:0");
}

TEST(ModuleTest, UninitializedParametersMaterializeOnTheModuleDevice) {
  TwoBackendRegistry two;
  BackendRegistry& registry = two.get();
  std::unique_ptr<Sequential> net = MakeNested(registry);
  ASSERT_TRUE(net->To(Dev("fake:0")).ok());  // nothing to move yet
  EXPECT_EQ(net->Placement().ToString(), "fake:0");
  ASSERT_TRUE(net->InitializeParameters(4).ok());
  for (const auto& [name, t] : net->NamedParameters()) {
    ASSERT_TRUE(t->defined()) << name;
    EXPECT_EQ(t->device(), Dev("fake:0")) << name;
  }
  // And the values are the seed's, wherever they live.
  std::unique_ptr<Sequential> on_cpu = MakeNested(registry);
  ASSERT_TRUE(on_cpu->InitializeParameters(4).ok());
  absl::StatusOr<std::map<std::string, HostArray>> a = net->StateDict();
  absl::StatusOr<std::map<std::string, HostArray>> b = on_cpu->StateDict();
  ASSERT_TRUE(a.ok() && b.ok()) << a.status() << b.status();
  for (const auto& [name, array] : *a)
    EXPECT_EQ(array.ToFloats(), b->at(name).ToFloats()) << name;
}

// ---------------------------------------------------------------------------
// Placement

TEST(ModuleTest, PlacementReportsOneDevice) {
  TwoBackendRegistry two;
  std::unique_ptr<Sequential> net = MakeNested(two.get());
  ASSERT_TRUE(net->InitializeParameters(0).ok());
  ParameterPlacement p = net->Placement();
  ASSERT_TRUE(p.device.has_value());
  EXPECT_EQ(*p.device, Device::Cpu());
  EXPECT_EQ(p.per_parameter.size(), 5u);
  EXPECT_EQ(p.ToString(), "cpu:0");
  ASSERT_TRUE(net->To(Dev("fake:1")).ok());
  EXPECT_EQ(net->Placement().ToString(), "fake:1");

  ReLU relu;  // no parameters: the module's device
  EXPECT_EQ(relu.Placement().ToString(), "cpu:0");
}

// Moving one child on its own (child->To()) splits the model; Placement says
// where each parameter is and Forward refuses the mixed model with the
// placement error instead of running a plan compiled before the move.
TEST(ModuleTest, MovingOneChildGivesMixedPlacement) {
  TwoBackendRegistry two;
  BackendRegistry& registry = two.get();
  Module* inner = nullptr;
  std::unique_ptr<Sequential> net = MakeNested(registry, &inner);
  ASSERT_TRUE(net->InitializeParameters(3).ok());
  Tensor x = MakeTensor({1, 2}, {1, 2}, Device::Cpu(), registry);
  const std::vector<float> before =
      ForwardValues(*net, x);  // caches a cpu plan

  ASSERT_TRUE(inner->To(Dev("fake:0")).ok());
  ParameterPlacement p = net->Placement();
  EXPECT_FALSE(p.device.has_value());
  const std::string text = p.ToString();
  EXPECT_THAT(text, HasSubstr("mixed: "));
  EXPECT_THAT(text, HasSubstr("0.weight on cpu:0"));
  EXPECT_THAT(text, HasSubstr("1.0.weight on fake:0"));
  EXPECT_THAT(text, HasSubstr("1.2.weight on fake:0"));

  absl::StatusOr<Tensor> y = net->Forward(x);
  ASSERT_FALSE(y.ok()) << "ran a plan compiled before the child moved";
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(y.status().message(), HasSubstr("1.0/linear"));
  EXPECT_THAT(y.status().message(), HasSubstr("different devices"));

  // Moving the whole model reunites it.
  ASSERT_TRUE(net->To(Device::Cpu()).ok());
  EXPECT_EQ(net->Placement().ToString(), "cpu:0");
  EXPECT_EQ(ForwardValues(*net, x), before);
}

// A module added to a Sequential before that Sequential joined its parent
// still uses the parent's registry.
TEST(ModuleTest, GrandchildrenInheritTheRegistry) {
  TwoBackendRegistry two;
  BackendRegistry& registry = two.get();
  Module* inner = nullptr;
  Module* inner_first = nullptr;
  std::unique_ptr<Sequential> net = MakeNested(registry, &inner, &inner_first);
  EXPECT_EQ(&inner->registry(), &registry);
  EXPECT_EQ(&inner_first->registry(), &registry);
  ASSERT_TRUE(net->InitializeParameters(3).ok());
  absl::Status moved = inner_first->To(Dev("fake:1"));
  EXPECT_TRUE(moved.ok()) << moved;
}

TEST(ModuleTest, LoadStateDictOnAChildInvalidatesTheParentsPlan) {
  Sequential net;
  Module* fc = net.Add(std::make_unique<Linear>(2, 1));
  ASSERT_TRUE(net.LoadStateDict({{"0.weight", {Shape({1, 2}), {1, 1}}},
                                 {"0.bias", {Shape({1}), {0}}}})
                  .ok());
  Tensor x = MakeTensor({1, 2}, {2, 3});
  EXPECT_THAT(ForwardValues(net, x), ElementsAre(5.0f));
  ASSERT_TRUE(fc->LoadStateDict({{"weight", {Shape({1, 2}), {1, -1}}},
                                 {"bias", {Shape({1}), {4}}}})
                  .ok());
  EXPECT_THAT(ForwardValues(*fc, x), ElementsAre(3.0f));
  EXPECT_THAT(ForwardValues(net, x), ElementsAre(3.0f));
  // And the other way: the parent's load reaches a child's own plan.
  ASSERT_TRUE(net.LoadStateDict({{"0.weight", {Shape({1, 2}), {0, 2}}},
                                 {"0.bias", {Shape({1}), {0}}}})
                  .ok());
  EXPECT_THAT(ForwardValues(net, x), ElementsAre(6.0f));
  EXPECT_THAT(ForwardValues(*fc, x), ElementsAre(6.0f));
}

// ---------------------------------------------------------------------------
// Errors and state dicts

TEST(ModuleTest, ForwardBeforeInitializationNamesTheParameter) {
  std::unique_ptr<Sequential> net = MakeNested(BackendRegistry::Global());
  absl::StatusOr<Tensor> y = net->Forward(MakeTensor({1, 2}, {1, 2}));
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(y.status().message(),
              HasSubstr("parameter '0.weight' has no value"));
  EXPECT_THAT(y.status().message(), HasSubstr("InitializeParameters"));

  absl::StatusOr<std::map<std::string, HostArray>> state = net->StateDict();
  EXPECT_EQ(state.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(state.status().message(), HasSubstr("'0.weight'"));
}

TEST(ModuleTest, ForwardRejectsAnUndefinedTensor) {
  Linear fc(2, 2);
  ASSERT_TRUE(fc.InitializeParameters(0).ok());
  absl::StatusOr<Tensor> y = fc.Forward(Tensor());
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(y.status().message(), HasSubstr("undefined tensor"));
}

TEST(ModuleTest, ForwardWithWrongFeatureCountNamesTheLayer) {
  std::unique_ptr<Sequential> net = MakeNested(BackendRegistry::Global());
  ASSERT_TRUE(net->InitializeParameters(0).ok());
  absl::StatusOr<Tensor> y = net->Forward(MakeTensor({1, 3}, {1, 2, 3}));
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument)
      << y.status();
  EXPECT_THAT(y.status().message(), HasSubstr("0/linear"));
}

TEST(ModuleTest, StateDictRoundTripGivesTheSameOutputs) {
  std::unique_ptr<Sequential> a = MakeNested(BackendRegistry::Global());
  ASSERT_TRUE(a->InitializeParameters(21).ok());
  Tensor x = MakeTensor({3, 2}, {1, -1, 0.5f, 2, -3, 0.25f});
  const std::vector<float> expected = ForwardValues(*a, x);

  absl::StatusOr<std::map<std::string, HostArray>> state = a->StateDict();
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->size(), 5u);
  EXPECT_EQ(state->at("1.0.weight").shape, Shape({4, 3}));

  ASSERT_TRUE(a->LoadStateDict(*state).ok());
  EXPECT_EQ(ForwardValues(*a, x), expected);

  std::unique_ptr<Sequential> b = MakeNested(BackendRegistry::Global());
  ASSERT_TRUE(b->LoadStateDict(*state).ok());
  EXPECT_EQ(ForwardValues(*b, x), expected);
}

TEST(ModuleTest, LoadStateDictListsEveryProblemAndChangesNothing) {
  std::unique_ptr<Sequential> net = MakeNested(BackendRegistry::Global());
  ASSERT_TRUE(net->InitializeParameters(9).ok());
  Tensor x = MakeTensor({2, 2}, {1, 2, -0.5f, 0.75f});
  const std::vector<float> before = ForwardValues(*net, x);
  const auto buffers = Buffers(*net);

  std::map<std::string, HostArray> state = *net->StateDict();
  for (auto& [name, array] : state) {
    for (float& v : array.mutable_values()) v += 1.0f;  // would change outputs
  }
  state.erase("0.bias");
  state.erase("1.2.weight");
  state["3.weight"] = {Shape({1}), {1}};
  state["1.0.weight"] = {Shape({3, 4}), std::vector<float>(12, 0.5f)};

  absl::Status status = net->LoadStateDict(state);
  ASSERT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  const std::string message(status.message());
  EXPECT_THAT(message, HasSubstr("cannot load state dict into Sequential"));
  EXPECT_THAT(message, HasSubstr("missing parameters: 0.bias, 1.2.weight"));
  EXPECT_THAT(message, HasSubstr("unexpected parameters: 3.weight"));
  EXPECT_THAT(
      message,
      HasSubstr("wrong shapes: 1.0.weight (expected [4, 3], file has [3, 4])"));

  EXPECT_EQ(Buffers(*net), buffers);
  EXPECT_EQ(ForwardValues(*net, x), before);

  // Each problem alone is reported too.
  std::map<std::string, HostArray> good = *net->StateDict();
  std::map<std::string, HostArray> only_shape = good;
  only_shape["0.bias"] = {Shape({1, 3}), {0, 0, 0}};
  status = net->LoadStateDict(only_shape);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("0.bias (expected [3], file has [1, 3])"));
  EXPECT_THAT(status.message(), Not(HasSubstr("missing")));
  EXPECT_THAT(status.message(), Not(HasSubstr("unexpected")));
  EXPECT_EQ(ForwardValues(*net, x), before);
}

// ---------------------------------------------------------------------------
// Buffers and dtypes

TEST(ModuleTest, BuffersAreNamedAsInPyTorchAndNotCountedAsParameters) {
  Sequential net;
  net.Add(std::make_unique<Conv2d>(1, 2, 1, 1));
  net.Add(std::make_unique<BatchNorm2d>(2));
  std::vector<std::string> parameters, buffers, state;
  for (const auto& [name, t] : net.NamedParameters()) {
    parameters.push_back(name);
  }
  for (const auto& [name, t] : net.NamedBuffers()) {
    buffers.push_back(name);
    EXPECT_FALSE(t->defined()) << name;
  }
  EXPECT_THAT(parameters,
              ElementsAre("0.weight", "0.bias", "1.weight", "1.bias"));
  EXPECT_THAT(buffers, ElementsAre("1.running_mean", "1.running_var",
                                   "1.num_batches_tracked"));
  EXPECT_EQ(net.NumParameters(), 2 + 2 + 2 + 2);
  const std::vector<StateSpec> specs = net.StateSpecs();
  for (const StateSpec& spec : specs) state.push_back(spec.name);
  EXPECT_THAT(state, ElementsAre("0.weight", "0.bias", "1.weight", "1.bias",
                                 "1.running_mean", "1.running_var",
                                 "1.num_batches_tracked"));
  EXPECT_EQ(specs.back().dtype, DType::kInt64);
  EXPECT_EQ(specs.back().shape, Shape());
  EXPECT_TRUE(specs.back().is_buffer);
  EXPECT_FALSE(specs[3].is_buffer);
}

TEST(ModuleTest, BatchNormInitializesAsPyTorchAndRoundTripsItsBuffers) {
  BatchNorm2d bn(3);
  ASSERT_TRUE(bn.InitializeParameters(5).ok());
  absl::StatusOr<std::map<std::string, HostArray>> state = bn.StateDict();
  ASSERT_TRUE(state.ok()) << state.status();
  ASSERT_EQ(state->size(), 5u);
  EXPECT_THAT(state->at("weight").values(), ElementsAre(1, 1, 1));
  EXPECT_THAT(state->at("bias").values(), ElementsAre(0, 0, 0));
  EXPECT_THAT(state->at("running_mean").values(), ElementsAre(0, 0, 0));
  EXPECT_THAT(state->at("running_var").values(), ElementsAre(1, 1, 1));
  const HostArray& tracked = state->at("num_batches_tracked");
  EXPECT_EQ(tracked.dtype, DType::kInt64);
  EXPECT_EQ(tracked.shape, Shape());
  EXPECT_EQ(tracked.ElementAsDouble(0), 0);

  (*state)["running_mean"] = HostArray(Shape({3}), {1, 2, 3});
  (*state)["num_batches_tracked"] =
      HostArray::Of<int64_t>(Shape(), {int64_t{1} << 40});
  ASSERT_TRUE(bn.LoadStateDict(*state).ok());
  absl::StatusOr<std::map<std::string, HostArray>> again = bn.StateDict();
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_THAT(again->at("running_mean").values(), ElementsAre(1, 2, 3));
  EXPECT_EQ(again->at("num_batches_tracked").bytes,
            state->at("num_batches_tracked").bytes);
  const auto buffers = bn.NamedBuffers();
  ASSERT_EQ(buffers.size(), 3u);
  EXPECT_EQ(buffers[2].second->dtype(), DType::kInt64);
}

TEST(ModuleTest, BatchNormForwardMatchesHandComputed) {
  BatchNorm2d bn(2, /*eps=*/0.5);
  std::map<std::string, HostArray> state;
  state["weight"] = HostArray(Shape({2}), {2, -1});
  state["bias"] = HostArray(Shape({2}), {0.5f, 0});
  state["running_mean"] = HostArray(Shape({2}), {1, -2});
  state["running_var"] = HostArray(Shape({2}), {3.5f, 0.5f});
  state["num_batches_tracked"] = HostArray::Of<int64_t>(Shape(), {7});
  ASSERT_TRUE(bn.LoadStateDict(state).ok());
  // Channel 0: (x - 1) / sqrt(3.5 + 0.5) * 2 + 0.5 = x - 0.5;
  // channel 1: (x + 2) / sqrt(0.5 + 0.5) * -1 = -x - 2.
  const std::vector<float> y =
      ForwardValues(bn, MakeTensor({1, 2, 1, 2}, {1, 3, -2, 0}));
  EXPECT_THAT(y, ElementsAre(FloatNear(0.5f, 1e-6), FloatNear(2.5f, 1e-6),
                             FloatNear(0, 1e-6), FloatNear(-2, 1e-6)));
}

TEST(ModuleTest, ToMovesBuffersAllOrNothing) {
  TwoBackendRegistry two;
  Sequential net(two.get());
  net.Add(std::make_unique<BatchNorm2d>(2));
  ASSERT_TRUE(net.InitializeParameters(0).ok());
  ASSERT_TRUE(net.To(Dev("fake:1")).ok());
  for (const auto& [name, t] : net.NamedBuffers()) {
    EXPECT_EQ(t->device(), Dev("fake:1")) << name;
  }
  EXPECT_EQ(net.Placement().ToString(), "fake:1");
  EXPECT_EQ(net.Placement().per_parameter.size(), 5u);
  EXPECT_EQ(net.StateDict()->at("0.running_var").ToFloats(),
            std::vector<float>({1, 1}));

  BackendRegistry registry;
  ASSERT_TRUE(registry
                  .Register("cpu",
                            []() -> absl::StatusOr<std::unique_ptr<Backend>> {
                              return cpu::CreateCpuBackend();
                            })
                  .ok());
  // Room for three tensors: weight, bias and running_mean move.
  ASSERT_TRUE(registry
                  .Register("flaky",
                            []() -> absl::StatusOr<std::unique_ptr<Backend>> {
                              return std::make_unique<FlakyBackend>(3);
                            })
                  .ok());
  Sequential flaky(registry);
  flaky.Add(std::make_unique<BatchNorm2d>(2));
  ASSERT_TRUE(flaky.InitializeParameters(0).ok());
  absl::Status moved = flaky.To(Dev("flaky:0"));
  EXPECT_EQ(moved.code(), absl::StatusCode::kResourceExhausted) << moved;
  EXPECT_THAT(moved.message(),
              HasSubstr("moving buffer '0.running_var' to flaky:0"));
  for (const auto& [name, t] : flaky.NamedBuffers()) {
    EXPECT_EQ(t->device(), Device::Cpu()) << name;
  }
}

TEST(ModuleTest, LoadStateDictChecksBuffersAndTheirDTypes) {
  BatchNorm2d bn(2);
  std::map<std::string, HostArray> state;
  state["weight"] = HostArray(Shape({2}), {1, 1});
  state["bias"] = HostArray(Shape({2}), {0, 0});
  state["running_mean"] = HostArray(Shape({2}), {0, 0});
  state["running_var"] = HostArray(Shape({2}), {1, 1});
  absl::Status status = bn.LoadStateDict(state);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("missing parameters: num_batches_tracked"));

  state["num_batches_tracked"] = HostArray(Shape(), {3});  // float32
  status = bn.LoadStateDict(state);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("wrong dtypes: num_batches_tracked (expected int64, "
                        "file has float32) (only floating-point dtypes "
                        "convert on loading)"));
  EXPECT_FALSE(bn.NamedBuffers()[0].second->defined());
}

TEST(ModuleTest, FloatingPointEntriesConvertToTheParametersDType) {
  Linear fc(2, 1);
  const uint16_t one_half = 0x3800;  // 0.5 in float16
  std::map<std::string, HostArray> state;
  state["weight"] = HostArray::Of<double>(Shape({1, 2}), {0.25, -4});
  state["bias"] = HostArray(
      Shape({1}), DType::kFloat16,
      std::vector<char>(reinterpret_cast<const char*>(&one_half),
                        reinterpret_cast<const char*>(&one_half) + 2));
  ASSERT_TRUE(fc.LoadStateDict(state).ok());
  absl::StatusOr<std::map<std::string, HostArray>> loaded = fc.StateDict();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->at("weight").dtype, DType::kFloat32);
  EXPECT_THAT(loaded->at("weight").values(), ElementsAre(0.25f, -4));
  EXPECT_THAT(loaded->at("bias").values(), ElementsAre(0.5f));
  EXPECT_THAT(ForwardValues(fc, MakeTensor({1, 2}, {4, 1})),
              ElementsAre(-2.5f));
}

// A layer with a float16 parameter (no op: it returns its input).
class HalfScale : public Module {
 public:
  HalfScale() { RegisterParameter("scale", Shape({2}), DType::kFloat16); }
  std::string type_name() const override { return "HalfScale"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override {
    return x;
  }
};

TEST(ModuleTest, AFloat16ParameterKeepsItsDType) {
  HalfScale half;
  ASSERT_TRUE(half.InitializeParameters(1).ok());
  EXPECT_EQ(half.NamedParameters()[0].second->dtype(), DType::kFloat16);
  ASSERT_TRUE(
      half.LoadStateDict({{"scale", HostArray(Shape({2}), {1.5f, -2})}}).ok());
  const Tensor& scale = *half.NamedParameters()[0].second;
  EXPECT_EQ(scale.dtype(), DType::kFloat16);
  EXPECT_EQ(scale.size_bytes(), 4u);
  EXPECT_EQ(Values(scale), std::vector<float>({1.5f, -2}));
  absl::StatusOr<std::map<std::string, HostArray>> state = half.StateDict();
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->at("scale").dtype, DType::kFloat16);
  EXPECT_EQ(state->at("scale").bytes,
            std::vector<char>({'\x00', '\x3e', '\x00', '\xc0'}));
}

// ---------------------------------------------------------------------------
// Several inputs and outputs

// (x, y) -> (x + y, relu(x)): two inputs, two outputs.
class SumAndRelu : public Module {
 public:
  std::string type_name() const override { return "SumAndRelu"; }
  absl::StatusOr<std::vector<ValueId>> TraceValues(
      Graph& graph, absl::Span<const ValueId> inputs,
      const std::string& path) const override {
    if (inputs.size() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("SumAndRelu takes 2 inputs, got ", inputs.size()));
    }
    const ValueId sum =
        graph.AddNode("add", path.empty() ? "sum" : path + ".sum",
                      {inputs[0], inputs[1]}, AttrMap());
    const ValueId relu = graph.AddNode(
        "relu", path.empty() ? "relu" : path + ".relu", {inputs[0]}, AttrMap());
    return std::vector<ValueId>{sum, relu};
  }
};

// x -> (relu(x), x + x): one input, two outputs.
class Fork : public Module {
 public:
  std::string type_name() const override { return "Fork"; }
  absl::StatusOr<std::vector<ValueId>> TraceValues(
      Graph& graph, absl::Span<const ValueId> inputs,
      const std::string& path) const override {
    const ValueId relu = graph.AddNode("relu", path, {inputs[0]}, AttrMap());
    const ValueId twice =
        graph.AddNode("add", path, {inputs[0], inputs[0]}, AttrMap());
    return std::vector<ValueId>{relu, twice};
  }
};

TEST(ModuleTest, ForwardWithSeveralInputsAndOutputs) {
  SumAndRelu module;
  const std::vector<Tensor> inputs = {MakeTensor({3}, {1, -2, 3}),
                                      MakeTensor({3}, {10, 20, 30})};
  absl::StatusOr<std::vector<Tensor>> outputs = module.Forward(inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ASSERT_EQ(outputs->size(), 2u);
  EXPECT_THAT(Values((*outputs)[0]), ElementsAre(11, 18, 33));
  EXPECT_THAT(Values((*outputs)[1]), ElementsAre(1, 0, 3));

  const std::vector<InputSpec> specs = {{Shape({3})}, {Shape({3})}};
  absl::StatusOr<Graph> graph = module.TraceGraph(specs);
  ASSERT_TRUE(graph.ok()) << graph.status();
  ASSERT_EQ(graph->inputs().size(), 2u);
  EXPECT_EQ(graph->value(graph->inputs()[0]).name, "input_0");
  EXPECT_EQ(graph->value(graph->inputs()[1]).name, "input_1");
  EXPECT_EQ(graph->outputs().size(), 2u);
  // Forward cached the plan for this signature.
  absl::StatusOr<ExecutablePlan*> a = module.Compiled(specs);
  absl::StatusOr<ExecutablePlan*> b = module.Compiled(specs);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);

  absl::StatusOr<Tensor> one = module.Forward(inputs[0]);
  EXPECT_EQ(one.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(one.status().message(), HasSubstr("takes 2 inputs, got 1"));
}

TEST(ModuleTest, SeveralOutputsWhereOneIsExpectedIsAnError) {
  Fork fork;
  Tensor x = MakeTensor({2}, {-1, 2});
  absl::StatusOr<std::vector<Tensor>> both =
      fork.Forward(absl::MakeConstSpan(&x, 1));
  ASSERT_TRUE(both.ok()) << both.status();
  ASSERT_EQ(both->size(), 2u);
  EXPECT_THAT(Values((*both)[0]), ElementsAre(0, 2));
  EXPECT_THAT(Values((*both)[1]), ElementsAre(-2, 4));

  absl::StatusOr<Tensor> one = fork.Forward(x);
  EXPECT_EQ(one.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(one.status().message(),
              HasSubstr("Fork returns 2 outputs; call "
                        "Forward(absl::Span<const Tensor>)"));

  Sequential net;
  net.Add(std::make_unique<Fork>());
  absl::StatusOr<Tensor> in_sequence = net.Forward(x);
  EXPECT_EQ(in_sequence.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(in_sequence.status().message(),
              HasSubstr("'0' (Fork) returns 2 outputs where one is expected"));
}

TEST(ModuleTest, AModuleThatOverridesNeitherTraceIsAnError) {
  class Blank : public Module {
   public:
    std::string type_name() const override { return "Blank"; }
  };
  Blank blank;
  absl::StatusOr<Tensor> y = blank.Forward(MakeTensor({1}, {1}));
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(y.status().message(),
              HasSubstr("Blank overrides neither Trace (one input, one "
                        "output) nor TraceValues"));
}

}  // namespace
}  // namespace switchyard
