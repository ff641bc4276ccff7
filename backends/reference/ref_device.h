#ifndef SWITCHYARD_BACKENDS_REFERENCE_REF_DEVICE_H_
#define SWITCHYARD_BACKENDS_REFERENCE_REF_DEVICE_H_

#include <atomic>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/backend.h"
#include "core/kernel_registry.h"

namespace switchyard {
namespace reference {

// One device of the reference backend, "ref:N": its own malloc'd host
// memory (a copy between two ref devices is a real memcpy), kernels from
// RefKernels(). Owned by the reference backend (reference_backend.cc).
class RefDevice : public BackendDevice {
 public:
  explicit RefDevice(Device device) : device_(std::move(device)) {}

  const Device& device() const override { return device_; }
  DeviceInfo Info() const override;
  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t bytes) override;
  absl::Status CopyFromHost(const void* src, Buffer& dst,
                            size_t bytes) override;
  absl::Status CopyToHost(const Buffer& src, void* dst, size_t bytes) override;
  bool host_memory() const override { return true; }
  // Direct copies between devices of this backend (memcpy); anything else
  // is staged by core.
  absl::Status CopyToDevice(const Buffer& src, BackendDevice& dst_device,
                            Buffer& dst, size_t bytes) override;
  absl::Status Supports(const Node& node, const Graph& graph) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(
      const Node& node, const Graph& graph) override;

 private:
  // InvalidArgument unless `buffer` is this device's and holds `bytes`.
  absl::Status CheckBuffer(const Buffer& buffer, size_t bytes,
                           const char* role) const;

  const Device device_;
  // Shared with every buffer's release function: a buffer may outlive the
  // device.
  std::shared_ptr<std::atomic<int64_t>> allocated_bytes_ =
      std::make_shared<std::atomic<int64_t>>(0);
};

// The reference backend's kernels by (op, dtype), filled by the files in
// kernels/ with SY_REGISTER_KERNEL. A plugin build has its own copy.
KernelRegistry<RefDevice>& RefKernels();

}  // namespace reference
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_REFERENCE_REF_DEVICE_H_
