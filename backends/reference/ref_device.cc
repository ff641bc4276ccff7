#include "backends/reference/ref_device.h"

#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/graph.h"
#include "core/host_memory.h"

namespace switchyard {
namespace reference {
namespace {

// The name capability errors give the backend: "the reference backend ...".
constexpr char kBackendName[] = "reference";

}  // namespace

KernelRegistry<RefDevice>& RefKernels() {
  // Leaked: registration runs during static initialization, in any order.
  static auto* registry = new KernelRegistry<RefDevice>();
  return *registry;
}

DeviceInfo RefDevice::Info() const {
  DeviceInfo info;
  info.device = device_;
  info.name =
      "reference backend (plain C++ loops, own allocations in host memory)";
  // Its memory is the host's, shared with every other host device.
  const HostMemory host = ReadHostMemory();
  info.total_memory_bytes = host.total_bytes;
  info.free_memory_bytes = host.available_bytes;
  info.properties.push_back(
      {"allocated", absl::StrCat(allocated_bytes_->load(), " bytes")});
  info.properties.push_back({"accumulation", "double"});
  return info;
}

absl::StatusOr<std::shared_ptr<Buffer>> RefDevice::Allocate(size_t bytes) {
  // malloc of 0 may return null; a 1-byte block keeps data() valid.
  void* data = std::malloc(bytes == 0 ? 1 : bytes);
  if (data == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat(device_.ToString(), " could not allocate ", bytes,
                     " bytes of host memory"));
  }
  *allocated_bytes_ += bytes;
  return std::make_shared<Buffer>(*this, device_, data, bytes,
                                  [counter = allocated_bytes_, bytes](void* p) {
                                    *counter -= bytes;
                                    std::free(p);
                                  });
}

absl::Status RefDevice::CopyFromHost(const void* src, Buffer& dst,
                                     size_t bytes) {
  if (absl::Status s = CheckBuffer(dst, bytes, "destination"); !s.ok()) {
    return s;
  }
  if (bytes > 0) std::memcpy(dst.data(), src, bytes);
  return absl::OkStatus();
}

absl::Status RefDevice::CopyToHost(const Buffer& src, void* dst, size_t bytes) {
  if (absl::Status s = CheckBuffer(src, bytes, "source"); !s.ok()) return s;
  if (bytes > 0) std::memcpy(dst, src.data(), bytes);
  return absl::OkStatus();
}

absl::Status RefDevice::CopyToDevice(const Buffer& src,
                                     BackendDevice& dst_device, Buffer& dst,
                                     size_t bytes) {
  auto* ref_dst = dynamic_cast<RefDevice*>(&dst_device);
  if (ref_dst == nullptr) {
    return absl::UnimplementedError(absl::StrCat(
        "the reference backend copies directly only between its own "
        "devices, not to ",
        dst_device.device().ToString()));
  }
  if (absl::Status s = CheckBuffer(src, bytes, "source"); !s.ok()) return s;
  if (absl::Status s = ref_dst->CheckBuffer(dst, bytes, "destination");
      !s.ok()) {
    return s;
  }
  if (bytes > 0) std::memcpy(dst.data(), src.data(), bytes);
  return absl::OkStatus();
}

absl::Status RefDevice::Supports(const Node& node, const Graph& graph) const {
  return RefKernels().Supports(node, graph, kBackendName);
}

absl::StatusOr<std::unique_ptr<Kernel>> RefDevice::CreateKernel(
    const Node& node, const Graph& graph) {
  return RefKernels().Create(node, graph, *this, kBackendName);
}

absl::Status RefDevice::CheckBuffer(const Buffer& buffer, size_t bytes,
                                    const char* role) const {
  if (&buffer.owner() != this) {
    if (buffer.device() == device_) {
      // Another backend object's device of the same name: another registry
      // or a plugin's copy of this backend.
      return absl::InvalidArgumentError(
          absl::StrCat("the ", role, " buffer is from another backend's ",
                       device_.ToString(),
                       " (another registry, or a plugin), not from this one"));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("the ", role, " buffer is on ", buffer.device().ToString(),
                     ", not on ", device_.ToString()));
  }
  if (bytes > buffer.size_bytes()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a copy of ", bytes, " bytes does not fit the ", role, " buffer of ",
        buffer.size_bytes(), " bytes on ", device_.ToString()));
  }
  return absl::OkStatus();
}

}  // namespace reference
}  // namespace switchyard
