#include "backends/cpu/cpu_device.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/format_bytes.h"
#include "core/graph.h"
#include "core/host_memory.h"
#include "core/host_memory_source.h"
#include "core/status_macros.h"
#include "core/thread_limit.h"

namespace switchyard {
namespace cpu {
namespace {

// Kernels vectorize with AVX; 64 bytes also keeps buffers on cache lines.
constexpr size_t kAlignment = 64;

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

// Host blocks: 64-byte classes up to 1 MiB, 64 KiB classes above, so a
// weight of 2.3 MiB keeps at most 3% slack (not the 2 MiB classes a GPU
// allocator uses).
CachingAllocatorOptions HostAllocatorOptions() {
  CachingAllocatorOptions options;
  options.small_rounding = kAlignment;
  options.large_threshold = size_t{1} << 20;
  options.large_rounding = size_t{64} << 10;
  options.max_cached_bytes = CpuDevice::kDefaultMemoryCacheMb << 20;
  return options;
}

absl::Status TooLarge(size_t bytes, const Buffer& buffer) {
  return absl::InvalidArgumentError(absl::StrCat(
      "copy of ", bytes, " bytes does not fit a buffer of ",
      buffer.size_bytes(), " bytes"));
}

}  // namespace

KernelRegistry<CpuDevice>& CpuKernels() {
  static auto* registry = new KernelRegistry<CpuDevice>();
  return *registry;
}

CpuDevice::CpuDevice(int threads)
    : allocator_(std::make_shared<CachingAllocator>(
          std::make_unique<HostMemorySource>("cpu:0", kAlignment),
          HostAllocatorOptions())),
      context_(std::make_shared<const CpuContext>(threads)) {}

DeviceInfo CpuDevice::Info() const {
  DeviceInfo info;
  info.device = device_;
  info.name = ProcField("/proc/cpuinfo", "model name");
  if (info.name.empty()) info.name = "CPU";
  const HostMemory host = ReadHostMemory();
  info.total_memory_bytes = host.total_bytes;
  info.free_memory_bytes = host.available_bytes;
  info.properties.push_back({"threads", absl::StrCat(threads())});
  const AllocatorStats memory = allocator_->stats();
  info.properties.push_back(
      {"allocator", absl::StrCat("in use ", FormatBytes(memory.allocated_bytes),
                                 ", cached ", FormatBytes(memory.cached_bytes),
                                 ", peak ", FormatBytes(memory.peak_allocated_bytes))});
  info.properties.push_back(
      {"cores", absl::StrCat(CoreCount())});
  return info;
}

absl::StatusOr<std::shared_ptr<Buffer>> CpuDevice::Allocate(size_t bytes) {
  SY_ASSIGN_OR_RETURN(void* data, allocator_->Allocate(bytes));
  std::shared_ptr<CachingAllocator> allocator = allocator_;
  return std::make_shared<Buffer>(*this, device_, data, bytes,
                                  [allocator](void* p) { allocator->Free(p); });
}

int64_t CpuDevice::memory_cache_mb() const {
  return allocator_->max_cached_bytes() >> 20;
}

absl::Status CpuDevice::SetMemoryCacheMb(int64_t mb) {
  // Beyond 2^40 MiB the byte count would overflow.
  if (mb < 0 || mb > (int64_t{1} << 40)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cpu option 'memory_cache_mb' wants MiB between 0 and 2^40, got ", mb));
  }
  return allocator_->SetMaxCachedBytes(mb << 20);
}

absl::Status CpuDevice::CopyFromHost(const void* src, Buffer& dst,
                                     size_t bytes) {
  if (bytes > dst.size_bytes()) return TooLarge(bytes, dst);
  // memcpy with a null pointer is undefined even for 0 bytes, and an empty
  // std::vector's data() is null (found by tests/fuzz/graph_fuzzer).
  if (bytes == 0) return absl::OkStatus();
  std::memcpy(dst.data(), src, bytes);
  return absl::OkStatus();
}

absl::Status CpuDevice::CopyToHost(const Buffer& src, void* dst, size_t bytes) {
  if (bytes > src.size_bytes()) return TooLarge(bytes, src);
  if (bytes == 0) return absl::OkStatus();
  std::memcpy(dst, src.data(), bytes);
  return absl::OkStatus();
}

absl::Status CpuDevice::Supports(const Node& node, const Graph& graph) const {
  return CpuKernels().Supports(node, graph, "cpu");
}

absl::StatusOr<std::unique_ptr<Kernel>> CpuDevice::CreateKernel(
    const Node& node, const Graph& graph) {
  return CpuKernels().Create(node, graph, *this, "cpu");
}

std::shared_ptr<const CpuContext> CpuDevice::context() const {
  absl::MutexLock lock(&mu_);
  return context_;
}

void CpuDevice::SetThreads(int threads) {
  std::shared_ptr<const CpuContext> context =
      std::make_shared<const CpuContext>(threads);
  {
    absl::MutexLock lock(&mu_);
    // Kernels already created keep the old pool alive through their own
    // reference, so a plan compiled earlier stays valid.
    context_.swap(context);
  }
  // The old pool, if nothing holds it, joins its threads here, unlocked.
}

bool CpuDevice::fusion() const {
  absl::MutexLock lock(&mu_);
  return fusion_;
}

void CpuDevice::SetFusion(bool on) {
  absl::MutexLock lock(&mu_);
  fusion_ = on;
}

ConvAlgorithm CpuDevice::conv_algorithm() const {
  absl::MutexLock lock(&mu_);
  return conv_algorithm_;
}

void CpuDevice::SetConvAlgorithm(ConvAlgorithm algorithm) {
  absl::MutexLock lock(&mu_);
  conv_algorithm_ = algorithm;
}

}  // namespace cpu
}  // namespace switchyard
