// Module: parameter naming, seeded initialisation, forward against hand
// computed results, the plan cache, To() (all or nothing), placement,
// StateDict / LoadStateDict.

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
#include "backends/cpu/cpu_backend.h"
#include "core/backend.h"
#include "core/backend_registry.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "core/testing/host_backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/conv2d.h"
#include "models/linear.h"
#include "models/parameterless_layers.h"
#include "models/sequential.h"

namespace switchyard {
namespace {

using nn::Conv2d;
using nn::Conv2dOptions;
using nn::Linear;
using nn::ReLU;
using nn::Sequential;
using ::testing::ElementsAre;
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

std::vector<float> Values(
    const Tensor& t, BackendRegistry& registry = BackendRegistry::Global()) {
  absl::StatusOr<std::vector<float>> v = t.ToVector(registry);
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
  return y.ok() ? Values(*y, module.registry()) : std::vector<float>();
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
    return std::make_shared<Buffer>(device_, data, bytes, &std::free);
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
    EXPECT_EQ(array.values, sb->at(name).values) << name;
    EXPECT_NE(array.values, sc->at(name).values) << name;
    // PyTorch's default: U(-1/sqrt(fan_in), 1/sqrt(fan_in)); the bias uses
    // its weight's fan_in.
    const float fan_in =
        name.rfind("0.", 0) == 0 ? 2 : (name == "1.2.weight" ? 4 : 3);
    const float bound = 1.0f / std::sqrt(fan_in);
    for (float v : array.values) {
      EXPECT_LE(std::abs(v), bound) << name;
    }
  }
  // Re-initializing with the same seed gives the same values again.
  ASSERT_TRUE(a->InitializeParameters(7).ok());
  EXPECT_EQ(a->StateDict()->at("1.2.weight").values,
            sb->at("1.2.weight").values);
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
  o.padding_h = o.padding_w = 1;
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
  const std::vector<float> w = fc.StateDict()->at("weight").values;
  const float b = fc.StateDict()->at("bias").values[0];
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
    EXPECT_EQ(array.values, b->at(name).values) << name;
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
    for (float& v : array.values) v += 1.0f;  // would change the outputs
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

}  // namespace
}  // namespace switchyard
