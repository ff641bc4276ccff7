// The reference backend: devices, memory, copies, capability, and a few
// kernels checked by hand. Every op against PyTorch is tests/golden_test.cc;
// every op on every backend against this one is tests/conformance_test.cc.

#include "backends/reference/reference_backend.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "core/testing/host_backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace reference {
namespace {

using ::testing::HasSubstr;

// A registry with a reference backend of `devices` devices.
std::unique_ptr<BackendRegistry> RegistryWith(int devices) {
  auto registry = std::make_unique<BackendRegistry>();
  EXPECT_TRUE(registry
                  ->Register("ref", [devices] {
                    return CreateReferenceBackend(devices);
                  })
                  .ok());
  return registry;
}

std::string Property(const DeviceInfo& info, const std::string& key) {
  for (const auto& [k, v] : info.properties) {
    if (k == key) return v;
  }
  return "";
}

TEST(ReferenceBackendTest, HasTheRequestedNumberOfDevices) {
  auto registry = RegistryWith(3);
  std::vector<Device> devices = registry->AvailableDevices();
  ASSERT_EQ(devices.size(), 3u);
  EXPECT_EQ(devices[2].ToString(), "ref:2");
  absl::StatusOr<BackendDevice*> missing =
      registry->GetDevice(*Device::Parse("ref:3"));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kUnavailable);
}

TEST(ReferenceBackendTest, RejectsABadDeviceCount) {
  for (int count : {-1, kMaxRefDevices + 1}) {
    absl::StatusOr<std::unique_ptr<Backend>> backend =
        CreateReferenceBackend(count);
    EXPECT_EQ(backend.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(backend.status().message()),
                HasSubstr("takes 0 to 64 devices"));
  }
}

TEST(ReferenceBackendTest, ZeroDevicesSaysWhy) {
  auto registry = RegistryWith(0);
  absl::StatusOr<BackendDevice*> device =
      registry->GetDevice(*Device::Parse("ref:0"));
  EXPECT_EQ(device.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(device.status().message()),
              HasSubstr("SWITCHYARD_REF_DEVICES=0"));
}

TEST(ReferenceBackendTest, DeviceCountFromEnvironment) {
  unsetenv(kRefDevicesEnv);
  EXPECT_EQ(*RefDeviceCountFromEnv(), kDefaultRefDevices);
  setenv(kRefDevicesEnv, "5", 1);
  EXPECT_EQ(*RefDeviceCountFromEnv(), 5);
  setenv(kRefDevicesEnv, "0", 1);
  EXPECT_EQ(*RefDeviceCountFromEnv(), 0);
  for (const char* bad : {"two", "-1", "65", "3x"}) {
    setenv(kRefDevicesEnv, bad, 1);
    absl::StatusOr<int> count = RefDeviceCountFromEnv();
    EXPECT_EQ(count.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(count.status().message()),
                HasSubstr(std::string("SWITCHYARD_REF_DEVICES='") + bad + "'"));
  }
  // The registry reports the bad variable as the backend's start failure.
  setenv(kRefDevicesEnv, "two", 1);
  BackendRegistry registry;
  ASSERT_TRUE(registry.Register("ref", &CreateReferenceBackendFromEnv).ok());
  absl::StatusOr<Backend*> backend = registry.GetBackend("ref");
  EXPECT_EQ(backend.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(backend.status().message()),
              HasSubstr("backend 'ref' failed to start: SWITCHYARD_REF_DEVICES"));
  unsetenv(kRefDevicesEnv);
}

TEST(ReferenceBackendTest, LinkingTheLibraryRegistersTwoDevices) {
  std::vector<Device> ref;
  for (const Device& d : BackendRegistry::Global().AvailableDevices()) {
    if (d.type() == "ref") ref.push_back(d);
  }
  EXPECT_EQ(static_cast<int>(ref.size()), kDefaultRefDevices);
}

TEST(ReferenceBackendTest, InfoSaysWhatItIs) {
  auto registry = RegistryWith(2);
  DeviceInfo info = (*registry->GetDevice(*Device::Parse("ref:1")))->Info();
  EXPECT_EQ(info.device.ToString(), "ref:1");
  EXPECT_THAT(info.name, HasSubstr("reference backend"));
  EXPECT_THAT(info.name, HasSubstr("own allocations in host memory"));
  EXPECT_EQ(Property(info, "accumulation"), "double");
  EXPECT_EQ(Property(info, "allocated"), "0 bytes");
  EXPECT_GT(info.total_memory_bytes, 0);
}

TEST(ReferenceBackendTest, EachDeviceHasItsOwnAllocations) {
  auto registry = RegistryWith(2);
  BackendDevice* ref0 = *registry->GetDevice(*Device::Parse("ref:0"));
  BackendDevice* ref1 = *registry->GetDevice(*Device::Parse("ref:1"));
  {
    std::shared_ptr<Buffer> a = *ref0->Allocate(64);
    std::shared_ptr<Buffer> b = *ref1->Allocate(128);
    EXPECT_NE(a->data(), b->data());
    EXPECT_EQ(a->device().ToString(), "ref:0");
    EXPECT_EQ(Property(ref0->Info(), "allocated"), "64 bytes");
    EXPECT_EQ(Property(ref1->Info(), "allocated"), "128 bytes");
  }
  EXPECT_EQ(Property(ref0->Info(), "allocated"), "0 bytes");
  EXPECT_EQ(Property(ref1->Info(), "allocated"), "0 bytes");
}

TEST(ReferenceBackendTest, CopiesBetweenItsDevicesAreRealCopies) {
  auto registry = RegistryWith(2);
  const Device ref0 = *Device::Parse("ref:0");
  const Device ref1 = *Device::Parse("ref:1");
  Tensor x = *Tensor::FromVector({2, 2}, {1, 2, 3, 4}, ref0, *registry);
  absl::StatusOr<Tensor> y = x.To(ref1, *registry);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->device(), ref1);
  EXPECT_NE(y->buffer()->data(), x.buffer()->data());
  // Writing the source afterwards leaves the copy alone.
  const float nine[4] = {9, 9, 9, 9};
  ASSERT_TRUE((*registry->GetDevice(ref0))
                  ->CopyFromHost(nine, *x.buffer(), sizeof(nine))
                  .ok());
  EXPECT_EQ(*y->ToVector(*registry), (std::vector<float>{1, 2, 3, 4}));
}

TEST(ReferenceBackendTest, DirectCopyOnlyBetweenItsOwnDevices) {
  auto registry = RegistryWith(1);
  ASSERT_TRUE(registry
                  ->Register("fake", [] {
                    return testing::MakeHostBackend("fake", 1);
                  })
                  .ok());
  BackendDevice* ref0 = *registry->GetDevice(*Device::Parse("ref:0"));
  BackendDevice* fake0 = *registry->GetDevice(*Device::Parse("fake:0"));
  std::shared_ptr<Buffer> src = *ref0->Allocate(16);
  std::shared_ptr<Buffer> dst = *fake0->Allocate(16);
  absl::Status direct = ref0->CopyToDevice(*src, *fake0, *dst, 16);
  EXPECT_EQ(direct.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(direct.message()), HasSubstr("fake:0"));
  // Core stages such copies through the host instead.
  Tensor x = *Tensor::FromVector({3}, {1, 2, 3}, *Device::Parse("ref:0"),
                                 *registry);
  absl::StatusOr<Tensor> y = x.To(*Device::Parse("fake:0"), *registry);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(*y->ToVector(*registry), (std::vector<float>{1, 2, 3}));
}

TEST(ReferenceBackendTest, CopiesCheckTheBuffer) {
  auto registry = RegistryWith(2);
  BackendDevice* ref0 = *registry->GetDevice(*Device::Parse("ref:0"));
  BackendDevice* ref1 = *registry->GetDevice(*Device::Parse("ref:1"));
  std::shared_ptr<Buffer> on_ref1 = *ref1->Allocate(16);
  const float values[4] = {};
  absl::Status wrong_device = ref0->CopyFromHost(values, *on_ref1, 16);
  EXPECT_EQ(wrong_device.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(wrong_device.message()),
              HasSubstr("is on ref:1, not on ref:0"));
  absl::Status too_big = ref1->CopyFromHost(values, *on_ref1, 32);
  EXPECT_EQ(too_big.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(too_big.message()),
              HasSubstr("32 bytes does not fit"));
}

TEST(ReferenceBackendTest, SupportsNamesTheUnknownOp) {
  auto registry = RegistryWith(1);
  BackendDevice* ref0 = *registry->GetDevice(*Device::Parse("ref:0"));
  Graph graph;
  Node node;
  node.name = "block.2/gelu";
  node.op = "gelu";
  absl::Status supported = ref0->Supports(node, graph);
  EXPECT_EQ(supported.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(supported.message()),
              HasSubstr("no kernel for op 'gelu' (node 'block.2/gelu')"));
  EXPECT_THAT(std::string(supported.message()), HasSubstr("conv2d"));
  node.op = "conv2d";
  EXPECT_TRUE(ref0->Supports(node, graph).ok());
}

TEST(ReferenceBackendTest, EveryOpHasAKernel) {
  EXPECT_EQ(ReferenceOps(),
            (std::vector<std::string>{"adaptive_avg_pool2d", "add", "conv2d",
                                      "dropout", "flatten", "linear",
                                      "max_pool2d", "relu", "softmax"}));
}

TEST(ReferenceBackendTest, KernelRefusesATensorOfAnotherDevice) {
  auto registry = RegistryWith(2);
  const Device ref0 = *Device::Parse("ref:0");
  const Device ref1 = *Device::Parse("ref:1");
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({2}), ref0);
  graph.AddNode("relu", "act", {x}, AttrMap());
  BackendDevice* device = *registry->GetDevice(ref0);
  std::unique_ptr<Kernel> kernel =
      *device->CreateKernel(graph.nodes()[0], graph);
  Tensor in = *Tensor::FromVector({2}, {1, -1}, ref1, *registry);
  Tensor out = *Tensor::Empty({2}, DType::kFloat32, ref0, *registry);
  const Tensor* inputs[] = {&in};
  Tensor* outputs[] = {&out};
  absl::Status status = kernel->Run(inputs, outputs);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("input 0 is on ref:1 but the kernel runs on ref:0"));
}

// Runs one op on ref:1 (Global(), where //backends/reference registered).
std::vector<float> RunOp(const std::string& op,
                         std::vector<std::pair<Shape, std::vector<float>>> inputs,
                         AttrMap attrs, Shape* out_shape = nullptr) {
  const Device ref1 = *Device::Parse("ref:1");
  Graph graph;
  std::vector<ValueId> operands;
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < inputs.size(); ++i) {
    operands.push_back(
        graph.AddInput("x" + std::to_string(i), inputs[i].first, ref1));
    tensors.push_back(
        *Tensor::FromVector(inputs[i].first, inputs[i].second, ref1));
  }
  graph.AddOutput(graph.AddNode(op, "layer", operands, std::move(attrs)));
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
      Compile(std::move(graph));
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return {};
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run(tensors);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  EXPECT_EQ((*out)[0].device(), ref1);
  if (out_shape != nullptr) *out_shape = (*out)[0].shape();
  return *(*out)[0].ToVector();
}

TEST(ReferenceKernelTest, Conv2dByHand) {
  AttrMap attrs;
  // 3x3 image 1..9, a 2x2 kernel of ones, bias 0.5: sums of 2x2 windows.
  Shape shape;
  std::vector<float> out =
      RunOp("conv2d",
            {{Shape({1, 1, 3, 3}), {1, 2, 3, 4, 5, 6, 7, 8, 9}},
             {Shape({1, 1, 2, 2}), {1, 1, 1, 1}},
             {Shape({1}), {0.5f}}},
            attrs, &shape);
  EXPECT_EQ(shape, Shape({1, 1, 2, 2}));
  EXPECT_EQ(out, (std::vector<float>{12.5f, 16.5f, 24.5f, 28.5f}));
}

TEST(ReferenceKernelTest, Conv2dPaddingAndStrideByHand) {
  AttrMap attrs;
  attrs.Set("padding", std::vector<int64_t>{1, 1});
  attrs.Set("stride", std::vector<int64_t>{2, 2});
  // The same sums with a zero border, every other window: corners only.
  std::vector<float> out =
      RunOp("conv2d",
            {{Shape({1, 1, 3, 3}), {1, 2, 3, 4, 5, 6, 7, 8, 9}},
             {Shape({1, 1, 2, 2}), {1, 1, 1, 1}}},
            attrs);
  EXPECT_EQ(out, (std::vector<float>{1, 5, 11, 28}));
}

TEST(ReferenceKernelTest, MaxPoolCeilModeByHand) {
  AttrMap attrs;
  attrs.Set("kernel_size", std::vector<int64_t>{2, 2});
  attrs.Set("ceil_mode", true);
  // 3x3 -> 2x2: the last row and column get windows of their own.
  std::vector<float> out = RunOp(
      "max_pool2d", {{Shape({1, 1, 3, 3}), {1, 2, 3, 4, 5, 6, 7, 8, 9}}}, attrs);
  EXPECT_EQ(out, (std::vector<float>{5, 6, 8, 9}));
}

TEST(ReferenceKernelTest, MaxPoolPropagatesNan) {
  AttrMap attrs;
  attrs.Set("kernel_size", std::vector<int64_t>{2, 2});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> out = RunOp(
      "max_pool2d", {{Shape({1, 1, 2, 4}), {nan, 1, 2, 3, 4, 5, 6, 7}}}, attrs);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_EQ(out[1], 7);
}

TEST(ReferenceKernelTest, LinearByHand) {
  std::vector<float> out =
      RunOp("linear",
            {{Shape({1, 2}), {1, 2}},
             {Shape({2, 2}), {1, 1, 2, -1}},
             {Shape({2}), {0, 1}}},
            AttrMap());
  EXPECT_EQ(out, (std::vector<float>{3, 1}));
}

TEST(ReferenceKernelTest, AdaptiveAvgPoolOverlappingWindowsByHand) {
  AttrMap attrs;
  attrs.Set("output_size", std::vector<int64_t>{2, 1});
  // Rows [0, 2) and [1, 3) of a 3x1 column.
  std::vector<float> out =
      RunOp("adaptive_avg_pool2d", {{Shape({1, 1, 3, 1}), {1, 2, 3}}}, attrs);
  EXPECT_EQ(out, (std::vector<float>{1.5f, 2.5f}));
}

TEST(ReferenceKernelTest, SoftmaxOfHugeValuesDoesNotOverflow) {
  AttrMap attrs;
  attrs.Set("dim", int64_t{-1});
  std::vector<float> out =
      RunOp("softmax", {{Shape({2, 2}), {1000, 1000, -1000, 0}}}, attrs);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_FLOAT_EQ(out[0], 0.5f);
  EXPECT_FLOAT_EQ(out[1], 0.5f);
  EXPECT_FLOAT_EQ(out[2], 0.0f);
  EXPECT_FLOAT_EQ(out[3], 1.0f);
}

TEST(ReferenceKernelTest, ReluKeepsNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> out = RunOp("relu", {{Shape({3}), {-1, nan, 2}}}, AttrMap());
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], 0);
  EXPECT_TRUE(std::isnan(out[1]));
  EXPECT_EQ(out[2], 2);
}

}  // namespace
}  // namespace reference
}  // namespace switchyard
