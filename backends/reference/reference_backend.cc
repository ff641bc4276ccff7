#include "backends/reference/reference_backend.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/reference/kernels/kernels.h"
#include "core/graph.h"

namespace switchyard {
namespace reference {
namespace {

// Every op the backend runs, and the kernel factory of each.
const std::map<std::string, KernelFactory>& KernelTable() {
  static const auto* table = new std::map<std::string, KernelFactory>{
      {"adaptive_avg_pool2d", &MakeAdaptiveAvgPool2dKernel},
      {"add", &MakeAddKernel},
      {"conv2d", &MakeConv2dKernel},
      {"dropout", &MakeDropoutKernel},
      {"flatten", &MakeFlattenKernel},
      {"linear", &MakeLinearKernel},
      {"max_pool2d", &MakeMaxPool2dKernel},
      {"relu", &MakeReluKernel},
      {"softmax", &MakeSoftmaxKernel},
  };
  return *table;
}

int64_t HostMemoryBytes(int pages_name) {
  const long pages = sysconf(pages_name);
  const long page_size = sysconf(_SC_PAGESIZE);
  return pages < 0 || page_size < 0 ? -1 : int64_t{pages} * page_size;
}

class RefDevice : public BackendDevice {
 public:
  explicit RefDevice(Device device) : device_(std::move(device)) {}

  const Device& device() const override { return device_; }

  DeviceInfo Info() const override {
    DeviceInfo info;
    info.device = device_;
    info.name =
        "reference backend (plain C++ loops, own allocations in host memory)";
    // Its memory is the host's, shared with every other host device.
    info.total_memory_bytes = HostMemoryBytes(_SC_PHYS_PAGES);
    info.free_memory_bytes = HostMemoryBytes(_SC_AVPHYS_PAGES);
    info.properties.push_back(
        {"allocated", absl::StrCat(allocated_bytes_->load(), " bytes")});
    info.properties.push_back({"accumulation", "double"});
    return info;
  }

  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t bytes) override {
    // malloc of 0 may return null; a 1-byte block keeps data() valid.
    void* data = std::malloc(bytes == 0 ? 1 : bytes);
    if (data == nullptr) {
      return absl::ResourceExhaustedError(absl::StrCat(
          device_.ToString(), " could not allocate ", bytes,
          " bytes of host memory"));
    }
    *allocated_bytes_ += bytes;
    // The counter is shared so a buffer may outlive the device.
    return std::make_shared<Buffer>(
        device_, data, bytes, [counter = allocated_bytes_, bytes](void* p) {
          *counter -= bytes;
          std::free(p);
        });
  }

  absl::Status CopyFromHost(const void* src, Buffer& dst,
                            size_t bytes) override {
    if (absl::Status s = CheckBuffer(dst, bytes, "destination"); !s.ok()) {
      return s;
    }
    std::memcpy(dst.data(), src, bytes);
    return absl::OkStatus();
  }

  absl::Status CopyToHost(const Buffer& src, void* dst, size_t bytes) override {
    if (absl::Status s = CheckBuffer(src, bytes, "source"); !s.ok()) return s;
    std::memcpy(dst, src.data(), bytes);
    return absl::OkStatus();
  }

  // Direct copies between devices of this backend: memcpy from one device's
  // allocation into the other's. Anything else is staged by core.
  absl::Status CopyToDevice(const Buffer& src, BackendDevice& dst_device,
                            Buffer& dst, size_t bytes) override {
    auto* ref_dst = dynamic_cast<RefDevice*>(&dst_device);
    if (ref_dst == nullptr) {
      return absl::UnimplementedError(absl::StrCat(
          "the reference backend copies directly only between its own "
          "devices, not to ", dst_device.device().ToString()));
    }
    if (absl::Status s = CheckBuffer(src, bytes, "source"); !s.ok()) return s;
    if (absl::Status s = ref_dst->CheckBuffer(dst, bytes, "destination");
        !s.ok()) {
      return s;
    }
    std::memcpy(dst.data(), src.data(), bytes);
    return absl::OkStatus();
  }

  absl::Status Supports(const Node& node, const Graph& graph) const override {
    if (KernelTable().count(node.op) == 0) {
      return absl::UnimplementedError(absl::StrCat(
          "the reference backend has no kernel for op '", node.op,
          "' (node '", node.name, "'); it runs: ",
          absl::StrJoin(ReferenceOps(), ", ")));
    }
    for (ValueId id : node.inputs) {
      if (graph.value(id).dtype != DType::kFloat32) {
        return absl::UnimplementedError(absl::StrCat(
            "the reference backend computes float32 only; operand '",
            graph.value(id).name, "' of node '", node.name, "' is ",
            DTypeName(graph.value(id).dtype)));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(
      const Node& node, const Graph& graph) override {
    if (absl::Status s = Supports(node, graph); !s.ok()) return s;
    return KernelTable().at(node.op)(node, graph, device_);
  }

 private:
  // InvalidArgument unless `buffer` is this device's and holds `bytes`.
  absl::Status CheckBuffer(const Buffer& buffer, size_t bytes,
                           const char* role) const {
    if (buffer.device() != device_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the ", role, " buffer is on ", buffer.device().ToString(),
          ", not on ", device_.ToString()));
    }
    if (bytes > buffer.size_bytes()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a copy of ", bytes, " bytes does not fit the ", role,
          " buffer of ", buffer.size_bytes(), " bytes on ",
          device_.ToString()));
    }
    return absl::OkStatus();
  }

  const Device device_;
  std::shared_ptr<std::atomic<int64_t>> allocated_bytes_ =
      std::make_shared<std::atomic<int64_t>>(0);
};

class RefBackend : public Backend {
 public:
  explicit RefBackend(int device_count) {
    for (int i = 0; i < device_count; ++i) {
      devices_.push_back(
          std::make_unique<RefDevice>(*Device::Create(kReferenceType, i)));
    }
  }

  std::string type() const override { return kReferenceType; }
  int DeviceCount() const override { return static_cast<int>(devices_.size()); }
  std::string UnavailableReason() const override {
    if (!devices_.empty()) return "";
    return absl::StrCat("the reference backend was configured with 0 devices (",
                        kRefDevicesEnv, "=0); set ", kRefDevicesEnv,
                        " to 1..", kMaxRefDevices, " or unset it for ",
                        kDefaultRefDevices);
  }
  BackendDevice& GetDevice(int index) override { return *devices_[index]; }

 private:
  std::vector<std::unique_ptr<RefDevice>> devices_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Backend>> CreateReferenceBackend(
    int device_count) {
  if (device_count < 0 || device_count > kMaxRefDevices) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the reference backend takes 0 to ", kMaxRefDevices,
        " devices, got ", device_count));
  }
  return std::make_unique<RefBackend>(device_count);
}

absl::StatusOr<int> RefDeviceCountFromEnv() {
  const char* value = std::getenv(kRefDevicesEnv);
  if (value == nullptr || *value == '\0') return kDefaultRefDevices;
  int count = 0;
  if (!absl::SimpleAtoi(value, &count) || count < 0 || count > kMaxRefDevices) {
    return absl::InvalidArgumentError(absl::StrCat(
        kRefDevicesEnv, "='", value, "' is not a device count; set it to an ",
        "integer from 0 to ", kMaxRefDevices, ", or unset it for ",
        kDefaultRefDevices, " devices"));
  }
  return count;
}

absl::StatusOr<std::unique_ptr<Backend>> CreateReferenceBackendFromEnv() {
  absl::StatusOr<int> count = RefDeviceCountFromEnv();
  if (!count.ok()) return count.status();
  return CreateReferenceBackend(*count);
}

std::vector<std::string> ReferenceOps() {
  std::vector<std::string> ops;
  for (const auto& [op, factory] : KernelTable()) ops.push_back(op);
  return ops;
}

}  // namespace reference
}  // namespace switchyard
