#ifndef SWITCHYARD_BACKENDS_CPU_CPU_DEVICE_H_
#define SWITCHYARD_BACKENDS_CPU_CPU_DEVICE_H_

#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels/conv2d_algorithm.h"
#include "core/backend.h"
#include "core/caching_allocator.h"
#include "core/kernel_registry.h"
#include "core/prepared_weights.h"

namespace switchyard {
namespace cpu {

// The Eigen CPU backend's one device, "cpu:0": host memory, the thread pool
// its kernels share (CpuContext) and its fusion switch. Kernels come from
// CpuKernels(), filled by the kernel files (backends/cpu/kernels/*.cc):
//
//   SY_REGISTER_KERNEL(CpuKernels(), "relu", DType::kFloat32,
//                      [](const Node& node, const Graph& graph, CpuDevice& d)
//                          -> absl::StatusOr<std::unique_ptr<Kernel>> {
//                        return std::make_unique<ReluKernel>(d.context());
//                      });
//
// Memory comes from a caching allocator (core/caching_allocator.h) over
// 64-byte-aligned host memory: a freed tensor's block serves the next
// request of its size, so running the same shapes again takes nothing new
// from the system (and pays no fresh page faults). At most
// memory_cache_mb() MiB of freed blocks are kept.
//
// Options (threads, fusion, conv_algorithm, memory_cache_mb) are set through the backend (cpu_backend.h) and
// affect kernels and partitions created afterwards: a kernel keeps the
// context it was created with, so a plan compiled earlier stays valid.
class CpuDevice : public BackendDevice {
 public:
  explicit CpuDevice(int threads);

  const Device& device() const override { return device_; }
  DeviceInfo Info() const override;

  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t bytes) override;
  CachingAllocator* caching_allocator() override { return allocator_.get(); }
  absl::Status CopyFromHost(const void* src, Buffer& dst, size_t bytes) override;
  absl::Status CopyToHost(const Buffer& src, void* dst, size_t bytes) override;
  bool host_memory() const override { return true; }

  absl::Status Supports(const Node& node, const Graph& graph) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(
      const Node& node, const Graph& graph) override;

  // Fusion (cpu_fusion.cc): conv2d(+bias)->relu and linear(+bias)->relu
  // pairs as one kernel with a ReLU epilogue, when fusion() is on.
  std::vector<Partition> ClaimPartitions(const Graph& graph) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreatePartitionKernel(
      const Partition& partition, const Graph& graph) override;

  // The pool kernels created now get.
  std::shared_ptr<const CpuContext> context() const;
  int threads() const { return context()->threads(); }
  // threads >= 1 (the backend checks it).
  void SetThreads(int threads);

  bool fusion() const;
  void SetFusion(bool on);

  // The cpu.conv_algorithm option: how conv2d kernels created now choose
  // their algorithm (kAuto: from the shapes; kernels/conv2d_algorithm.h).
  ConvAlgorithm conv_algorithm() const;
  void SetConvAlgorithm(ConvAlgorithm algorithm);

  // Freed memory kept for reuse, in MiB (the cpu.memory_cache_mb option);
  // 0 gives every freed block back at once.
  static constexpr int64_t kDefaultMemoryCacheMb = 1024;
  int64_t memory_cache_mb() const;
  absl::Status SetMemoryCacheMb(int64_t mb);

  // Constant weights transformed by kernels (Winograd), shared by every
  // plan compiled on this device.
  PreparedWeights& prepared_weights() { return prepared_weights_; }

 private:
  const Device device_ = Device::Cpu();
  // Shared with every Buffer it made, which may outlive a test's device.
  const std::shared_ptr<CachingAllocator> allocator_;
  PreparedWeights prepared_weights_;
  mutable absl::Mutex mu_;
  std::shared_ptr<const CpuContext> context_ ABSL_GUARDED_BY(mu_);
  bool fusion_ ABSL_GUARDED_BY(mu_) = true;
  ConvAlgorithm conv_algorithm_ ABSL_GUARDED_BY(mu_) = ConvAlgorithm::kAuto;
};

// The CPU backend's kernels by (op, dtype).
KernelRegistry<CpuDevice>& CpuKernels();

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_CPU_DEVICE_H_
