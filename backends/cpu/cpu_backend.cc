// The Eigen CPU backend: its one device, its options, and its registration.

#include "backends/cpu/cpu_backend.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/cpu_device.h"
#include "core/backend_registry.h"
#include "core/thread_limit.h"

namespace switchyard {
namespace cpu {
namespace {

constexpr char kThreads[] = "threads";
constexpr char kMemoryCacheMb[] = "memory_cache_mb";
constexpr char kFusion[] = "fusion";
constexpr char kConvAlgorithm[] = "conv_algorithm";

int DefaultThreads() {
  const int cores = CoreCount();
  if (const char* env = std::getenv("SWITCHYARD_CPU_THREADS")) {
    // The bound every user-given thread count has (core/thread_limit.h).
    const int max_threads = MaxThreadCount();
    int threads = 0;
    if (absl::SimpleAtoi(env, &threads) && threads >= 1) {
      if (threads <= max_threads) return threads;
      std::fprintf(stderr,
                   "switchyard: SWITCHYARD_CPU_THREADS=%d is above the limit of "
                   "%d (4 per core of this machine's %d, at least 8); using %d\n",
                   threads, max_threads, cores, max_threads);
      return max_threads;
    }
    std::fprintf(stderr,
                 "switchyard: ignoring SWITCHYARD_CPU_THREADS='%s' (want an "
                 "integer >= 1)\n", env);
  }
  return cores;
}

class CpuBackend : public Backend {
 public:
  CpuBackend() : device_(DefaultThreads()) {}

  std::string type() const override { return "cpu"; }
  int DeviceCount() const override { return 1; }
  BackendDevice& GetDevice(int index) override { return device_; }

  std::vector<BackendOption> Options() const override {
    return {
        {kThreads, absl::StrCat(device_.threads()),
         "worker threads of the CPU kernels, the caller included (an integer "
         ">= 1; default SWITCHYARD_CPU_THREADS, else all cores)"},
        {kFusion, device_.fusion() ? "on" : "off",
         "run conv2d(+bias)->relu and linear(+bias)->relu as one kernel with "
         "a fused ReLU (on or off)"},
        {kConvAlgorithm, ConvAlgorithmName(device_.conv_algorithm()),
         "conv2d algorithm: auto (chosen per node from its shapes), direct "
         "(im2col + GEMM), winograd2 or winograd4 (Winograd F(2x2,3x3) or "
         "F(4x4,3x3) for 3x3 stride-1 convolutions, direct for the rest)"},
        {kMemoryCacheMb, absl::StrCat(device_.memory_cache_mb()),
         "freed host memory kept for reuse by later tensors, in MiB (0 gives "
         "every block back at once)"},
    };
  }

  absl::Status SetOption(const std::string& key,
                         const std::string& value) override {
    if (key == kThreads) {
      int threads = 0;
      if (!absl::SimpleAtoi(value, &threads) || threads < 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "cpu option 'threads' wants an integer >= 1 (the CPU thread "
            "count), got '", value, "'"));
      }
      device_.SetThreads(threads);
      return absl::OkStatus();
    }
    if (key == kFusion) {
      if (value == "on" || value == "true" || value == "1") {
        device_.SetFusion(true);
      } else if (value == "off" || value == "false" || value == "0") {
        device_.SetFusion(false);
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            "cpu option 'fusion' wants on or off, got '", value, "'"));
      }
      return absl::OkStatus();
    }
    if (key == kConvAlgorithm) {
      absl::StatusOr<ConvAlgorithm> algorithm = ParseConvAlgorithm(value);
      if (!algorithm.ok()) return algorithm.status();
      device_.SetConvAlgorithm(*algorithm);
      return absl::OkStatus();
    }
    if (key == kMemoryCacheMb) {
      int64_t mb = 0;
      if (!absl::SimpleAtoi(value, &mb)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "cpu option 'memory_cache_mb' wants an integer (MiB), got '", value, "'"));
      }
      return device_.SetMemoryCacheMb(mb);
    }
    std::vector<std::string> keys;
    for (const BackendOption& option : Options()) keys.push_back(option.key);
    return absl::InvalidArgumentError(absl::StrCat(
        "the cpu backend has no option '", key, "' (value '", value,
        "'); its options: ", absl::StrJoin(keys, ", "),
        " (threads: an integer >= 1; fusion: on or off; conv_algorithm: "
        "auto, direct, winograd2 or winograd4; memory_cache_mb: MiB >= 0)"));
  }

 private:
  CpuDevice device_;
};

[[maybe_unused]] const bool kRegistered =
    RegisterBackend("cpu", []() -> absl::StatusOr<std::unique_ptr<Backend>> {
      return CreateCpuBackend();
    });

}  // namespace

std::unique_ptr<Backend> CreateCpuBackend() {
  return std::make_unique<CpuBackend>();
}

}  // namespace cpu
}  // namespace switchyard
