// The CUDA backend as a backend: registration, device queries, memory,
// copies and clocks. On a machine without a GPU (or a build without CUDA)
// the backend must still register, report zero devices with the reason, and
// make cuda:0 Unavailable with that reason; the GPU cases skip, saying why.
// On a GPU, the no-GPU cases skip instead.

#include "backends/cuda/cuda_backend.h"

#include <link.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/dtype.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace cuda {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

// The shared objects the dynamic loader mapped before main: a binary that
// links the CUDA backend must start without cuBLAS, cuDNN or a shared CUDA
// runtime, so none of them may be among these. (The driver, libcuda.so.1,
// is the runtime's business: it loads it on first use.)
std::vector<std::string> LoadedObjects() {
  std::vector<std::string> names;
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, size_t, void* data) {
        static_cast<std::vector<std::string>*>(data)->push_back(
            info->dlpi_name != nullptr ? info->dlpi_name : "");
        return 0;
      },
      &names);
  return names;
}
const std::vector<std::string>* const kLoadedAtStart =
    new std::vector<std::string>(LoadedObjects());

Backend* CudaBackend() {
  absl::StatusOr<Backend*> backend = BackendRegistry::Global().GetBackend("cuda");
  EXPECT_TRUE(backend.ok()) << backend.status();
  return backend.ok() ? *backend : nullptr;
}

bool HasGpu() {
  Backend* backend = CudaBackend();
  return backend != nullptr && backend->DeviceCount() > 0;
}

#define SKIP_WITHOUT_GPU()                                                   \
  if (!HasGpu()) {                                                           \
    GTEST_SKIP() << "no CUDA device: " << CudaBackend()->UnavailableReason(); \
  }
#define SKIP_WITH_GPU()                                                      \
  if (HasGpu()) {                                                            \
    GTEST_SKIP() << "this machine has " << CudaBackend()->DeviceCount()       \
                 << " CUDA device(s); the no-GPU behaviour is not observable"; \
  }

Device Cuda(int index) { return *Device::Create("cuda", index); }

std::vector<float> Iota(int64_t n) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 1000003) * 0.5f - 7;
  return v;
}

// --- everywhere ---------------------------------------------------------------

TEST(CudaBackendTest, IsRegisteredInTheGlobalRegistry) {
  EXPECT_THAT(BackendRegistry::Global().Types(), Contains("cuda"));
  ASSERT_NE(CudaBackend(), nullptr);
  EXPECT_EQ(CudaBackend()->type(), "cuda");
}

TEST(CudaBackendTest, StartsWithoutCublasCudnnOrSharedCudart) {
  for (const std::string& name : *kLoadedAtStart) {
    EXPECT_FALSE(absl::StrContains(name, "libcublas")) << name;
    EXPECT_FALSE(absl::StrContains(name, "libcudnn")) << name;
    EXPECT_FALSE(absl::StrContains(name, "libcudart.so")) << name;
  }
}

TEST(CudaBackendTest, AFreshRegistryCreatesTheSameBackend) {
  BackendRegistry registry;
  ASSERT_TRUE(registry
                  .Register("cuda", []() -> absl::StatusOr<std::unique_ptr<Backend>> {
                    return CreateCudaBackend();
                  })
                  .ok());
  absl::StatusOr<Backend*> backend = registry.GetBackend("cuda");
  ASSERT_TRUE(backend.ok()) << backend.status();
  EXPECT_EQ((*backend)->DeviceCount(), CudaBackend()->DeviceCount());
  EXPECT_EQ((*backend)->UnavailableReason(), CudaBackend()->UnavailableReason());
}

// --- without a GPU (here, and in CI) -------------------------------------------

TEST(CudaBackendTest, WithoutAGpuThereAreNoDevicesAndAReason) {
  SKIP_WITH_GPU();
  Backend* backend = CudaBackend();
  EXPECT_EQ(backend->DeviceCount(), 0);
  const std::string reason = backend->UnavailableReason();
  if (BuiltWithCuda()) {
    // The CUDA error itself, e.g. cudaErrorInsufficientDriver (no driver) or
    // cudaErrorNoDevice, and what to do.
    EXPECT_THAT(reason, HasSubstr("cudaGetDeviceCount")) << reason;
    EXPECT_TRUE(absl::StrContains(reason, "cudaError") ||
                absl::StrContains(reason, "found no CUDA GPU"))
        << reason;
  } else {
    EXPECT_THAT(reason, HasSubstr("built without CUDA")) << reason;
  }
  EXPECT_TRUE(BackendRegistry::Global().AvailableDevices().size() >= 1);  // cpu
  for (const Device& d : BackendRegistry::Global().AvailableDevices()) {
    EXPECT_NE(d.type(), "cuda");
  }
}

TEST(CudaBackendTest, WithoutAGpuCuda0IsUnavailableWithTheReason) {
  SKIP_WITH_GPU();
  const std::string reason = CudaBackend()->UnavailableReason();
  absl::StatusOr<BackendDevice*> device = BackendRegistry::Global().GetDevice(Cuda(0));
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(device.status().message(), HasSubstr("device cuda:0 is not available"));
  EXPECT_THAT(device.status().message(), HasSubstr("has 0 devices"));
  EXPECT_THAT(device.status().message(), HasSubstr(reason));

  // Every road to the device says the same.
  absl::StatusOr<Tensor> x =
      Tensor::FromVector({2}, {1, 2}, Cuda(0), BackendRegistry::Global());
  EXPECT_EQ(x.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(x.status().message(), HasSubstr(reason));
  absl::StatusOr<Tensor> cpu =
      Tensor::FromVector({2}, {1, 2}, Device::Cpu(), BackendRegistry::Global());
  ASSERT_TRUE(cpu.ok());
  absl::StatusOr<Tensor> moved = cpu->To(Cuda(0), BackendRegistry::Global());
  EXPECT_EQ(moved.status().code(), absl::StatusCode::kUnavailable);

  Graph graph;
  ValueId in = graph.AddInput("x", Shape({2}), Cuda(0));
  graph.AddOutput(graph.AddNode("relu", "relu", {in}, AttrMap()));
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(graph));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(plan.status().message(), HasSubstr("cuda:0"));

  EXPECT_EQ(CudaMemoryStats(BackendRegistry::Global(), Cuda(0)).status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(CudaEmptyCache(BackendRegistry::Global(), Cuda(0)).code(),
            absl::StatusCode::kUnavailable);
}

// --- options (with and without a GPU or CUDA) ----------------------------------

// A fresh backend, so the global one's option stays as the environment set it.
std::unique_ptr<BackendRegistry> FreshCudaRegistry() {
  auto registry = std::make_unique<BackendRegistry>();
  EXPECT_TRUE(registry
                  ->Register("cuda",
                             []() -> absl::StatusOr<std::unique_ptr<Backend>> {
                               return CreateCudaBackend();
                             })
                  .ok());
  return registry;
}

TEST(CudaBackendTest, AllowTf32IsAnOptionOffByDefault) {
  unsetenv("SWITCHYARD_CUDA_TF32");
  auto registry = FreshCudaRegistry();
  std::vector<BackendOption> options = (*registry->GetBackend("cuda"))->Options();
  ASSERT_EQ(options.size(), 1u);
  EXPECT_EQ(options[0].key, "allow_tf32");
  EXPECT_EQ(options[0].value, "false");
  EXPECT_THAT(options[0].help, HasSubstr("SWITCHYARD_CUDA_TF32"));
  ASSERT_TRUE(registry->SetOption("cuda.allow_tf32=true").ok());
  EXPECT_EQ(*registry->GetOption("cuda", "allow_tf32"), "true");
  ASSERT_TRUE(registry->SetOption("cuda", "allow_tf32", "false").ok());
  EXPECT_EQ(*registry->GetOption("cuda", "allow_tf32"), "false");
}

TEST(CudaBackendTest, TheEnvironmentSetsTheDefault) {
  setenv("SWITCHYARD_CUDA_TF32", "1", 1);
  auto registry = FreshCudaRegistry();
  EXPECT_EQ(*registry->GetOption("cuda", "allow_tf32"), "true");
  unsetenv("SWITCHYARD_CUDA_TF32");
}

TEST(CudaBackendTest, BadOptionsNameTheKeyAndWhatIsAccepted) {
  auto registry = FreshCudaRegistry();
  absl::Status bad_value = registry->SetOption("cuda", "allow_tf32", "maybe");
  EXPECT_EQ(bad_value.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad_value.message(), HasSubstr("allow_tf32"));
  EXPECT_THAT(bad_value.message(), HasSubstr("takes true or false, not 'maybe'"));
  absl::Status bad_key = registry->SetOption("cuda.tf32=true");
  EXPECT_EQ(bad_key.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad_key.message(), HasSubstr("no option 'tf32'"));
  EXPECT_THAT(bad_key.message(), HasSubstr("its options: allow_tf32"));
  EXPECT_EQ(*registry->GetOption("cuda", "allow_tf32"), "false");
}

TEST(CudaBackendTest, KernelKeysAreFloat32ButDataMovementLogicAndComparisons) {
  const std::vector<std::pair<std::string, DType>> keys = CudaKernelKeys();
  if (!BuiltWithCuda()) {
    EXPECT_TRUE(keys.empty());
    GTEST_SKIP() << "this build has no CUDA, so no CUDA kernels";
  }
  std::vector<std::string> float32_ops;
  int flatten_dtypes = 0;
  for (const auto& [op, dtype] : keys) {
    if (dtype == DType::kFloat32) float32_ops.push_back(op);
    if (op == "flatten") ++flatten_dtypes;
    // Data movement works on element bytes, in every dtype; cast is keyed
    // by its input dtype (float32, float16, int32, int64); where by its
    // bool condition. Arithmetic is float32.
    // The logical ops take bools; comparisons float32, int64, int32 and
    // bool (the index and mask arithmetic of detectors).
    static const std::set<std::string> kAnyDType = {
        "flatten", "dropout", "cast",  "reshape", "transpose", "concat",
        "split",   "slice",   "gather", "pad",    "expand",    "where"};
    static const std::set<std::string> kLogical = {"logical_not", "logical_and", "logical_or",
                                                   "logical_xor"};
    static const std::set<std::string> kComparisons = {"equal", "less", "greater",
                                                       "less_equal", "greater_equal"};
    if (kLogical.count(op) > 0) {
      EXPECT_EQ(dtype, DType::kBool) << op;
    } else if (kComparisons.count(op) > 0) {
      EXPECT_THAT(dtype, ::testing::AnyOf(DType::kFloat32, DType::kInt64, DType::kInt32,
                                          DType::kBool))
          << op;
    } else if (kAnyDType.count(op) == 0) {
      EXPECT_EQ(dtype, DType::kFloat32) << op;
    }
  }
  // At least these; the op families add more.
  EXPECT_THAT(float32_ops,
              ::testing::IsSupersetOf(std::vector<std::string>{
                  "adaptive_avg_pool2d", "add", "batch_norm", "conv2d",
                  "dropout", "flatten", "linear", "max_pool2d",
                  "non_max_suppression", "relu", "softmax"}));
  EXPECT_EQ(flatten_dtypes, static_cast<int>(AllDTypes().size()));
}

TEST(CudaBackendTest, MemoryStatsOfANonCudaDeviceIsAnError) {
  EXPECT_FALSE(CudaMemoryStats(BackendRegistry::Global(), Device::Cpu()).ok());
}

// --- on a GPU -------------------------------------------------------------------

TEST(CudaDeviceTest, InfoLikeNvidiaSmi) {
  SKIP_WITHOUT_GPU();
  for (int i = 0; i < CudaBackend()->DeviceCount(); ++i) {
    DeviceInfo info = CudaBackend()->GetDevice(i).Info();
    EXPECT_EQ(info.device, Cuda(i));
    EXPECT_FALSE(info.name.empty());
    EXPECT_GT(info.total_memory_bytes, 0);
    EXPECT_GT(info.free_memory_bytes, 0);
    EXPECT_LE(info.free_memory_bytes, info.total_memory_bytes);
    std::vector<std::string> keys;
    for (const auto& [key, value] : info.properties) {
      keys.push_back(key);
      EXPECT_FALSE(value.empty()) << key;
    }
    for (const char* key : {"compute capability", "multiprocessors", "driver",
                            "runtime", "cuBLASLt", "cuDNN", "math", "allocator"}) {
      EXPECT_THAT(keys, Contains(key));
    }
    for (const auto& [key, value] : info.properties) {
      if (key == "math") {
        EXPECT_EQ(value, "fp32 (TF32 off)");
      }
      if (key == "cuBLASLt" || key == "cuDNN") {
        EXPECT_THAT(value, Not(HasSubstr("unavailable"))) << key << ": " << value;
      }
    }
  }
}

TEST(CudaDeviceTest, HostDeviceHostRoundTrips) {
  SKIP_WITHOUT_GPU();
  // Empty, tiny, odd, and larger than the 8 MiB staging chunks (3 chunks and
  // a bit, so both ring slots are reused).
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{1001},
                    int64_t{(26 << 20) / 4 + 3}}) {
    const std::vector<float> values = Iota(n);
    absl::StatusOr<Tensor> on_gpu =
        Tensor::FromVector({n}, values, Cuda(0), BackendRegistry::Global());
    ASSERT_TRUE(on_gpu.ok()) << on_gpu.status();
    EXPECT_EQ(on_gpu->device(), Cuda(0));
    absl::StatusOr<std::vector<float>> back = on_gpu->ToVector();
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, values) << n;
    absl::StatusOr<Tensor> on_cpu = on_gpu->To(Device::Cpu(), BackendRegistry::Global());
    ASSERT_TRUE(on_cpu.ok()) << on_cpu.status();
    EXPECT_EQ(*on_cpu->ToVector(), values);
  }
}

TEST(CudaDeviceTest, DeviceToDeviceOnOneGpu) {
  SKIP_WITHOUT_GPU();
  const std::vector<float> values = Iota(3 << 20);
  Tensor a = *Tensor::FromVector({3 << 20}, values, Cuda(0), BackendRegistry::Global());
  Tensor b =
      *Tensor::Empty({3 << 20}, DType::kFloat32, Cuda(0), BackendRegistry::Global());
  ASSERT_TRUE(CopyTensor(a, b).ok());
  EXPECT_EQ(*b.ToVector(), values);
}

TEST(CudaDeviceTest, DeviceToDeviceAcrossGpus) {
  SKIP_WITHOUT_GPU();
  if (CudaBackend()->DeviceCount() < 2) {
    GTEST_SKIP() << "one CUDA device; peer copies need two";
  }
  const std::vector<float> values = Iota(5 << 20);
  Tensor a = *Tensor::FromVector({5 << 20}, values, Cuda(0), BackendRegistry::Global());
  absl::StatusOr<Tensor> b = a.To(Cuda(1), BackendRegistry::Global());
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->device(), Cuda(1));
  absl::StatusOr<Tensor> c = b->To(Cuda(0), BackendRegistry::Global());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(*c->ToVector(), values);
}

TEST(CudaDeviceTest, CopyChecksSizes) {
  SKIP_WITHOUT_GPU();
  BackendDevice& device = CudaBackend()->GetDevice(0);
  std::shared_ptr<Buffer> small = *device.Allocate(16);
  std::vector<char> host(64);
  EXPECT_EQ(device.CopyFromHost(host.data(), *small, 64).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(device.CopyToHost(*small, host.data(), 64).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(CudaDeviceTest, AllocatorCachesReusesAndReleases) {
  SKIP_WITHOUT_GPU();
  BackendRegistry& registry = BackendRegistry::Global();
  ASSERT_TRUE(CudaEmptyCache(registry, Cuda(0)).ok());
  const AllocatorStats before = *CudaMemoryStats(registry, Cuda(0));
  {
    Tensor t = *Tensor::Empty({(40 << 20) / 4}, DType::kFloat32, Cuda(0), registry);
    const AllocatorStats during = *CudaMemoryStats(registry, Cuda(0));
    EXPECT_EQ(during.allocated_bytes - before.allocated_bytes, 40 << 20);
    EXPECT_GE(during.peak_allocated_bytes, during.allocated_bytes);
  }
  AllocatorStats after = *CudaMemoryStats(registry, Cuda(0));
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes);
  EXPECT_GE(after.cached_bytes, 40 << 20);
  {
    Tensor again = *Tensor::Empty({(40 << 20) / 4}, DType::kFloat32, Cuda(0), registry);
    EXPECT_EQ(CudaMemoryStats(registry, Cuda(0))->cache_hits, after.cache_hits + 1);
  }
  ASSERT_TRUE(CudaEmptyCache(registry, Cuda(0)).ok());
  after = *CudaMemoryStats(registry, Cuda(0));
  EXPECT_EQ(after.cached_bytes, 0);
  EXPECT_EQ(after.reserved_bytes, after.allocated_bytes);
}

TEST(CudaDeviceTest, OutOfMemoryIsResourceExhaustedWithFreeAndTotal) {
  SKIP_WITHOUT_GPU();
  // 4 TiB: more than any GPU has.
  absl::StatusOr<Tensor> huge = Tensor::Empty({int64_t{1} << 40}, DType::kFloat32,
                                              Cuda(0), BackendRegistry::Global());
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(huge.status().message(), HasSubstr("cuda:0 is out of memory"));
  EXPECT_THAT(huge.status().message(), HasSubstr("4.00 TiB"));
  EXPECT_THAT(huge.status().message(), HasSubstr(" free of "));
  // The device still works afterwards.
  absl::StatusOr<Tensor> small =
      Tensor::FromVector({3}, {1, 2, 3}, Cuda(0), BackendRegistry::Global());
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ(*small->ToVector(), (std::vector<float>{1, 2, 3}));
}

TEST(CudaDeviceTest, ClockTimesWorkOnTheStream) {
  SKIP_WITHOUT_GPU();
  BackendDevice& device = CudaBackend()->GetDevice(0);
  absl::StatusOr<std::unique_ptr<DeviceClock>> clock = device.CreateClock();
  ASSERT_TRUE(clock.ok()) << clock.status();
  Tensor a =
      *Tensor::FromVector({1 << 22}, Iota(1 << 22), Cuda(0), BackendRegistry::Global());
  Tensor b =
      *Tensor::Empty({1 << 22}, DType::kFloat32, Cuda(0), BackendRegistry::Global());
  const int start = *(*clock)->Mark();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(CopyTensor(a, b).ok());
  const int end = *(*clock)->Mark();
  absl::StatusOr<double> ms = (*clock)->ElapsedMs(start, end);
  ASSERT_TRUE(ms.ok()) << ms.status();
  EXPECT_GT(*ms, 0.0);
  EXPECT_EQ((*clock)->ElapsedMs(start, end + 5).status().code(),
            absl::StatusCode::kOutOfRange);
}

// Keeps the compute stream of `device` busy for tens of milliseconds on an
// H200: same-device copies, which run on the compute stream like kernels.
void QueueLongCompute(BackendDevice& device, Buffer& a, Buffer& b) {
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(device.CopyToDevice(i % 2 ? b : a, device, i % 2 ? a : b,
                                    a.size_bytes()).ok());
  }
}

// Issue 41, item 4: uploads run on the copy stream, beside queued compute;
// compute queued after an upload must see its data.
TEST(CudaDeviceTest, AnUploadBesideALongComputeIsSeenByLaterCompute) {
  SKIP_WITHOUT_GPU();
  BackendDevice& device = CudaBackend()->GetDevice(0);
  const size_t big = size_t{256} << 20;
  std::shared_ptr<Buffer> a = *device.Allocate(big);
  std::shared_ptr<Buffer> b = *device.Allocate(big);
  const int64_t n = (int64_t{64} << 20) / 4;  // 64 MiB: eight staging chunks
  const std::vector<float> values = Iota(n);
  std::shared_ptr<Buffer> uploaded = *device.Allocate(n * 4);
  std::shared_ptr<Buffer> copied = *device.Allocate(n * 4);
  QueueLongCompute(device, *a, *b);
  ASSERT_TRUE(device.CopyFromHost(values.data(), *uploaded, n * 4).ok());
  ASSERT_TRUE(device.CopyToDevice(*uploaded, device, *copied, n * 4).ok());
  std::vector<float> back(n);
  ASSERT_TRUE(device.CopyToHost(*copied, back.data(), n * 4).ok());
  EXPECT_EQ(back, values);
  ASSERT_TRUE(device.Synchronize().ok());
}

// A download must see the compute queued before it, and an upload into a
// block freed while compute still read it must not overwrite it early.
TEST(CudaDeviceTest, ADownloadSeesComputeAndAFreedBlockIsNotOverwrittenEarly) {
  SKIP_WITHOUT_GPU();
  BackendDevice& device = CudaBackend()->GetDevice(0);
  const size_t big = size_t{256} << 20;
  std::shared_ptr<Buffer> a = *device.Allocate(big);
  std::shared_ptr<Buffer> b = *device.Allocate(big);
  const int64_t n = (int64_t{24} << 20) / 4;
  const std::vector<float> first = Iota(n);
  std::vector<float> second(n, -1.0f);
  std::shared_ptr<Buffer> source = *device.Allocate(n * 4);
  std::shared_ptr<Buffer> result = *device.Allocate(n * 4);
  ASSERT_TRUE(device.CopyFromHost(first.data(), *source, n * 4).ok());
  QueueLongCompute(device, *a, *b);
  // Compute reads `source` after the long work, then the block is freed;
  // the cache hands the same block out again for the next upload.
  ASSERT_TRUE(device.CopyToDevice(*source, device, *result, n * 4).ok());
  void* const block = source->data();
  source.reset();
  std::shared_ptr<Buffer> reused = *device.Allocate(n * 4);
  EXPECT_EQ(reused->data(), block);
  ASSERT_TRUE(device.CopyFromHost(second.data(), *reused, n * 4).ok());
  std::vector<float> back(n);
  ASSERT_TRUE(device.CopyToHost(*result, back.data(), n * 4).ok());
  EXPECT_EQ(back, first);
  ASSERT_TRUE(device.CopyToHost(*reused, back.data(), n * 4).ok());
  EXPECT_EQ(back, second);
}

// The image pipeline's path: staging memory (page-locked), an upload
// queued beside a long compute that does not wait for it, and compute
// queued after WaitEvent that sees the data; the events of RecordEvent and
// of another device's kind are waited on too.
TEST(CudaDeviceTest, AnAsyncUploadFromStagingIsSeenAfterWaitEvent) {
  SKIP_WITHOUT_GPU();
  BackendDevice& device = CudaBackend()->GetDevice(0);
  const size_t big = size_t{256} << 20;
  std::shared_ptr<Buffer> a = *device.Allocate(big);
  std::shared_ptr<Buffer> b = *device.Allocate(big);
  const int64_t n = (int64_t{40} << 20) / 4;
  const std::vector<float> values = Iota(n);
  absl::StatusOr<std::shared_ptr<void>> staging = device.AllocateHostStaging(n * 4);
  ASSERT_TRUE(staging.ok()) << staging.status();
  std::copy(values.begin(), values.end(), static_cast<float*>(staging->get()));
  std::shared_ptr<Buffer> uploaded = *device.Allocate(n * 4);
  std::shared_ptr<Buffer> copied = *device.Allocate(n * 4);
  QueueLongCompute(device, *a, *b);
  absl::StatusOr<std::unique_ptr<DeviceEvent>> done =
      device.CopyFromHostAsync(staging->get(), *uploaded, n * 4);
  ASSERT_TRUE(done.ok()) << done.status();
  ASSERT_TRUE(device.WaitEvent(**done).ok());
  ASSERT_TRUE(device.CopyToDevice(*uploaded, device, *copied, n * 4).ok());
  absl::StatusOr<std::unique_ptr<DeviceEvent>> all = device.RecordEvent();
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_TRUE((*all)->Synchronize().ok());
  ASSERT_TRUE((*done)->Synchronize().ok());
  std::vector<float> back(n);
  ASSERT_TRUE(device.CopyToHost(*copied, back.data(), n * 4).ok());
  EXPECT_EQ(back, values);
  // From pageable memory too (through the staging ring).
  std::vector<float> pageable(values.rbegin(), values.rend());
  done = device.CopyFromHostAsync(pageable.data(), *uploaded, n * 4);
  ASSERT_TRUE(done.ok()) << done.status();
  ASSERT_TRUE(device.WaitEvent(**done).ok());
  ASSERT_TRUE(device.CopyToHost(*uploaded, back.data(), n * 4).ok());
  EXPECT_EQ(back, pageable);
  // A CPU device's event: the GPU's queue waits for it through the host.
  BackendDevice& cpu = *BackendRegistry::Global().GetDevice(Device::Cpu()).value();
  absl::StatusOr<std::unique_ptr<DeviceEvent>> cpu_event = cpu.RecordEvent();
  ASSERT_TRUE(cpu_event.ok());
  EXPECT_TRUE(device.WaitEvent(**cpu_event).ok());
  ASSERT_TRUE(device.Synchronize().ok());
}

TEST(CudaDeviceTest, EveryOpOfTheCpuBackendIsSupported) {
  SKIP_WITHOUT_GPU();
  // One node per op, shape-inferred, asked through Supports via Compile.
  Graph graph;
  ValueId x = graph.AddInput("x", Shape({1, 2, 8, 8}), Cuda(0));
  ValueId w = graph.AddConstant(
      "w", *Tensor::FromVector({2, 2, 3, 3}, std::vector<float>(36, 0.1f), Cuda(0),
                               BackendRegistry::Global()));
  AttrMap conv;
  conv.Set("padding", std::vector<int64_t>{1, 1});
  ValueId c = graph.AddNode("conv2d", "conv", {x, w}, conv);
  ValueId r = graph.AddNode("relu", "relu", {c}, AttrMap());
  ValueId s = graph.AddNode("add", "add", {r, c}, AttrMap());
  AttrMap pool;
  pool.Set("kernel_size", std::vector<int64_t>{2, 2});
  ValueId p = graph.AddNode("max_pool2d", "pool", {s}, pool);
  AttrMap adaptive;
  adaptive.Set("output_size", std::vector<int64_t>{2, 2});
  ValueId a = graph.AddNode("adaptive_avg_pool2d", "avg", {p}, adaptive);
  AttrMap flat;
  flat.Set("start_dim", int64_t{1});
  ValueId f = graph.AddNode("flatten", "flatten", {a}, flat);
  ValueId d = graph.AddNode("dropout", "dropout", {f}, AttrMap());
  ValueId lw =
      graph.AddConstant("lw", *Tensor::FromVector({3, 8}, std::vector<float>(24, 0.2f),
                                                  Cuda(0), BackendRegistry::Global()));
  ValueId l = graph.AddNode("linear", "fc", {d, lw}, AttrMap());
  AttrMap soft;
  soft.Set("dim", int64_t{1});
  graph.AddOutput(graph.AddNode("softmax", "softmax", {l}, soft));
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(graph));
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run(
      {*Tensor::FromVector({1, 2, 8, 8}, Iota(128), Cuda(0), BackendRegistry::Global())});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<float> probabilities = *(*out)[0].ToVector();
  EXPECT_NEAR(std::accumulate(probabilities.begin(), probabilities.end(), 0.0f), 1.0f,
              1e-5);
}

}  // namespace
}  // namespace cuda
}  // namespace switchyard
