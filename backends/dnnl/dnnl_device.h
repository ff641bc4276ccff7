#ifndef SWITCHYARD_BACKENDS_DNNL_DNNL_DEVICE_H_
#define SWITCHYARD_BACKENDS_DNNL_DNNL_DEVICE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/dnnl/dnnl_conv_algorithm.h"
#include "backends/dnnl/dnnl_silu.h"
#include "core/backend.h"
#include "core/caching_allocator.h"
#include "core/prepared_weights.h"
#include "core/workspace_pool.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace switchyard {
namespace onednn {

// "dnnl:0": host memory (64-byte aligned, from a caching allocator as the
// CPU backend's: a fresh multi-megabyte block costs a page fault per 4 KiB
// on first touch, every run, which made a 41 MB copy take 180 ms), a oneDNN
// CPU engine, and kernels that are whole partitions (a single node is a
// partition of one).
class DnnlDevice : public BackendDevice {
 public:
  DnnlDevice(Device device, int threads);

  const Device& device() const override { return device_; }
  DeviceInfo Info() const override;
  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t bytes) override;
  CachingAllocator* caching_allocator() override { return allocator_.get(); }
  absl::Status CopyFromHost(const void* src, Buffer& dst,
                            size_t bytes) override;
  absl::Status CopyToHost(const Buffer& src, void* dst, size_t bytes) override;
  bool host_memory() const override { return true; }

  absl::Status Supports(const Node& node, const Graph& graph) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(
      const Node& node, const Graph& graph) override;
  // Every maximal run of consecutive nodes placed here (copies, which are
  // core's, end a run).
  std::vector<Partition> ClaimPartitions(const Graph& graph) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreatePartitionKernel(
      const Partition& partition, const Graph& graph) override;

  int threads() const { return threads_.load(); }
  // For kernels created afterwards.
  void SetThreads(int threads) { threads_.store(threads); }
  DnnlConvAlgorithm conv_algorithm() const { return conv_algorithm_.load(); }
  // For kernels created afterwards.
  void SetConvAlgorithm(DnnlConvAlgorithm a) { conv_algorithm_.store(a); }
  DnnlSilu silu() const { return silu_.load(); }
  // For kernels created afterwards.
  void SetSilu(DnnlSilu s) { silu_.store(s); }
  // Parameters reordered into the layouts primitives chose, shared by every
  // kernel of every plan on this device.
  PreparedWeights& prepared_weights() { return prepared_weights_; }
  // Memory the kernels borrow for each run's intermediates and scratchpads,
  // shared by every kernel of every plan on this device.
  WorkspacePool& workspaces() { return workspaces_; }

 private:
  absl::Status CheckBuffer(const Buffer& buffer, size_t bytes,
                           const char* role) const;

  const Device device_;
  dnnl::engine engine_;
  std::atomic<int> threads_;
  std::atomic<DnnlConvAlgorithm> conv_algorithm_{DnnlConvAlgorithm::kAuto};
  std::atomic<DnnlSilu> silu_{DnnlSilu::kAuto};
  PreparedWeights prepared_weights_;
  WorkspacePool workspaces_;
  // Shared with every buffer's release function: a buffer may outlive the
  // device.
  const std::shared_ptr<CachingAllocator> allocator_;
};

// "avx2", "avx512_core", ...: the instruction set oneDNN's JIT uses on this
// machine.
std::string EffectiveIsaName();
// "2.6.3 (OpenMP)".
std::string VersionString();

}  // namespace onednn
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_DNNL_DNNL_DEVICE_H_
