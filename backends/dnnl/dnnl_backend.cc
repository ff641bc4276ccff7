#include "backends/dnnl/dnnl_backend.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_device.h"
#include "core/thread_limit.h"

namespace switchyard {
namespace onednn {
namespace {

constexpr char kThreads[] = "threads";
constexpr char kIsa[] = "isa";
constexpr char kConvAlgorithm[] = "conv_algorithm";
constexpr char kSilu[] = "silu";

int DefaultThreads() {
  if (const char* env = std::getenv(kDnnlThreadsEnv)) {
    int threads = 0;
    if (absl::SimpleAtoi(env, &threads) && threads >= 1) {
      if (threads <= MaxThreadCount()) return threads;
      std::fprintf(stderr,
                   "switchyard: %s=%d is above the limit of %d (4 per core of this "
                   "machine's %d, at least 8); using %d\n",
                   kDnnlThreadsEnv, threads, MaxThreadCount(), CoreCount(), MaxThreadCount());
      return MaxThreadCount();
    }
    std::fprintf(stderr,
                 "switchyard: ignoring %s='%s' (want an integer >= 1)\n",
                 kDnnlThreadsEnv, env);
  }
  return CoreCount();
}

class DnnlBackend : public Backend {
 public:
  DnnlBackend() : device_(*Device::Create(kDnnlType, 0), DefaultThreads()) {}

  std::string type() const override { return kDnnlType; }
  int DeviceCount() const override { return 1; }
  BackendDevice& GetDevice(int index) override { return device_; }

  std::vector<BackendOption> Options() const override {
    return {{kThreads, absl::StrCat(device_.threads()),
             absl::StrCat("OpenMP threads of oneDNN's primitives (an integer "
                          ">= 1; default ",
                          kDnnlThreadsEnv, ", else every core)")},
            {kConvAlgorithm, DnnlConvAlgorithmName(device_.conv_algorithm()),
             "conv2d algorithm: auto (Winograd F(4x4,3x3) for 3x3 stride-1 "
             "convolutions with at least 64 channels in and out, direct for "
             "the rest), direct, or winograd (wherever it applies); Winograd "
             "needs AVX-512 in oneDNN 2.6, elsewhere every conv is direct"},
            {kSilu, DnnlSiluName(device_.silu()),
             "SiLU after a conv2d: auto (a host pass over outputs of at least "
             "256Ki floats on AVX-512 CPUs, oneDNN's swish post-op otherwise), "
             "post_op, or host (always the pass)"},
            {kIsa, EffectiveIsaName(),
             "instruction set oneDNN's JIT picked for this CPU (read-only; "
             "ONEDNN_MAX_CPU_ISA caps it)"}};
  }

  absl::Status SetOption(const std::string& key,
                         const std::string& value) override {
    if (key == kThreads) {
      int threads = 0;
      if (!absl::SimpleAtoi(value, &threads) || threads < 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "dnnl option 'threads' wants an integer >= 1, got '", value, "'"));
      }
      device_.SetThreads(threads);
      return absl::OkStatus();
    }
    if (key == kConvAlgorithm) {
      absl::StatusOr<DnnlConvAlgorithm> algorithm = ParseDnnlConvAlgorithm(value);
      if (!algorithm.ok()) return algorithm.status();
      device_.SetConvAlgorithm(*algorithm);
      return absl::OkStatus();
    }
    if (key == kSilu) {
      absl::StatusOr<DnnlSilu> silu = ParseDnnlSilu(value);
      if (!silu.ok()) return silu.status();
      device_.SetSilu(*silu);
      return absl::OkStatus();
    }
    if (key == kIsa) {
      return absl::InvalidArgumentError(
          "dnnl option 'isa' is read-only: oneDNN picks the ISA at run time; "
          "set ONEDNN_MAX_CPU_ISA (e.g. AVX2) before the process starts to "
          "cap it");
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "the dnnl backend has no option '", key,
        "'; its options: threads, conv_algorithm, silu, isa (read-only)"));
  }

 private:
  DnnlDevice device_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Backend>> CreateDnnlBackend() {
  try {
    return std::make_unique<DnnlBackend>();
  } catch (const dnnl::error& e) {
    return absl::UnavailableError(
        absl::StrCat("oneDNN could not create a CPU engine: ", e.what()));
  }
}

}  // namespace onednn
}  // namespace switchyard
