// The Eigen CPU backend: device info, its options (the thread count, on
// which results do not depend), its kernel registry, and allocation failure
// as a Status.

#include "backends/cpu/cpu_backend.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "backends/cpu/cpu_device.h"
#include "backends/testing/random_values.h"
#include "core/attributes.h"
#include "core/caching_allocator.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "core/testing/host_backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace cpu {
namespace {

using ::testing::HasSubstr;
using ::switchyard::testing::RandomValues;

// Registers the cpu backend in `registry`: tests that change its options use
// a registry of their own, not the global one.
absl::Status RegisterCpu(BackendRegistry& registry) {
  return registry.Register(
      "cpu", []() -> absl::StatusOr<std::unique_ptr<Backend>> {
        return CreateCpuBackend();
      });
}

// The cpu backend's "threads" option in `registry`; 0 when unreadable.
int Threads(BackendRegistry& registry) {
  absl::StatusOr<std::string> value = registry.GetOption("cpu", "threads");
  int threads = 0;
  if (!value.ok() || !absl::SimpleAtoi(*value, &threads)) return 0;
  return threads;
}

absl::Status SetThreads(BackendRegistry& registry, int threads) {
  return registry.SetOption("cpu", "threads", std::to_string(threads));
}

std::string Property(const DeviceInfo& info, const std::string& key) {
  for (const auto& [k, v] : info.properties) {
    if (k == key) return v;
  }
  return "";
}

struct ConvCase {
  int64_t n, c, h, w, o, k, stride, pad, groups;
};

// A compiled Conv2d of seeded random weights, and its seeded random input.
// Kernels take the device's thread count at compile time.
struct ConvPlan {
  std::unique_ptr<ExecutablePlan> plan;
  Tensor input;
};

ConvPlan CompileConv(const ConvCase& cc, BackendRegistry& registry) {
  const std::vector<float> x = RandomValues(cc.n * cc.c * cc.h * cc.w, 1);
  const std::vector<float> w =
      RandomValues(cc.o * (cc.c / cc.groups) * cc.k * cc.k, 2);
  const std::vector<float> b = RandomValues(cc.o, 3);
  absl::StatusOr<Tensor> wt = Tensor::FromVector(
      {cc.o, cc.c / cc.groups, cc.k, cc.k}, w, Device::Cpu(), registry);
  absl::StatusOr<Tensor> bt =
      Tensor::FromVector({cc.o}, b, Device::Cpu(), registry);
  absl::StatusOr<Tensor> xt =
      Tensor::FromVector({cc.n, cc.c, cc.h, cc.w}, x, Device::Cpu(), registry);
  EXPECT_TRUE(wt.ok() && bt.ok() && xt.ok());
  Graph graph;
  ValueId in = graph.AddInput("x", xt->shape(), Device::Cpu());
  ValueId wv = graph.AddConstant("conv.weight", *wt);
  ValueId bv = graph.AddConstant("conv.bias", *bt);
  AttrMap attrs;
  attrs.Set("stride", std::vector<int64_t>{cc.stride, cc.stride});
  attrs.Set("padding", std::vector<int64_t>{cc.pad, cc.pad});
  attrs.Set("dilation", std::vector<int64_t>{1, 1});
  attrs.Set("groups", cc.groups);
  graph.AddOutput(
      graph.AddNode("conv2d", "conv", {in, wv, bv}, std::move(attrs)));
  CompileOptions options;
  options.backends = &registry;
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
      Compile(std::move(graph), options);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return {plan.ok() ? *std::move(plan) : nullptr, *xt};
}

std::vector<float> RunPlan(ConvPlan& conv, BackendRegistry& registry) {
  if (conv.plan == nullptr) return {};
  absl::StatusOr<std::vector<Tensor>> out = conv.plan->Run({conv.input});
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  absl::StatusOr<std::vector<float>> values = (*out)[0].ToVector();
  EXPECT_TRUE(values.ok());
  return *values;
}

// Compiles with the device's thread count now and runs once.
std::vector<float> RunConv(const ConvCase& cc, BackendRegistry& registry) {
  ConvPlan conv = CompileConv(cc, registry);
  return RunPlan(conv, registry);
}

// The direct definition, in double.
std::vector<float> ReferenceConv(const ConvCase& cc) {
  const std::vector<float> x = RandomValues(cc.n * cc.c * cc.h * cc.w, 1);
  const int64_t cg = cc.c / cc.groups, og = cc.o / cc.groups;
  const std::vector<float> w = RandomValues(cc.o * cg * cc.k * cc.k, 2);
  const std::vector<float> b = RandomValues(cc.o, 3);
  const int64_t ho = (cc.h + 2 * cc.pad - cc.k) / cc.stride + 1;
  const int64_t wo = (cc.w + 2 * cc.pad - cc.k) / cc.stride + 1;
  std::vector<float> y(cc.n * cc.o * ho * wo);
  for (int64_t n = 0; n < cc.n; ++n)
    for (int64_t o = 0; o < cc.o; ++o)
      for (int64_t i = 0; i < ho; ++i)
        for (int64_t j = 0; j < wo; ++j) {
          double acc = b[o];
          const int64_t g = o / og;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t ki = 0; ki < cc.k; ++ki)
              for (int64_t kj = 0; kj < cc.k; ++kj) {
                const int64_t ih = i * cc.stride - cc.pad + ki;
                const int64_t iw = j * cc.stride - cc.pad + kj;
                if (ih < 0 || ih >= cc.h || iw < 0 || iw >= cc.w) continue;
                acc +=
                    static_cast<double>(
                        x[((n * cc.c + g * cg + c) * cc.h + ih) * cc.w + iw]) *
                    w[((o * cg + c) * cc.k + ki) * cc.k + kj];
              }
          y[((n * cc.o + o) * ho + i) * wo + j] = static_cast<float>(acc);
        }
  return y;
}

class CpuBackendTest : public ::testing::Test {
 protected:
  void TearDown() override {
    // Leave the process-wide device as the next test expects it.
    ASSERT_TRUE(SetThreads(BackendRegistry::Global(), initial_threads_).ok());
  }
  const int initial_threads_ = Threads(BackendRegistry::Global());
};

TEST_F(CpuBackendTest, LinkingRegistersCpu0) {
  BackendRegistry& registry = BackendRegistry::Global();
  EXPECT_THAT(registry.Types(), ::testing::Contains("cpu"));
  absl::StatusOr<BackendDevice*> device = registry.GetDevice(Device::Cpu());
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ((*device)->device(), Device::Cpu());
  absl::StatusOr<BackendDevice*> second =
      registry.GetDevice(*Device::Parse("cpu:1"));
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(second.status().message(), HasSubstr("has 1 device; use cpu:0"));
}

TEST_F(CpuBackendTest, DeviceInfoHasNameMemoryAndThreads) {
  absl::StatusOr<BackendDevice*> device =
      BackendRegistry::Global().GetDevice(Device::Cpu());
  ASSERT_TRUE(device.ok());
  const DeviceInfo info = (*device)->Info();
  EXPECT_EQ(info.device, Device::Cpu());
  EXPECT_FALSE(info.name.empty());
  EXPECT_GT(info.total_memory_bytes, 0);
  EXPECT_GT(info.free_memory_bytes, 0);
  EXPECT_LE(info.free_memory_bytes, info.total_memory_bytes);
  EXPECT_EQ(Property(info, "threads"),
            std::to_string(Threads(BackendRegistry::Global())));
  EXPECT_FALSE(Property(info, "cores").empty());

  ASSERT_TRUE(SetThreads(BackendRegistry::Global(), 3).ok());
  EXPECT_EQ(Threads(BackendRegistry::Global()), 3);
  EXPECT_EQ(Property((*device)->Info(), "threads"), "3");
}

// The conv kernel splits output columns into tiles by thread count and
// multiplies each tile with Eigen's GEMM. A column's dot products do not
// depend on which thread runs its tile, so a given thread count always gives
// the same bits; but Eigen picks its blocking and kernel paths from the
// tile's width, so the order of the K-term sums, and with it the last bit or
// two, can change with the thread count. Hence: bitwise equal for one count,
// within a few float32 ulps of the sums across counts, and against a double
// reference within the usual float32 tolerance. The same holds for each
// Winograd (whose blocks and channel shares also follow the thread count),
// except that its output transform (coefficients up to 8) amplifies those
// last bits: 1e-4 relative across counts there.
TEST_F(CpuBackendTest, ConvResultsAgreeAcrossThreadCounts) {
  BackendRegistry& registry = BackendRegistry::Global();
  for (const char* algorithm : {"direct", "winograd2", "winograd4"}) {
  SCOPED_TRACE(algorithm);
  ASSERT_TRUE(registry.SetOption("cpu", "conv_algorithm", algorithm).ok());
  const float across = std::string(algorithm) == "direct" ? 1e-5f : 1e-4f;
  const std::vector<ConvCase> cases = {
      {1, 16, 37, 37, 24, 3, 1, 1, 1},  // one image: columns split per thread
      {3, 8, 20, 24, 12, 3, 2, 1, 2},   // batch, stride and groups
      {1, 4, 50, 50, 8, 1, 1, 0, 1},    // 1x1: the pointwise path
      {2, 3, 64, 64, 16, 3, 1, 1, 1},   // 4096 columns: several tiles anyway
  };
  for (const ConvCase& cc : cases) {
    SCOPED_TRACE(::testing::Message()
                 << "n=" << cc.n << " c=" << cc.c << " h=" << cc.h
                 << " o=" << cc.o << " k=" << cc.k);
    const std::vector<float> reference = ReferenceConv(cc);
    ASSERT_TRUE(SetThreads(registry, 1).ok());
    const std::vector<float> one = RunConv(cc, registry);
    ASSERT_EQ(one.size(), reference.size());
    for (size_t i = 0; i < one.size(); ++i) {
      ASSERT_NEAR(one[i], reference[i], 1e-4f * (1 + std::abs(reference[i])))
          << i;
    }
    for (int threads : {2, 3, 4, 7}) {
      ASSERT_TRUE(SetThreads(registry, threads).ok());
      ConvPlan conv = CompileConv(cc, registry);
      const std::vector<float> many = RunPlan(conv, registry);
      ASSERT_EQ(many.size(), one.size());
      for (size_t i = 0; i < one.size(); ++i) {
        ASSERT_NEAR(many[i], one[i], across * (1 + std::abs(one[i])))
            << threads << " threads, element " << i;
      }
      // Same thread count, same plan or a new one: the same bits.
      EXPECT_EQ(RunPlan(conv, registry), many) << threads << " threads";
      EXPECT_EQ(RunConv(cc, registry), many) << threads << " threads";
    }
  }
  }
  ASSERT_TRUE(registry.SetOption("cpu", "conv_algorithm", "auto").ok());
}

TEST_F(CpuBackendTest, PlanCompiledBeforeAThreadChangeKeepsItsThreads) {
  BackendRegistry& registry = BackendRegistry::Global();
  const ConvCase cc = {1, 16, 37, 37, 24, 3, 1, 1, 1};
  ASSERT_TRUE(SetThreads(registry, 2).ok());
  ConvPlan conv = CompileConv(cc, registry);
  const std::vector<float> before = RunPlan(conv, registry);
  ASSERT_FALSE(before.empty());
  ASSERT_TRUE(SetThreads(registry, 1).ok());
  EXPECT_EQ(Threads(registry), 1);
  // Still runs, with the pool and tiling it was compiled with.
  EXPECT_EQ(RunPlan(conv, registry), before);
}

TEST_F(CpuBackendTest, OptionsAreListedWithTheirValues) {
  BackendRegistry registry;
  ASSERT_TRUE(RegisterCpu(registry).ok());
  absl::StatusOr<Backend*> backend = registry.GetBackend("cpu");
  ASSERT_TRUE(backend.ok());
  const std::vector<BackendOption> options = (*backend)->Options();
  ASSERT_EQ(options.size(), 4u);
  EXPECT_EQ(options[0].key, "threads");
  EXPECT_EQ(options[1].key, "fusion");
  EXPECT_EQ(options[1].value, "on");
  EXPECT_EQ(options[2].key, "conv_algorithm");
  EXPECT_EQ(options[2].value, "auto");
  EXPECT_EQ(options[3].key, "memory_cache_mb");
  EXPECT_EQ(options[3].value, "1024");
  for (const BackendOption& option : options) EXPECT_FALSE(option.help.empty());

  ASSERT_TRUE(registry.SetOption("cpu.threads=3").ok());
  ASSERT_TRUE(registry.SetOption("cpu", "fusion", "off").ok());
  EXPECT_EQ(*registry.GetOption("cpu", "threads"), "3");
  EXPECT_EQ(*registry.GetOption("cpu", "fusion"), "off");
  EXPECT_EQ(Property((*backend)->GetDevice(0).Info(), "threads"), "3");
  ASSERT_TRUE(registry.SetOption("cpu", "fusion", "on").ok());
  EXPECT_EQ(*registry.GetOption("cpu", "fusion"), "on");
  for (const char* algorithm : {"direct", "winograd2", "winograd4", "auto"}) {
    ASSERT_TRUE(registry.SetOption("cpu", "conv_algorithm", algorithm).ok());
    EXPECT_EQ(*registry.GetOption("cpu", "conv_algorithm"), algorithm);
  }
}

TEST_F(CpuBackendTest, BadOptionsAreInvalidArgumentAndChangeNothing) {
  BackendRegistry& registry = BackendRegistry::Global();
  for (const char* bad : {"0", "-4", "two", "", "2.5"}) {
    absl::Status status = registry.SetOption("cpu", "threads", bad);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(status.message(),
                HasSubstr(absl::StrCat("cpu option 'threads' wants an integer "
                                       ">= 1 (the CPU thread count), got '",
                                       bad, "'")));
  }
  EXPECT_EQ(Threads(registry), initial_threads_);

  absl::Status status = registry.SetOption("cpu", "fusion", "maybe");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("cpu option 'fusion' wants on or off, got 'maybe'"));
  status = registry.SetOption("cpu", "conv_algorithm", "fft");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("cpu option 'conv_algorithm' wants auto, direct, "
                        "winograd2 or winograd4, got 'fft'"));
  EXPECT_EQ(*registry.GetOption("cpu", "conv_algorithm"), "auto");

  // An unknown key names itself, its value and what the backend takes.
  status = registry.SetOption("cpu.thread=2");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("backend option cpu.thread=2"));
  EXPECT_THAT(status.message(),
              HasSubstr("the cpu backend has no option 'thread' (value '2'); "
                        "its options: threads, fusion, conv_algorithm, "
                        "memory_cache_mb (threads: an integer >= 1; fusion: "
                        "on or off; conv_algorithm: auto, direct, winograd2 "
                        "or winograd4; memory_cache_mb: MiB >= 0)"));
  EXPECT_EQ(registry.GetOption("cpu", "thread").status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(CpuBackendTest, KernelsAreKeyedByOpAndDType) {
  KernelRegistry<CpuDevice>& kernels = CpuKernels();
  // Moving bytes works for every dtype the op takes; arithmetic is float32.
  EXPECT_EQ(kernels.DTypesOf("flatten"), AllDTypes());
  EXPECT_EQ(kernels.DTypesOf("dropout"),
            (std::vector<DType>{DType::kFloat32, DType::kFloat16,
                                DType::kBFloat16, DType::kFloat64}));
  // The elementwise family also runs float64 and integers.
  EXPECT_EQ(kernels.DTypesOf("add"),
            (std::vector<DType>{DType::kFloat32, DType::kFloat64, DType::kInt64,
                                DType::kInt32, DType::kInt8, DType::kUInt8}));
  EXPECT_EQ(kernels.DTypesOf("cast"), AllDTypes());
  for (const char* op : {"adaptive_avg_pool2d", "batch_norm", "conv2d",
                         "linear", "max_pool2d", "relu", "softmax"}) {
    EXPECT_EQ(kernels.DTypesOf(op), std::vector<DType>{DType::kFloat32}) << op;
  }

  absl::StatusOr<BackendDevice*> device =
      BackendRegistry::Global().GetDevice(Device::Cpu());
  ASSERT_TRUE(device.ok());
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({2, 3}), Device::Cpu(), DType::kFloat64);
  graph.AddOutput(graph.AddNode("relu", "act", {x}, AttrMap()));
  absl::Status status = (*device)->Supports(graph.node(0), graph);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(),
              HasSubstr("the cpu backend has no float64 kernel for op 'relu' "
                        "(node 'act/relu'); it runs relu in: float32"));
  Graph unknown;
  ValueId y = unknown.AddInput("y", Shape({2}), Device::Cpu());
  unknown.AddOutput(unknown.AddNode("frobnicate", "f", {y}, AttrMap()));
  status = (*device)->Supports(unknown.node(0), unknown);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(),
              HasSubstr("the cpu backend has no kernel for op 'frobnicate'"));
}

// Flatten's kernel on an int32 tensor: the bytes, unchanged, in a new shape.
TEST_F(CpuBackendTest, FlattenCopiesAnyDType) {
  absl::StatusOr<BackendDevice*> device =
      BackendRegistry::Global().GetDevice(Device::Cpu());
  ASSERT_TRUE(device.ok());
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({2, 1, 3}), Device::Cpu(), DType::kInt32);
  ValueId y = graph.AddNode("flatten", "flat", {x}, AttrMap());
  graph.mutable_value(y).shape = Shape({2, 3});
  graph.mutable_value(y).dtype = DType::kInt32;
  absl::StatusOr<std::unique_ptr<Kernel>> kernel =
      (*device)->CreateKernel(graph.node(0), graph);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const std::vector<int32_t> values = {-7, 0, 1, 2147483647, -2147483647 - 1, 42};
  absl::StatusOr<Tensor> in = Tensor::FromValues<int32_t>(
      Shape({2, 1, 3}), absl::MakeConstSpan(values), **device);
  absl::StatusOr<Tensor> out =
      Tensor::Empty(Shape({2, 3}), DType::kInt32, **device);
  ASSERT_TRUE(in.ok() && out.ok());
  const Tensor* inputs[] = {&*in};
  Tensor* outputs[] = {&*out};
  ASSERT_TRUE((*kernel)->Run(inputs, outputs).ok());
  EXPECT_EQ(*out->ToHost<int32_t>(), values);
}

TEST_F(CpuBackendTest, ThreadsFromTheEnvironment) {
  ASSERT_EQ(setenv("SWITCHYARD_CPU_THREADS", "3", 1), 0);
  BackendRegistry registry;
  ASSERT_TRUE(RegisterCpu(registry).ok());
  EXPECT_EQ(Threads(registry), 3);

  // Above the command line's --threads bound (4 per core, at least 8):
  // clamped to it, never 20000 threads.
  ASSERT_EQ(setenv("SWITCHYARD_CPU_THREADS", "20000", 1), 0);
  std::unique_ptr<Backend> clamped = CreateCpuBackend();
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(Property(clamped->GetDevice(0).Info(), "threads"),
            std::to_string(std::max(8, 4 * cores)));

  // Nonsense is ignored (with a warning): all cores.
  ASSERT_EQ(setenv("SWITCHYARD_CPU_THREADS", "lots", 1), 0);
  std::unique_ptr<Backend> fallback = CreateCpuBackend();
  ASSERT_EQ(unsetenv("SWITCHYARD_CPU_THREADS"), 0);
  std::unique_ptr<Backend> normal = CreateCpuBackend();
  EXPECT_EQ(Property(fallback->GetDevice(0).Info(), "threads"),
            Property(normal->GetDevice(0).Info(), "threads"));
}

TEST_F(CpuBackendTest, AbsurdAllocationIsResourceExhausted) {
  absl::StatusOr<BackendDevice*> device =
      BackendRegistry::Global().GetDevice(Device::Cpu());
  ASSERT_TRUE(device.ok());
  for (size_t bytes : {size_t{1} << 62, std::numeric_limits<size_t>::max() - 8,
                       std::numeric_limits<size_t>::max()}) {
    absl::StatusOr<std::shared_ptr<Buffer>> buffer = (*device)->Allocate(bytes);
    ASSERT_FALSE(buffer.ok()) << bytes << " bytes were \"allocated\"";
    EXPECT_EQ(buffer.status().code(), absl::StatusCode::kResourceExhausted)
        << buffer.status();
    EXPECT_THAT(buffer.status().message(),
                HasSubstr("cpu:0 is out of memory: cannot allocate"));
  }
  // Ordinary sizes still work afterwards, zero included, and are aligned.
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{1000}}) {
    absl::StatusOr<std::shared_ptr<Buffer>> buffer = (*device)->Allocate(bytes);
    ASSERT_TRUE(buffer.ok()) << buffer.status();
    EXPECT_EQ((*buffer)->size_bytes(), bytes);
    EXPECT_EQ(reinterpret_cast<uintptr_t>((*buffer)->data()) % 64, 0u);
  }
}

TEST_F(CpuBackendTest, FreedMemoryIsReusedWithinTheCacheLimit) {
  BackendRegistry& registry = BackendRegistry::Global();
  absl::StatusOr<BackendDevice*> device = registry.GetDevice(Device::Cpu());
  ASSERT_TRUE(device.ok());
  CachingAllocator* allocator = (*device)->caching_allocator();
  ASSERT_NE(allocator, nullptr);
  const int64_t watch = allocator->BeginWatch();
  void* first = nullptr;
  {
    std::shared_ptr<Buffer> a = *(*device)->Allocate(3 << 20);
    first = a->data();
  }
  // The same size again: the same block, nothing new from the system.
  const int64_t again = allocator->BeginWatch();
  {
    std::shared_ptr<Buffer> b = *(*device)->Allocate(3 << 20);
    EXPECT_EQ(b->data(), first);
  }
  EXPECT_EQ(allocator->EndWatch(again).new_blocks, 0);
  EXPECT_GE(allocator->EndWatch(watch).peak_bytes, int64_t{3} << 20);

  // memory_cache_mb=0 keeps nothing; a bad value changes nothing.
  ASSERT_TRUE(registry.SetOption("cpu.memory_cache_mb=0").ok());
  EXPECT_EQ(allocator->stats().cached_bytes, 0);
  EXPECT_EQ(*registry.GetOption("cpu", "memory_cache_mb"), "0");
  absl::Status bad = registry.SetOption("cpu.memory_cache_mb=-3");
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("memory_cache_mb"));
  EXPECT_EQ(registry.SetOption("cpu.memory_cache_mb=lots").code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(registry.SetOption("cpu.memory_cache_mb=1024").ok());
  EXPECT_EQ(*registry.GetOption("cpu", "memory_cache_mb"), "1024");
}

TEST_F(CpuBackendTest, CopiesLargerThanTheBufferAreRefused) {
  absl::StatusOr<BackendDevice*> device =
      BackendRegistry::Global().GetDevice(Device::Cpu());
  ASSERT_TRUE(device.ok());
  absl::StatusOr<std::shared_ptr<Buffer>> buffer = (*device)->Allocate(8);
  ASSERT_TRUE(buffer.ok());
  char host[16] = {};
  absl::Status status = (*device)->CopyFromHost(host, **buffer, sizeof(host));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("does not fit a buffer of 8 bytes"));
  EXPECT_EQ((*device)->CopyToHost(**buffer, host, sizeof(host)).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace cpu
}  // namespace switchyard
