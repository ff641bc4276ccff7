#include "backends/cpu/cpu_backend.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/cpu_kernel_registry.h"
#include "core/graph.h"

namespace switchyard {
namespace cpu {
namespace {

// Kernels vectorize with AVX; 64 bytes also keeps buffers on cache lines.
constexpr size_t kAlignment = 64;

int DefaultThreads() {
  if (const char* env = std::getenv("SWITCHYARD_CPU_THREADS")) {
    int threads = 0;
    if (absl::SimpleAtoi(env, &threads) && threads >= 1) return threads;
    std::fprintf(stderr,
                 "switchyard: ignoring SWITCHYARD_CPU_THREADS='%s' (want an "
                 "integer >= 1)\n", env);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

// First value of `key` in a /proc file of "key: value" lines.
std::string ProcField(const char* path, absl::string_view key) {
  std::ifstream file(path);
  std::string line;
  while (std::getline(file, line)) {
    absl::string_view rest = line;
    if (absl::ConsumePrefix(&rest, key)) {
      rest = absl::StripLeadingAsciiWhitespace(rest);
      if (absl::ConsumePrefix(&rest, ":")) {
        return std::string(absl::StripAsciiWhitespace(rest));
      }
    }
  }
  return "";
}

int64_t MeminfoBytes(absl::string_view key) {
  std::string value = ProcField("/proc/meminfo", key);  // "24587812 kB"
  int64_t kib = 0;
  if (!absl::SimpleAtoi(absl::StripSuffix(value, " kB"), &kib)) return -1;
  return kib * 1024;
}

class CpuDevice : public BackendDevice {
 public:
  CpuDevice() : context_(std::make_shared<CpuContext>(DefaultThreads())) {}

  const Device& device() const override { return device_; }

  DeviceInfo Info() const override {
    DeviceInfo info;
    info.device = device_;
    info.name = ProcField("/proc/cpuinfo", "model name");
    if (info.name.empty()) info.name = "CPU";
    info.total_memory_bytes = MeminfoBytes("MemTotal");
    info.free_memory_bytes = MeminfoBytes("MemAvailable");
    info.properties.push_back({"threads", absl::StrCat(threads())});
    info.properties.push_back(
        {"cores", absl::StrCat(std::thread::hardware_concurrency())});
    return info;
  }

  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t bytes) override {
    auto out_of_memory = [bytes] {
      return absl::ResourceExhaustedError(absl::StrCat(
          "cpu:0 could not allocate ", bytes, " bytes (",
          MeminfoBytes("MemAvailable"), " bytes available)"));
    };
    // Near SIZE_MAX the rounding below would wrap to a tiny size and hand
    // out a buffer far smaller than it claims to be.
    if (bytes > std::numeric_limits<size_t>::max() - kAlignment) {
      return out_of_memory();
    }
    const size_t rounded = (std::max<size_t>(bytes, 1) + kAlignment - 1) /
                           kAlignment * kAlignment;
    void* data = std::aligned_alloc(kAlignment, rounded);
    if (data == nullptr) return out_of_memory();
    return std::make_shared<Buffer>(device_, data, bytes, &std::free);
  }

  absl::Status CopyFromHost(const void* src, Buffer& dst,
                            size_t bytes) override {
    if (bytes > dst.size_bytes()) return TooLarge(bytes, dst);
    // memcpy with a null pointer is undefined even for 0 bytes, and an empty
    // std::vector's data() is null (found by tests/fuzz/graph_fuzzer).
    if (bytes == 0) return absl::OkStatus();
    std::memcpy(dst.data(), src, bytes);
    return absl::OkStatus();
  }

  absl::Status CopyToHost(const Buffer& src, void* dst, size_t bytes) override {
    if (bytes > src.size_bytes()) return TooLarge(bytes, src);
    if (bytes == 0) return absl::OkStatus();
    std::memcpy(dst, src.data(), bytes);
    return absl::OkStatus();
  }

  absl::Status Supports(const Node& node, const Graph& graph) const override {
    if (FindCpuKernel(node.op) == nullptr) {
      return absl::UnimplementedError(absl::StrCat(
          "the cpu backend has no kernel for op '", node.op, "'"));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(
      const Node& node, const Graph& graph) override {
    const CpuKernelFactory* factory = FindCpuKernel(node.op);
    if (factory == nullptr) return Supports(node, graph);
    return (*factory)(node, graph, context());
  }

  int threads() const { return context()->threads(); }

  void SetThreads(int threads) {
    absl::MutexLock lock(&mu_);
    // Kernels already created keep the old pool alive through their own
    // reference, so a plan compiled earlier stays valid.
    context_ = std::make_shared<CpuContext>(threads);
  }

 private:
  std::shared_ptr<CpuContext> context() const {
    absl::MutexLock lock(&mu_);
    return context_;
  }

  static absl::Status TooLarge(size_t bytes, const Buffer& buffer) {
    return absl::InvalidArgumentError(absl::StrCat(
        "copy of ", bytes, " bytes does not fit a buffer of ",
        buffer.size_bytes(), " bytes"));
  }

  const Device device_ = Device::Cpu();
  mutable absl::Mutex mu_;
  std::shared_ptr<CpuContext> context_ ABSL_GUARDED_BY(mu_);
};

class CpuBackend : public Backend {
 public:
  std::string type() const override { return "cpu"; }
  int DeviceCount() const override { return 1; }
  BackendDevice& GetDevice(int index) override { return device_; }
  CpuDevice& cpu_device() { return device_; }

 private:
  CpuDevice device_;
};

absl::StatusOr<CpuBackend*> FindCpuBackend(BackendRegistry& registry) {
  absl::StatusOr<Backend*> backend = registry.GetBackend("cpu");
  if (!backend.ok()) return backend.status();
  auto* cpu = dynamic_cast<CpuBackend*>(*backend);
  if (cpu == nullptr) {
    return absl::FailedPreconditionError(
        "the backend registered as 'cpu' is not the Eigen CPU backend");
  }
  return cpu;
}

[[maybe_unused]] const bool kRegistered =
    RegisterBackend("cpu", []() -> absl::StatusOr<std::unique_ptr<Backend>> {
      return CreateCpuBackend();
    });

}  // namespace

std::unique_ptr<Backend> CreateCpuBackend() {
  return std::make_unique<CpuBackend>();
}

absl::Status SetCpuThreads(BackendRegistry& registry, int threads) {
  if (threads < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("CPU thread count must be >= 1, got ", threads));
  }
  absl::StatusOr<CpuBackend*> cpu = FindCpuBackend(registry);
  if (!cpu.ok()) return cpu.status();
  (*cpu)->cpu_device().SetThreads(threads);
  return absl::OkStatus();
}

int CpuThreads(BackendRegistry& registry) {
  absl::StatusOr<CpuBackend*> cpu = FindCpuBackend(registry);
  return cpu.ok() ? (*cpu)->cpu_device().threads() : 0;
}

}  // namespace cpu
}  // namespace switchyard
