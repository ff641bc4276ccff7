#ifndef SWITCHYARD_BACKENDS_CUDA_CUDA_DEVICE_H_
#define SWITCHYARD_BACKENDS_CUDA_CUDA_DEVICE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/caching_allocator.h"
#include "backends/cuda/cuda_options.h"
#include "backends/cuda/pinned_staging.h"
#include "core/backend.h"
#include "core/kernel_registry.h"
#include "cublasLt.h"
#include "cuda_runtime_api.h"
#include "cudnn.h"

namespace switchyard {
namespace cuda {

// A cuDNN forward algorithm chosen for one convolution shape.
struct ConvAlgorithm {
  cudnnConvolutionFwdAlgo_t algo;
  size_t workspace_bytes;
  cudnnMathType_t math_type;
  float time_ms;  // as measured by cudnnFindConvolutionForwardAlgorithmEx
};

// One GPU, "cuda:N". Kernels, library calls and device-to-device copies go
// to its compute stream (a non-blocking stream, created on first use
// together with the device's context), so that work is ordered without
// events, and memory freed to the caching allocator can be reused at once by
// later compute. Copies to and from host memory go to a second, copy stream
// (issue 41, item 4), through pinned staging buffers where it can have them;
// copies to another GPU are peer-to-peer where the GPUs allow it.
//
// How the two streams are ordered (cuda_device.cc, at CopyFromHost):
// - An upload records an event on the copy stream and the compute stream
//   waits on it at once, so every kernel queued after the upload sees the
//   data, while compute queued before it (earlier batches) overlaps the DMA.
// - The first upload into a buffer after Allocate() makes the copy stream
//   wait only on an event recorded on the compute stream when its block was
//   last freed (kernels queued before the free may still read it); any other
//   upload waits for all compute queued so far. So a fresh buffer must get
//   its first upload before compute writes it (FreeFences in the .cc).
// - A download makes the copy stream wait on an event recorded on the
//   compute stream at the call, so it sees everything that wrote the buffer.
// - The profiler's h2d/d2h times are the copy stream's own DMA interval.
// - CopyFromHostAsync leaves the ordering to its caller: the compute stream
//   waits only where the caller queues WaitEvent(event), and the copy waits
//   only on a fresh block's fence. The image pipeline uploads batch i + 1
//   from page-locked staging memory (AllocateHostStaging) while batch i's
//   kernels run.
//
// Kernels (kernels/*.cc, registered in CudaKernels() by (op, dtype)) call
// Activate() first, then queue work on stream(), holding library_mutex()
// while they use the cuBLASLt/cuDNN handles or the shared workspace.
//
// Fusion: the device claims a conv2d or linear node followed by the relu
// that alone reads its output (both on this device) as one partition, and
// runs it with the kernel CudaFusedKernels() has for "conv2d+relu" or
// "linear+relu": the convolution or the matmul (with cuBLASLt's BIAS
// epilogue), then one NaN-keeping bias+ReLU or ReLU pass of ours
// (kernels/conv2d.cc and linear.cc say why not the libraries' ReLU).
//
// Owned by the CudaBackend; the caching allocator is shared with every
// Buffer it handed out, so buffers may outlive the device object.
class FreeFences;

class CudaDevice : public BackendDevice {
 public:
  // `options` is the backend's and outlives the device.
  CudaDevice(int index, const CudaOptions& options);
  ~CudaDevice() override;
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  // BackendDevice.
  const Device& device() const override { return device_; }
  DeviceInfo Info() const override;
  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t bytes) override;
  absl::Status CopyFromHost(const void* src, Buffer& dst, size_t bytes) override;
  absl::Status CopyToHost(const Buffer& src, void* dst, size_t bytes) override;
  absl::Status Synchronize() override;
  absl::StatusOr<std::shared_ptr<void>> AllocateHostStaging(size_t bytes) override;
  absl::StatusOr<std::unique_ptr<DeviceEvent>> CopyFromHostAsync(
      const void* src, Buffer& dst, size_t bytes) override;
  absl::StatusOr<std::unique_ptr<DeviceEvent>> RecordEvent() override;
  absl::Status WaitEvent(DeviceEvent& event) override;
  absl::Status CopyToDevice(const Buffer& src, BackendDevice& dst_device,
                            Buffer& dst, size_t bytes) override;
  absl::StatusOr<std::unique_ptr<DeviceClock>> CreateClock() override;
  absl::Status Supports(const Node& node, const Graph& graph) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(
      const Node& node, const Graph& graph) override;
  std::vector<Partition> ClaimPartitions(const Graph& graph) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreatePartitionKernel(
      const Partition& partition, const Graph& graph) override;

  // For kernels.
  int index() const { return index_; }
  const std::string& name() const { return name_; }
  // Makes this GPU current on the calling thread; on first use creates its
  // streams. Every entry point calls it; kernels call it at the top of Run.
  absl::Status Activate();
  // Valid after a successful Activate(). The compute stream.
  cudaStream_t stream() const { return stream_; }
  // Host copies' stream; kernels never use it.
  cudaStream_t copy_stream() const { return copy_stream_; }

  // For the device's clock: every host copy records a pair of timing events
  // on the copy stream around its DMA. `copies` counts the copies so far;
  // `start`/`end` are the last one's (null when it had none or they were
  // taken before), owned by the caller from here on.
  struct CopyTiming {
    uint64_t copies = 0;
    cudaEvent_t start = nullptr;
    cudaEvent_t end = nullptr;
  };
  CopyTiming TakeCopyTiming();
  // Handles bound to stream(), created on first use (the libraries are
  // loaded then). Use them under library_mutex().
  absl::StatusOr<cublasLtHandle_t> CublasLtHandle()
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(library_mu_);
  absl::StatusOr<cudnnHandle_t> CudnnHandle()
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(library_mu_);
  // Scratch device memory of at least `bytes`, shared by the cuBLASLt and
  // cuDNN calls of this device (one stream orders them). Valid until the next
  // call; hold library_mutex() from this call until the work is queued.
  absl::StatusOr<void*> Workspace(size_t bytes)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(library_mu_);
  absl::Mutex& library_mutex() ABSL_LOCK_RETURNED(library_mu_) {
    return library_mu_;
  }

  CachingAllocator& allocator() { return *allocator_; }
  CachingAllocator* caching_allocator() override { return allocator_.get(); }
  // The backend's allow_tf32 option, read when a kernel is created.
  bool allow_tf32() const { return options_.allow_tf32(); }

  // cuDNN algorithm choices by convolution shape, shared by all kernels of
  // this device: each shape is benchmarked once per process and device.
  std::optional<ConvAlgorithm> FindConvAlgorithm(const std::string& key);
  void StoreConvAlgorithm(const std::string& key, const ConvAlgorithm& algo);

 private:
  absl::Status Initialize() ABSL_EXCLUSIVE_LOCKS_REQUIRED(init_mu_);
  absl::Status CheckCopy(const Buffer& buffer, size_t bytes,
                         const char* what) const;
  absl::Status EnablePeerAccess(int peer);
  // New timing events for a copy (both null if they cannot be had: the copy
  // is then untimed), and keeping them as the last copy's.
  void NewCopyTiming(cudaEvent_t* start, cudaEvent_t* end)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(staging_mu_);
  void KeepCopyTiming(cudaEvent_t start, cudaEvent_t end)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(staging_mu_);
  // Queues the DMA of an upload on the copy stream, timed: through the
  // staging ring, or `direct`ly from `src` (page-locked memory the caller
  // keeps unchanged until the copy is done).
  absl::Status QueueUpload(const void* src, void* dst, size_t bytes, bool direct)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(staging_mu_);

  const int index_;
  const Device device_;
  const std::string name_;
  const CudaOptions& options_;
  const std::shared_ptr<CachingAllocator> allocator_;

  absl::Mutex init_mu_;
  bool initialized_ ABSL_GUARDED_BY(init_mu_) = false;
  absl::Status init_status_ ABSL_GUARDED_BY(init_mu_);
  cudaStream_t stream_ = nullptr;       // written once, in Initialize()
  cudaStream_t copy_stream_ = nullptr;  // likewise
  // Shared with the buffers' deleters, which may outlive the device.
  const std::shared_ptr<FreeFences> free_fences_;

  absl::Mutex staging_mu_;
  std::unique_ptr<PinnedStaging> staging_ ABSL_GUARDED_BY(staging_mu_);
  bool staging_failed_ ABSL_GUARDED_BY(staging_mu_) = false;
  // Reused for every copy: a wait on an event takes its record at the call.
  cudaEvent_t upload_done_ ABSL_GUARDED_BY(staging_mu_) = nullptr;
  cudaEvent_t compute_done_ ABSL_GUARDED_BY(staging_mu_) = nullptr;
  CopyTiming last_copy_ ABSL_GUARDED_BY(staging_mu_);

  absl::Mutex library_mu_;
  cublasLtHandle_t cublaslt_ ABSL_GUARDED_BY(library_mu_) = nullptr;
  cudnnHandle_t cudnn_ ABSL_GUARDED_BY(library_mu_) = nullptr;
  void* workspace_ ABSL_GUARDED_BY(library_mu_) = nullptr;
  size_t workspace_bytes_ ABSL_GUARDED_BY(library_mu_) = 0;

  absl::Mutex conv_mu_;
  absl::flat_hash_map<std::string, ConvAlgorithm> conv_algorithms_
      ABSL_GUARDED_BY(conv_mu_);

  absl::Mutex peer_mu_;
  absl::flat_hash_set<int> peers_checked_ ABSL_GUARDED_BY(peer_mu_);
};

// The CUDA backend's kernels by (op, dtype), filled by kernels/*.cc with
// SY_REGISTER_KERNEL; a `supports` predicate says when a library is missing
// ("conv2d needs cuDNN: ...").
KernelRegistry<CudaDevice>& CudaKernels();

// Kernels of claimed partitions, keyed by the partition's name
// ("conv2d+relu") and the dtype of its first node; the factory gets that
// first node (the producer), whose operands are the partition's inputs in
// order, and the kernel writes the relu's output.
KernelRegistry<CudaDevice>& CudaFusedKernels();

}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_CUDA_DEVICE_H_
