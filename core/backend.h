#ifndef SWITCHYARD_CORE_BACKEND_H_
#define SWITCHYARD_CORE_BACKEND_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/buffer.h"
#include "core/device.h"

namespace switchyard {

class Graph;
struct Node;
class Tensor;
class CachingAllocator;  // core/caching_allocator.h
using NodeId = int;

// What `switchyard devices` prints about one device.
struct DeviceInfo {
  Device device = Device::Cpu();
  std::string name;                 // e.g. "Intel Xeon (2 threads)"
  int64_t total_memory_bytes = -1;  // -1 when unknown
  int64_t free_memory_bytes = -1;
  // Backend-specific facts in display order ("threads", "compute capability").
  std::vector<std::pair<std::string, std::string>> properties;
};

// One part of a kernel's Run timed on the host clock: a primitive or a
// host pass inside a fused partition, for the profiler (a partition is one
// node event; its parts say where its time went).
struct KernelPart {
  std::string name;  // what it ran for: a node ("/layer1/conv/conv2d"), "input"
  std::string kind;  // what ran: "brgconv_1x1:avx512_core", "host silu", "reorder"
  std::chrono::steady_clock::time_point start, end;
};

// One node bound to one device, ready to run. Created once at lowering and
// run many times; inputs and outputs are on the kernel's device and outputs
// are allocated by the executor with the shapes shape inference gave.
class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual absl::Status Run(absl::Span<const Tensor* const> inputs,
                           absl::Span<Tensor* const> outputs) = 0;
  // What the backend chose for this node, for `switchyard graph` and `run
  // --explain-placement` (the cpu's conv2d: "winograd4: ..."). Optional;
  // empty when there is nothing to say.
  virtual std::string Describe() const { return ""; }
  // Whether Run reads input `index`. A kernel that copied a constant input
  // into its own layout when it was created says false, so that the
  // constant's memory can be given back (core/releasable_weights.h).
  virtual bool ReadsInputAtRun(int index) const { return true; }

  // While a profiler is on, the executor gives a kernel somewhere to append
  // the parts of its next Run (null otherwise). A kernel that runs in parts
  // on the host, finished when Run returns, times them there; others ignore
  // it.
  void set_part_sink(std::vector<KernelPart>* sink) { part_sink_ = sink; }

 protected:
  std::vector<KernelPart>* part_sink() const { return part_sink_; }

 private:
  std::vector<KernelPart>* part_sink_ = nullptr;
};

// A group of nodes one device runs as one kernel (ONNX Runtime's
// GetCapability subgraphs): where fusion (Conv+bias+ReLU, Linear+ReLU) and
// CUDA graphs live. Core checks what a backend claims: the nodes are
// consecutive in the graph's order, all placed on the claiming device, and
// no node is in two partitions. The kernel's inputs are the group's operands
// made outside it, in first-use order; its outputs are the values the group
// makes that the rest of the graph reads or returns, and the last node's
// outputs, in node order (core
// computes both: core/partition.h). Values made and read only inside the
// group are never materialized.
struct Partition {
  std::vector<NodeId> nodes;  // consecutive, in graph order
  std::string name;           // what `graph` shows: "conv2d+relu"
};

// A backend option's name, current value and what it does, for
// `switchyard devices` and error messages.
struct BackendOption {
  std::string key;  // "threads"
  std::string value;
  std::string help;  // "worker threads of the CPU kernels (>= 1)"
};

// Marks on one device's own clock, for the profiler: a CUDA backend records
// events on its stream; the default (HostClock in core/host_clock.h) reads
// the host's steady clock after synchronizing, which is exact for devices
// whose kernels finish before Kernel::Run returns (the CPU).
class DeviceClock {
 public:
  virtual ~DeviceClock() = default;
  // Queues a mark after all work queued on the device so far; returns its
  // index (0, 1, 2, ...).
  virtual absl::StatusOr<int> Mark() = 0;
  // Milliseconds between marks `from` and `to`; waits until both happened.
  virtual absl::StatusOr<double> ElapsedMs(int from, int to) = 0;
};

// A point in one device's queue of work (ggml-backend's events, a CUDA
// event): it has happened once everything queued before it has finished.
// Made by BackendDevice::RecordEvent and the asynchronous copies; belongs
// to the device that made it.
class DeviceEvent {
 public:
  virtual ~DeviceEvent() = default;
  // Blocks the calling thread until the event has happened.
  virtual absl::Status Synchronize() = 0;
};

// One device of a backend: allocates, copies, runs kernels, synchronizes.
// Owned by its Backend and valid as long as the Backend is.
class BackendDevice {
 public:
  virtual ~BackendDevice() = default;

  virtual const Device& device() const = 0;
  virtual DeviceInfo Info() const = 0;

  virtual absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t bytes) = 0;
  // The allocator Allocate draws from, when the device caches its memory
  // (cpu, cuda): its statistics and watches give a run's peak bytes
  // (core/run_memory.h). Null for a device without one.
  virtual CachingAllocator* caching_allocator() { return nullptr; }
  // Copies `bytes` from host memory into the start of `dst`.
  virtual absl::Status CopyFromHost(const void* src, Buffer& dst,
                                    size_t bytes) = 0;
  // Copies `bytes` from the start of `src` into host memory.
  virtual absl::Status CopyToHost(const Buffer& src, void* dst,
                                  size_t bytes) = 0;
  // Waits until all work queued on this device has finished.
  virtual absl::Status Synchronize() { return absl::OkStatus(); }
  // True when this device's buffers are ordinary host memory that the host
  // may read and write once Synchronize returns (cpu, oneDNN, reference):
  // a copy to or from such a device then needs no staging buffer.
  virtual bool host_memory() const { return false; }

  // Asynchronous copies (ggml-backend's set_tensor_async, events and host
  // buffer type), for overlapping uploads with compute: the image pipeline
  // uploads the next batch while this one runs. The defaults suit devices
  // whose copies finish before they return (host memory): they copy at once
  // and give an event that has already happened.
  //
  // Host memory this device copies from and to fastest and without a
  // staging step (CUDA: page-locked), at least `bytes` long and aligned to
  // 64 bytes. The default: ordinary host memory.
  virtual absl::StatusOr<std::shared_ptr<void>> AllocateHostStaging(size_t bytes);
  // Queues a copy of `bytes` from host memory into the start of `dst` and
  // returns an event that happens when the copy is done. Unlike
  // CopyFromHost, work queued on this device later is not ordered after it:
  // call WaitEvent(event) before queueing work that reads `dst`. The caller
  // also makes sure no queued work still uses `dst` (it synchronized the run
  // that read it), and keeps `src` unchanged until the event has happened.
  virtual absl::StatusOr<std::unique_ptr<DeviceEvent>> CopyFromHostAsync(
      const void* src, Buffer& dst, size_t bytes);
  // An event after all work queued on this device so far.
  virtual absl::StatusOr<std::unique_ptr<DeviceEvent>> RecordEvent();
  // Work queued on this device after this call starts after `event` (one of
  // this device's) has happened; the calling thread does not wait.
  virtual absl::Status WaitEvent(DeviceEvent& event);

  // Optional direct copy to another device (peer access). The default says
  // it is not available and core stages the copy through host memory.
  virtual absl::Status CopyToDevice(const Buffer& src, BackendDevice& dst_device,
                                    Buffer& dst, size_t bytes) {
    return absl::UnimplementedError("no direct device-to-device copy");
  }

  // A clock on this device's timeline. The default synchronizes and reads
  // the host clock; asynchronous devices override it.
  virtual absl::StatusOr<std::unique_ptr<DeviceClock>> CreateClock();

  // Capability before execution: OK when this device can run `node` (whose
  // input shapes are known), else Unimplemented with the reason.
  virtual absl::Status Supports(const Node& node, const Graph& graph) const = 0;
  virtual absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(
      const Node& node, const Graph& graph) = 0;

  // Partitions (optional): groups of nodes placed on this device that it
  // wants to run as one kernel each. Asked once per compile, after
  // placement; the default claims none.
  virtual std::vector<Partition> ClaimPartitions(const Graph& graph) const {
    return {};
  }
  // The kernel of one partition this device claimed.
  virtual absl::StatusOr<std::unique_ptr<Kernel>> CreatePartitionKernel(
      const Partition& partition, const Graph& graph) {
    return absl::UnimplementedError("this device runs no partitions");
  }
};

// The factory of one device type ("cpu", "cuda", a plugin's own type): it
// enumerates its devices and, when it has none, says why.
class Backend {
 public:
  virtual ~Backend() = default;

  // The device type this backend owns; a valid Device type name.
  virtual std::string type() const = 0;
  virtual int DeviceCount() const = 0;
  // Why DeviceCount() is zero (no driver, no GPU, ...); empty otherwise.
  virtual std::string UnavailableReason() const { return ""; }
  // index is in [0, DeviceCount()); the registry checks that first.
  virtual BackendDevice& GetDevice(int index) = 0;

  // Options (ggml's get_proc_address, ONNX Runtime's provider options): a
  // backend, plugins included, is configured by key and value. SetOption
  // returns InvalidArgument naming the key and the accepted keys (or the
  // accepted values) when it cannot take one; it affects kernels created
  // afterwards. The defaults: no options.
  virtual std::vector<BackendOption> Options() const { return {}; }
  virtual absl::Status SetOption(const std::string& key,
                                 const std::string& value);
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_BACKEND_H_
