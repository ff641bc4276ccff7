#include "core/testing/host_backend.h"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/graph.h"
#include "core/tensor.h"

namespace switchyard {
namespace testing {
namespace {

class ElementwiseKernel : public Kernel {
 public:
  ElementwiseKernel(std::string op, HostBackendCounters& counters)
      : op_(std::move(op)), counters_(counters) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    ++counters_.kernels_run;
    const float* a = inputs[0]->data<float>();
    float* out = outputs[0]->data<float>();
    for (int64_t i = 0; i < outputs[0]->num_elements(); ++i) {
      out[i] = op_ == "relu" ? (a[i] > 0 ? a[i] : 0)
                             : a[i] + inputs[1]->data<float>()[i];
    }
    return absl::OkStatus();
  }

 private:
  std::string op_;
  HostBackendCounters& counters_;
};

class HostDevice;

// Happens when the deferred copies up to its number have landed.
class DeferredCopyEvent : public DeviceEvent {
 public:
  DeferredCopyEvent(HostDevice& device, uint64_t number)
      : device_(device), number_(number) {}
  absl::Status Synchronize() override;

 private:
  HostDevice& device_;
  const uint64_t number_;
};

// Host time, without synchronizing: with deferred copies, the profiler's
// marks must not land them (HostClock's would).
class UnsyncedClock : public DeviceClock {
 public:
  absl::StatusOr<int> Mark() override {
    marks_.push_back(std::chrono::steady_clock::now());
    return static_cast<int>(marks_.size()) - 1;
  }
  absl::StatusOr<double> ElapsedMs(int from, int to) override {
    const int n = static_cast<int>(marks_.size());
    if (from < 0 || to < 0 || from >= n || to >= n) {
      return absl::OutOfRangeError("no such clock mark");
    }
    return std::chrono::duration<double, std::milli>(marks_[to] - marks_[from]).count();
  }

 private:
  std::vector<std::chrono::steady_clock::time_point> marks_;
};

class HostDevice : public BackendDevice {
 public:
  HostDevice(Device device, std::shared_ptr<HostBackendCounters> counters,
             bool host_memory)
      : device_(std::move(device)),
        counters_(std::move(counters)),
        host_memory_(host_memory) {}
  // Lands the deferred copies numbered up to `number`, in order.
  void Land(uint64_t number) {
    absl::MutexLock lock(&pending_mu_);
    ApplyUpTo(number);
  }
  const Device& device() const override { return device_; }
  DeviceInfo Info() const override {
    DeviceInfo info;
    info.device = device_;
    info.name = "host memory test device";
    return info;
  }
  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t bytes) override {
    ++counters_->allocations;
    void* data = std::malloc(bytes == 0 ? 1 : bytes);
    if (data == nullptr) return absl::ResourceExhaustedError("malloc failed");
    return std::make_shared<Buffer>(*this, device_, data, bytes, &std::free);
  }
  absl::Status CopyFromHost(const void* src, Buffer& dst, size_t bytes) override {
    ++counters_->copies_from_host;
    if (bytes > 0) std::memcpy(dst.data(), src, bytes);
    return absl::OkStatus();
  }
  absl::Status CopyToHost(const Buffer& src, void* dst, size_t bytes) override {
    ++counters_->copies_to_host;
    if (bytes > 0) std::memcpy(dst, src.data(), bytes);
    return absl::OkStatus();
  }
  bool host_memory() const override { return host_memory_; }
  absl::StatusOr<std::unique_ptr<DeviceEvent>> CopyFromHostAsync(
      const void* src, Buffer& dst, size_t bytes) override {
    ++counters_->async_copies;
    if (!counters_->deferred_async_copies.load()) {
      return BackendDevice::CopyFromHostAsync(src, dst, bytes);
    }
    if (bytes > dst.size_bytes()) return absl::InvalidArgumentError("copy too large");
    absl::MutexLock lock(&pending_mu_);
    pending_.push_back({src, dst.data(), bytes});
    return std::unique_ptr<DeviceEvent>(
        std::make_unique<DeferredCopyEvent>(*this, issued_ += 1));
  }
  absl::StatusOr<std::unique_ptr<DeviceClock>> CreateClock() override {
    if (!counters_->deferred_async_copies.load()) return BackendDevice::CreateClock();
    return std::unique_ptr<DeviceClock>(std::make_unique<UnsyncedClock>());
  }
  absl::Status Synchronize() override {
    {
      absl::MutexLock lock(&pending_mu_);
      ApplyUpTo(issued_);
    }
    const int after = counters_->fault_after_kernels.load();
    if (after >= 0 && counters_->kernels_run.load() > after) {
      return absl::InternalError("the test device faulted (an asynchronous kernel error)");
    }
    return absl::OkStatus();
  }
  absl::Status Supports(const Node& node, const Graph& graph) const override {
    if (node.op != "relu" && node.op != "add") {
      return absl::UnimplementedError(
          absl::StrCat("the test backend has no kernel for ", node.op));
    }
    for (ValueId id : node.inputs) {
      if (graph.value(id).dtype != DType::kFloat32) {
        return absl::UnimplementedError(absl::StrCat(
            "the test backend runs ", node.op, " in float32 only, not ",
            DTypeName(graph.value(id).dtype)));
      }
      // Its kernel walks every operand in step with the output: no
      // broadcasting (an add of [3] and [1] would read past the [1]).
      // Shapes not inferred yet (a hand-built graph) are not judged.
      const Value& operand = graph.value(id);
      const Value& output = graph.value(node.outputs[0]);
      if (operand.shape && output.shape && *operand.shape != *output.shape) {
        return absl::UnimplementedError(absl::StrCat(
            "the test backend runs ", node.op, " on operands of the output's shape only "
            "(no broadcasting)"));
      }
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(
      const Node& node, const Graph& graph) override {
    ++counters_->kernels_created;
    return std::make_unique<ElementwiseKernel>(node.op, *counters_);
  }

 private:
  struct PendingCopy {
    const void* src;
    void* dst;
    size_t bytes;
  };
  void ApplyUpTo(uint64_t number) ABSL_EXCLUSIVE_LOCKS_REQUIRED(pending_mu_) {
    while (landed_ < number && !pending_.empty()) {
      const PendingCopy& copy = pending_.front();
      if (copy.bytes > 0) std::memcpy(copy.dst, copy.src, copy.bytes);
      pending_.pop_front();
      ++landed_;
    }
  }
  absl::Mutex pending_mu_;
  std::deque<PendingCopy> pending_ ABSL_GUARDED_BY(pending_mu_);
  uint64_t issued_ ABSL_GUARDED_BY(pending_mu_) = 0;
  uint64_t landed_ ABSL_GUARDED_BY(pending_mu_) = 0;
  Device device_;
  std::shared_ptr<HostBackendCounters> counters_;
  bool host_memory_;
};

absl::Status DeferredCopyEvent::Synchronize() {
  device_.Land(number_);
  return absl::OkStatus();
}

class HostBackend : public Backend {
 public:
  HostBackend(std::string type, int device_count,
              std::shared_ptr<HostBackendCounters> counters, bool host_memory)
      : type_(std::move(type)) {
    for (int i = 0; i < device_count; ++i) {
      devices_.push_back(std::make_unique<HostDevice>(
          *Device::Create(type_, i), counters, host_memory));
    }
  }
  std::string type() const override { return type_; }
  int DeviceCount() const override { return static_cast<int>(devices_.size()); }
  std::string UnavailableReason() const override {
    return devices_.empty() ? "the test backend was made with no devices" : "";
  }
  BackendDevice& GetDevice(int index) override { return *devices_[index]; }

 private:
  std::string type_;
  std::vector<std::unique_ptr<HostDevice>> devices_;
};

}  // namespace

std::unique_ptr<Backend> MakeHostBackend(
    const std::string& type, int device_count,
    std::shared_ptr<HostBackendCounters> counters, bool host_memory) {
  return std::make_unique<HostBackend>(type, device_count, std::move(counters),
                                       host_memory);
}

}  // namespace testing
}  // namespace switchyard
