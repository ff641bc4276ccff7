// The reference backend: devices, memory, copies, capability, and a few
// kernels checked by hand. Every op against PyTorch is tests/golden_test.cc;
// every op on every backend against this one is tests/conformance_test.cc.

#include "backends/reference/reference_backend.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/dtype.h"
#include "core/graph.h"
#include "core/op_def.h"
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
  EXPECT_EQ(*y->ToVector(), (std::vector<float>{1, 2, 3, 4}));
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
  EXPECT_EQ(*y->ToVector(), (std::vector<float>{1, 2, 3}));
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
  node.name = "block.2/selu";
  node.op = "selu";
  absl::Status supported = ref0->Supports(node, graph);
  EXPECT_EQ(supported.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(supported.message()),
              HasSubstr("no kernel for op 'selu' (node 'block.2/selu')"));
  EXPECT_THAT(std::string(supported.message()), HasSubstr("conv2d"));
  node.op = "conv2d";
  EXPECT_TRUE(ref0->Supports(node, graph).ok());
}

TEST(ReferenceBackendTest, EveryOpHasAFloat32Kernel) {
  const std::vector<std::pair<std::string, DType>> keys = ReferenceKernelKeys();
  auto has = [&](const std::string& op, DType dtype) {
    return std::find(keys.begin(), keys.end(), std::make_pair(op, dtype)) !=
           keys.end();
  };
  for (const std::string& op : OpRegistry::Global().Names()) {
    if (op == "copy") continue;  // core's own: no backend implements it
    // An op whose first operand is never float32 (where: a bool condition)
    // has its kernels under the first dtype its schema takes.
    const std::vector<DType>& takes =
        (*OpRegistry::Global().Find(op))->schema().dtypes;
    const bool float32 =
        takes.empty() ||
        std::find(takes.begin(), takes.end(), DType::kFloat32) != takes.end();
    EXPECT_TRUE(has(op, float32 ? DType::kFloat32 : takes.front())) << op;
  }
  for (const char* op :
       {"adaptive_avg_pool2d", "add", "batch_norm", "conv2d", "dropout",
        "flatten", "linear", "max_pool2d", "relu", "softmax"}) {
    EXPECT_TRUE(has(op, DType::kFloat32)) << op;
  }
}

TEST(ReferenceBackendTest, DataMovementInEveryDTypeArithmeticInFloat64Too) {
  const std::vector<std::pair<std::string, DType>> keys = ReferenceKernelKeys();
  auto dtypes_of = [&](const std::string& op) {
    std::vector<DType> dtypes;
    for (const auto& [o, d] : keys) {
      if (o == op) dtypes.push_back(d);
    }
    return dtypes;
  };
  EXPECT_EQ(dtypes_of("flatten"), AllDTypes());
  EXPECT_EQ(dtypes_of("dropout"),
            (std::vector<DType>{DType::kFloat32, DType::kFloat16,
                                DType::kBFloat16, DType::kFloat64}));
  EXPECT_EQ(dtypes_of("relu"),
            (std::vector<DType>{DType::kFloat32, DType::kFloat64}));
  EXPECT_EQ(dtypes_of("add"),
            (std::vector<DType>{DType::kFloat32, DType::kFloat64, DType::kInt64,
                                DType::kInt32, DType::kInt8, DType::kUInt8}));
  EXPECT_EQ(dtypes_of("cast"), AllDTypes());
  EXPECT_EQ(dtypes_of("conv2d"), std::vector<DType>{DType::kFloat32});
}

TEST(ReferenceBackendTest, SupportsNamesTheMissingDType) {
  auto registry = RegistryWith(1);
  const Device ref0 = *Device::Parse("ref:0");
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({2}), ref0, DType::kFloat16);
  graph.AddNode("relu", "act", {x}, AttrMap());
  absl::Status supported =
      (*registry->GetDevice(ref0))->Supports(graph.nodes()[0], graph);
  EXPECT_EQ(supported.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(supported.message()),
              HasSubstr("no float16 kernel for op 'relu'"));
  EXPECT_THAT(std::string(supported.message()), HasSubstr("float32, float64"));
}

TEST(ReferenceBackendTest, DevicesIsAReadOnlyOption) {
  auto registry = RegistryWith(3);
  absl::StatusOr<std::string> devices = registry->GetOption("ref", "devices");
  ASSERT_TRUE(devices.ok()) << devices.status();
  EXPECT_EQ(*devices, "3");
  absl::Status set = registry->SetOption("ref", "devices", "4");
  EXPECT_EQ(set.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(set.message()), HasSubstr("read-only"));
  EXPECT_THAT(std::string(set.message()), HasSubstr("SWITCHYARD_REF_DEVICES"));
  EXPECT_EQ(*registry->GetOption("ref", "devices"), "3");
}

TEST(ReferenceBackendTest, UnknownOptionNamesTheKeyAndTheAcceptedOnes) {
  auto registry = RegistryWith(1);
  absl::Status set = registry->SetOption("ref.threads=2");
  EXPECT_EQ(set.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(set.message()), HasSubstr("no option 'threads'"));
  EXPECT_THAT(std::string(set.message()), HasSubstr("its options: devices"));
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

TEST(ReferenceBackendTest, KernelRefusesATensorOfAnotherDType) {
  auto registry = RegistryWith(1);
  const Device ref0 = *Device::Parse("ref:0");
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({2}), ref0);
  graph.AddNode("relu", "act", {x}, AttrMap());
  BackendDevice* device = *registry->GetDevice(ref0);
  std::unique_ptr<Kernel> kernel =
      *device->CreateKernel(graph.nodes()[0], graph);
  Tensor in = *Tensor::Empty({2}, DType::kFloat64, *device);
  Tensor out = *Tensor::Empty({2}, DType::kFloat32, *device);
  const Tensor* inputs[] = {&in};
  Tensor* outputs[] = {&out};
  absl::Status status = kernel->Run(inputs, outputs);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("input 0 is float64 but the reference kernel was built "
                        "for float32"));
}

// Runs the kernel of a one-node graph (op over inputs of `inputs`' dtypes
// and shapes) on ref:0 of a fresh registry, without shape inference: the
// output gets `out_shape` and the first input's dtype.
absl::StatusOr<Tensor> RunKernel(const std::string& op, AttrMap attrs,
                                 const std::vector<Tensor>& inputs,
                                 const Shape& out_shape) {
  const Device ref0 = *Device::Parse("ref:0");
  Graph graph;
  std::vector<ValueId> ids;
  for (size_t i = 0; i < inputs.size(); ++i) {
    ids.push_back(graph.AddInput("x" + std::to_string(i), inputs[i].shape(),
                                 ref0, inputs[i].dtype()));
  }
  graph.AddNode(op, "layer", ids, std::move(attrs));
  BackendDevice& device = inputs[0].backend_device();
  absl::StatusOr<std::unique_ptr<Kernel>> kernel =
      device.CreateKernel(graph.nodes()[0], graph);
  if (!kernel.ok()) return kernel.status();
  absl::StatusOr<Tensor> out =
      Tensor::Empty(out_shape, inputs[0].dtype(), device);
  if (!out.ok()) return out.status();
  std::vector<const Tensor*> in_ptrs;
  for (const Tensor& t : inputs) in_ptrs.push_back(&t);
  Tensor* out_ptrs[] = {&*out};
  absl::Status ran = (*kernel)->Run(in_ptrs, out_ptrs);
  if (!ran.ok()) return ran;
  return out;
}

TEST(ReferenceKernelTest, FlattenMovesInt64AndBoolUnchanged) {
  auto registry = RegistryWith(1);
  BackendDevice& ref0 = **registry->GetDevice(*Device::Parse("ref:0"));
  const std::vector<int64_t> big = {int64_t{1} << 60, -3, 7,
                                    -(int64_t{1} << 62)};
  Tensor x = *Tensor::FromValues<int64_t>({2, 2}, big, ref0);
  absl::StatusOr<Tensor> y = RunKernel("flatten", AttrMap(), {x}, Shape({4}));
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->dtype(), DType::kInt64);
  EXPECT_EQ(*y->ToHost<int64_t>(), big);

  const bool raw[] = {true, false, true};
  Tensor b = *Tensor::FromBytes({3}, DType::kBool, raw, sizeof(raw), ref0);
  absl::StatusOr<Tensor> kept =
      RunKernel("flatten", AttrMap(), {b}, Shape({3}));
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(*kept->ToVector(), (std::vector<float>{1, 0, 1}));
}

TEST(ReferenceKernelTest, ReluAndAddInFloat64KeepDoublePrecision) {
  auto registry = RegistryWith(1);
  BackendDevice& ref0 = **registry->GetDevice(*Device::Parse("ref:0"));
  // 1 + 2^-40 is not a float: float32 arithmetic would lose the tail.
  const double tiny = std::ldexp(1.0, -40);
  Tensor a = *Tensor::FromValues<double>({3}, {1.0, -2.0, tiny}, ref0);
  Tensor b = *Tensor::FromValues<double>({3}, {tiny, 1.0, 1.0}, ref0);
  absl::StatusOr<Tensor> sum = RunKernel("add", AttrMap(), {a, b}, Shape({3}));
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(*sum->ToHost<double>(),
            (std::vector<double>{1.0 + tiny, -1.0, 1.0 + tiny}));
  absl::StatusOr<Tensor> relu =
      RunKernel("relu", AttrMap(), {*sum}, Shape({3}));
  ASSERT_TRUE(relu.ok()) << relu.status();
  EXPECT_EQ(*relu->ToHost<double>(),
            (std::vector<double>{1.0 + tiny, 0.0, 1.0 + tiny}));
}

TEST(ReferenceKernelTest, BatchNormByHand) {
  auto registry = RegistryWith(1);
  BackendDevice& ref0 = **registry->GetDevice(*Device::Parse("ref:0"));
  // [N=1, C=2, 2]: channel 0 has mean 1, var 4 - eps (so sqrt(var + eps) is
  // 2 exactly), weight 3, bias 1; channel 1 is the identity but for bias -1.
  AttrMap attrs;
  attrs.Set("epsilon", 0.25);
  Tensor x = *Tensor::FromVector({1, 2, 2}, {1, 5, 2, -2}, ref0);
  Tensor weight = *Tensor::FromVector({2}, {3, 1}, ref0);
  Tensor bias = *Tensor::FromVector({2}, {1, -1}, ref0);
  Tensor mean = *Tensor::FromVector({2}, {1, 0}, ref0);
  Tensor var = *Tensor::FromVector({2}, {3.75f, 0.75f}, ref0);
  absl::StatusOr<Tensor> y = RunKernel(
      "batch_norm", attrs, {x, weight, bias, mean, var}, Shape({1, 2, 2}));
  ASSERT_TRUE(y.ok()) << y.status();
  // (1-1)/2*3+1 = 1, (5-1)/2*3+1 = 7; 2/1-1 = 1, -2/1-1 = -3.
  EXPECT_EQ(*y->ToVector(), (std::vector<float>{1, 7, 1, -3}));
}

TEST(ReferenceKernelTest, BatchNormEpsilonDefaultsTo1e5) {
  auto registry = RegistryWith(1);
  BackendDevice& ref0 = **registry->GetDevice(*Device::Parse("ref:0"));
  Tensor x = *Tensor::FromVector({1, 1}, {1}, ref0);
  Tensor one = *Tensor::FromVector({1}, {1}, ref0);
  Tensor zero = *Tensor::FromVector({1}, {0}, ref0);
  absl::StatusOr<Tensor> y = RunKernel(
      "batch_norm", AttrMap(), {x, one, zero, zero, zero}, Shape({1, 1}));
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_FLOAT_EQ((*y->ToVector())[0], static_cast<float>(1 / std::sqrt(1e-5)));
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
    tensors.push_back(*Tensor::FromVector(inputs[i].first, inputs[i].second,
                                          ref1, BackendRegistry::Global()));
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
