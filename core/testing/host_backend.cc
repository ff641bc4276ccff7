#include "core/testing/host_backend.h"

#include <cstdlib>
#include <cstring>
#include <vector>

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

class HostDevice : public BackendDevice {
 public:
  HostDevice(Device device, std::shared_ptr<HostBackendCounters> counters,
             bool host_memory)
      : device_(std::move(device)),
        counters_(std::move(counters)),
        host_memory_(host_memory) {}
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
  absl::Status Synchronize() override {
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
  Device device_;
  std::shared_ptr<HostBackendCounters> counters_;
  bool host_memory_;
};

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
