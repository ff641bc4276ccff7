#include "backends/cuda/cuda_device.h"

#include <cstdio>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "backends/cuda/cuda_libraries.h"
#include "backends/cuda/cuda_status.h"
#include "core/format_bytes.h"
#include "core/graph.h"
#include "core/partition.h"
#include "core/status_macros.h"
#include "passes/relu_fusion.h"

namespace switchyard {
namespace cuda {
namespace {

// The name capability errors give the backend: "the cuda backend ...".
constexpr char kBackendName[] = "cuda";

// Makes `index` the calling thread's current device (cheap when it is).
cudaError_t SetCurrent(int index) {
  int current = -1;
  cudaError_t error = cudaGetDevice(&current);
  if (error == cudaSuccess && current == index) return cudaSuccess;
  return cudaSetDevice(index);
}

// cudaMalloc/cudaFree on one device, for the caching allocator.
class CudaMemorySource : public MemorySource {
 public:
  CudaMemorySource(int index, std::string name)
      : index_(index), name_(std::move(name)) {}

  absl::StatusOr<void*> Malloc(size_t bytes) override {
    SY_CUDA_RETURN_IF_ERROR(SetCurrent(index_), name_);
    void* ptr = nullptr;
    SY_CUDA_RETURN_IF_ERROR(cudaMalloc(&ptr, bytes), name_);
    return ptr;
  }
  absl::Status Free(void* ptr) override {
    SY_CUDA_RETURN_IF_ERROR(SetCurrent(index_), name_);
    SY_CUDA_RETURN_IF_ERROR(cudaFree(ptr), name_);
    return absl::OkStatus();
  }
  absl::Status Synchronize() override {
    SY_CUDA_RETURN_IF_ERROR(SetCurrent(index_), name_);
    SY_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize(), name_);
    return absl::OkStatus();
  }
  absl::Status MemoryInfo(size_t* free_bytes, size_t* total_bytes) override {
    SY_CUDA_RETURN_IF_ERROR(SetCurrent(index_), name_);
    SY_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(free_bytes, total_bytes), name_);
    return absl::OkStatus();
  }
  std::string DeviceName() const override { return name_; }

 private:
  const int index_;
  const std::string name_;
};

// Timestamps on the device's compute stream (CUDA events), for the
// profiler. An interval holding exactly one host copy of this device (the
// profiler's h2d/d2h marks) is instead that copy's own DMA interval on the
// copy stream: the compute stream's marks would time the wait for queued
// compute (a download) or nothing at all (an upload overlapping compute).
class CudaClock : public DeviceClock {
 public:
  explicit CudaClock(CudaDevice& device) : device_(device) {}
  ~CudaClock() override {
    if (SetCurrent(device_.index()) != cudaSuccess) return;
    for (const MarkEvents& mark : marks_) {
      for (cudaEvent_t event : {mark.compute, mark.copy.start, mark.copy.end}) {
        if (event != nullptr) cudaEventDestroy(event);
      }
    }
  }

  absl::StatusOr<int> Mark() override {
    SY_RETURN_IF_ERROR(device_.Activate());
    cudaEvent_t event = nullptr;
    SY_CUDA_RETURN_IF_ERROR(cudaEventCreate(&event), device_.name());
    marks_.push_back({event, device_.TakeCopyTiming()});
    SY_CUDA_RETURN_IF_ERROR(cudaEventRecord(event, device_.stream()),
                            device_.name());
    return static_cast<int>(marks_.size()) - 1;
  }

  absl::StatusOr<double> ElapsedMs(int from, int to) override {
    const int n = static_cast<int>(marks_.size());
    if (from < 0 || to < 0 || from >= n || to >= n) {
      return absl::OutOfRangeError(absl::StrCat(
          "clock marks ", from, " and ", to, " requested, ", n, " recorded"));
    }
    SY_RETURN_IF_ERROR(device_.Activate());
    cudaEvent_t start = marks_[from].compute;
    cudaEvent_t end = marks_[to].compute;
    const CudaDevice::CopyTiming& copy = marks_[to].copy;
    if (copy.copies == marks_[from].copy.copies + 1 && copy.start != nullptr) {
      start = copy.start;
      end = copy.end;
    }
    SY_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(start), device_.name());
    SY_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(end), device_.name());
    float ms = 0;
    SY_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, start, end), device_.name());
    return static_cast<double>(ms);
  }

 private:
  struct MarkEvents {
    cudaEvent_t compute = nullptr;
    CudaDevice::CopyTiming copy;  // the last copy before the mark, if untaken
  };
  CudaDevice& device_;
  std::vector<MarkEvents> marks_;
};

// An event recorded on `stream` of device `index`, for another stream to wait on.
absl::StatusOr<cudaEvent_t> RecordStreamEvent(int index, cudaStream_t stream,
                                              const std::string& name) {
  SY_CUDA_RETURN_IF_ERROR(SetCurrent(index), name);
  cudaEvent_t event = nullptr;
  SY_CUDA_RETURN_IF_ERROR(
      cudaEventCreateWithFlags(&event, cudaEventDisableTiming), name);
  cudaError_t recorded = cudaEventRecord(event, stream);
  if (recorded != cudaSuccess) {
    cudaEventDestroy(event);
    return CudaStatus(recorded, "cudaEventRecord", name);
  }
  return event;
}

// An event of one device: a CUDA event recorded on one or both of its
// streams (RecordEvent marks both queues, a copy only the copy stream).
class CudaEvent : public DeviceEvent {
 public:
  CudaEvent(int index, std::string name) : index_(index), name_(std::move(name)) {}
  ~CudaEvent() override {
    for (cudaEvent_t event : events_) cudaEventDestroy(event);
  }

  int index() const { return index_; }
  // Adds a mark after the work queued on `stream` so far.
  absl::Status Record(cudaStream_t stream) {
    SY_ASSIGN_OR_RETURN(cudaEvent_t event, RecordStreamEvent(index_, stream, name_));
    events_.push_back(event);
    return absl::OkStatus();
  }
  absl::Status Synchronize() override {
    SY_CUDA_RETURN_IF_ERROR(SetCurrent(index_), name_);
    for (cudaEvent_t event : events_) {
      SY_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(event), name_);
    }
    return absl::OkStatus();
  }
  // Work queued on `stream` from here on starts after every mark.
  absl::Status QueueWait(cudaStream_t stream) {
    SY_CUDA_RETURN_IF_ERROR(SetCurrent(index_), name_);
    for (cudaEvent_t event : events_) {
      SY_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(stream, event, 0), name_);
    }
    return absl::OkStatus();
  }

 private:
  const int index_;
  const std::string name_;
  std::vector<cudaEvent_t> events_;
};

// Whether `ptr` is page-locked host memory (cudaHostAlloc'd or registered),
// which the copy engine reads directly and asynchronously.
bool IsPageLocked(const void* ptr) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
    cudaGetLastError();  // not the next call's error
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

// The device's pinned staging buffers (`staging`, guarded by the caller's
// lock), created on the first copy either way. Null where pinned memory is
// not to be had, said once on stderr: copies then go from pageable memory.
PinnedStaging* LazyStaging(const std::string& name,
                           std::unique_ptr<PinnedStaging>& staging,
                           bool& failed) {
  if (staging == nullptr && !failed) {
    absl::StatusOr<std::unique_ptr<PinnedStaging>> created =
        PinnedStaging::Create(name);
    if (created.ok()) {
      staging = std::move(*created);
    } else {
      failed = true;
      std::fprintf(stderr,
                   "switchyard: %s: no pinned staging memory (%s); copies "
                   "go from pageable memory\n",
                   name.c_str(), created.status().ToString().c_str());
    }
  }
  return staging.get();
}

}  // namespace

// Whether compute may still use a block an upload is about to write.
// Frees are stream-ordered on the compute stream: the allocator hands a
// block out again at once, which is safe for later compute (queued after the
// kernels that used it) but not for the copy stream, which is not ordered
// after compute: an upload into the block could overwrite what a queued
// kernel has yet to read. So each free records an event on the compute
// stream (the block's fence), and the first upload into a block after
// Allocate() makes the copy stream wait on that fence only, not on all
// queued compute: the common case (a fresh tensor per batch) overlaps.
// Any other upload (a second one into the same buffer, which compute may
// have used meanwhile, or into a buffer this device did not allocate, such
// as a piece at an offset) waits for all compute queued so far. A fresh
// buffer must therefore get its first upload before any compute writes it,
// which is how core and the tools use it (Tensor::FromBytes, the loaders).
// The other way round needs nothing: a block an upload wrote is freed, and
// so reused by compute, only after the compute stream was made to wait on
// the upload, and a download has finished when CopyToHost returns.
class FreeFences {
 public:
  FreeFences(int index, std::string name) : index_(index), name_(std::move(name)) {}
  ~FreeFences() { Stop(); }

  // Frees record from here on (the device's streams exist).
  void Start(cudaStream_t compute) {
    absl::MutexLock lock(&mu_);
    compute_ = compute;
  }
  // The device goes away, its streams synchronized: nothing is in flight.
  void Stop() {
    absl::MutexLock lock(&mu_);
    compute_ = nullptr;
    for (auto& [ptr, fence] : fences_) {
      if (fence.event != nullptr) cudaEventDestroy(fence.event);
    }
    for (cudaEvent_t event : spare_) cudaEventDestroy(event);
    fences_.clear();
    spare_.clear();
  }

  // Allocate() handed `ptr` out: its next upload needs only the fence.
  void MarkFresh(void* ptr) {
    absl::MutexLock lock(&mu_);
    fences_[ptr].fresh = true;
  }

  // Called as `ptr` goes back to the allocator. If no event can be
  // recorded, the next upload into `ptr` waits for all compute.
  void Record(void* ptr) {
    absl::MutexLock lock(&mu_);
    if (compute_ == nullptr) return;
    Fence& fence = fences_[ptr];
    fence.fresh = false;
    fence.failed = false;
    if (SetCurrent(index_) != cudaSuccess) {
      cudaGetLastError();  // not to be blamed on the next kernel launch
      fence.failed = true;
      return;
    }
    if (fence.event == nullptr && !spare_.empty()) {
      fence.event = spare_.back();
      spare_.pop_back();
    }
    if (fence.event == nullptr &&
        cudaEventCreateWithFlags(&fence.event, cudaEventDisableTiming) !=
            cudaSuccess) {
      cudaGetLastError();
      fence.event = nullptr;
      fence.failed = true;
      return;
    }
    if (cudaEventRecord(fence.event, compute_) != cudaSuccess) {
      cudaGetLastError();
      fence.failed = true;
    }
    if (fences_.size() > kPruneAbove) Prune();
  }

  // Makes `copy_stream` wait for what compute may still do with `ptr`;
  // `compute_done` is a scratch event for waiting on all compute, null when
  // the caller has ordered the copy after every use of `ptr` it knows of
  // (CopyFromHostAsync): then only a fresh block's fence is waited on.
  absl::Status OrderBefore(void* ptr, cudaStream_t copy_stream,
                           cudaEvent_t compute_done) {
    absl::MutexLock lock(&mu_);
    if (compute_ == nullptr) return absl::OkStatus();
    auto it = fences_.find(ptr);
    cudaEvent_t wait_for = nullptr;
    if (it != fences_.end() && it->second.fresh && !it->second.failed) {
      wait_for = it->second.event;  // null: a new block, never freed
    } else if (compute_done != nullptr) {
      SY_CUDA_RETURN_IF_ERROR(cudaEventRecord(compute_done, compute_), name_);
      wait_for = compute_done;
    }
    if (it != fences_.end()) {
      // The wait below takes the event's record now; later uploads into
      // this buffer wait for all compute.
      if (it->second.event != nullptr) spare_.push_back(it->second.event);
      fences_.erase(it);
    }
    if (wait_for != nullptr) {
      SY_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(copy_stream, wait_for, 0),
                              name_);
    }
    return absl::OkStatus();
  }

 private:
  struct Fence {
    cudaEvent_t event = nullptr;  // recorded at the last free
    bool fresh = false;           // allocated since, not uploaded into yet
    bool failed = false;          // the last free could not record
  };
  // Freed blocks never allocated again keep their fence; past this many
  // entries, those whose fence has passed are dropped (a new cudaMalloc
  // address each time would otherwise grow the map without bound). An
  // entry dropped means "wait for all compute", never less.
  static constexpr size_t kPruneAbove = 4096;
  static constexpr size_t kMaxSpare = 256;

  void Prune() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (auto it = fences_.begin(); it != fences_.end();) {
      auto here = it++;
      if (here->second.fresh) continue;
      cudaEvent_t event = here->second.event;
      if (event != nullptr) {
        const cudaError_t state = cudaEventQuery(event);
        if (state == cudaErrorNotReady) continue;
        if (state != cudaSuccess) cudaGetLastError();
        if (spare_.size() < kMaxSpare) {
          spare_.push_back(event);
        } else {
          cudaEventDestroy(event);
        }
      }
      fences_.erase(here);
    }
  }

  const int index_;
  const std::string name_;
  absl::Mutex mu_;
  cudaStream_t compute_ ABSL_GUARDED_BY(mu_) = nullptr;
  absl::flat_hash_map<void*, Fence> fences_ ABSL_GUARDED_BY(mu_);
  std::vector<cudaEvent_t> spare_ ABSL_GUARDED_BY(mu_);
};

KernelRegistry<CudaDevice>& CudaKernels() {
  // Leaked: kernels register during static initialization, in any order.
  static auto* registry = new KernelRegistry<CudaDevice>();
  return *registry;
}

KernelRegistry<CudaDevice>& CudaFusedKernels() {
  static auto* registry = new KernelRegistry<CudaDevice>();
  return *registry;
}

CudaDevice::CudaDevice(int index, const CudaOptions& options)
    : index_(index),
      device_(*Device::Create("cuda", index)),
      name_(device_.ToString()),
      options_(options),
      allocator_(std::make_shared<CachingAllocator>(
          std::make_unique<CudaMemorySource>(index, name_))),
      free_fences_(std::make_shared<FreeFences>(index, name_)) {}

CudaDevice::~CudaDevice() {
  // Only test-made registries destroy devices (the global one lives until
  // exit); errors here have no one to go to.
  {
    absl::MutexLock lock(&init_mu_);
    if (!initialized_ || !init_status_.ok()) return;
  }
  if (SetCurrent(index_) != cudaSuccess) return;
  cudaStreamSynchronize(stream_);
  cudaStreamSynchronize(copy_stream_);
  {
    absl::MutexLock lock(&library_mu_);
    if (cublaslt_ != nullptr) {
      if (auto api = LoadCublasLt(); api.ok()) (*api)->cublasLtDestroy(cublaslt_);
    }
    if (cudnn_ != nullptr) {
      if (auto api = LoadCudnn(); api.ok()) (*api)->cudnnDestroy(cudnn_);
    }
    if (workspace_ != nullptr) allocator_->Free(workspace_);
  }
  free_fences_->Stop();
  {
    absl::MutexLock lock(&staging_mu_);
    staging_.reset();
    for (cudaEvent_t event : {upload_done_, compute_done_, last_copy_.start,
                              last_copy_.end}) {
      if (event != nullptr) cudaEventDestroy(event);
    }
  }
  cudaStreamDestroy(copy_stream_);
  cudaStreamDestroy(stream_);
}

absl::Status CudaDevice::Initialize() {
  SY_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
                          name_);
  SY_CUDA_RETURN_IF_ERROR(
      cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking), name_);
  free_fences_->Start(stream_);
  return absl::OkStatus();
}

absl::Status CudaDevice::Activate() {
  SY_CUDA_RETURN_IF_ERROR(SetCurrent(index_), name_);
  absl::MutexLock lock(&init_mu_);
  if (!initialized_) {
    initialized_ = true;
    init_status_ = Initialize();
  }
  return init_status_;
}

DeviceInfo CudaDevice::Info() const {
  DeviceInfo info;
  info.device = device_;
  info.name = "NVIDIA GPU";
  if (SetCurrent(index_) != cudaSuccess) return info;
  cudaDeviceProp prop;
  cudaError_t error = cudaGetDeviceProperties(&prop, index_);
  if (error != cudaSuccess) {
    info.properties.push_back({"error", CudaStatus(error, "cudaGetDeviceProperties",
                                                   name_).ToString()});
    return info;
  }
  info.name = prop.name;
  info.total_memory_bytes = static_cast<int64_t>(prop.totalGlobalMem);
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
    info.free_memory_bytes = static_cast<int64_t>(free_bytes);
    info.total_memory_bytes = static_cast<int64_t>(total_bytes);
  } else {
    cudaGetLastError();
  }
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  info.properties.push_back(
      {"compute capability", absl::StrCat(prop.major, ".", prop.minor)});
  info.properties.push_back(
      {"multiprocessors", absl::StrCat(prop.multiProcessorCount)});
  info.properties.push_back({"driver", CudaVersionString(driver)});
  info.properties.push_back({"runtime", CudaVersionString(runtime)});
  info.properties.push_back(
      {"pci", absl::StrFormat("%04x:%02x:%02x.0", prop.pciDomainID,
                              prop.pciBusID, prop.pciDeviceID)});
  info.properties.push_back({"cuBLASLt", CublasLtDescription()});
  info.properties.push_back({"cuDNN", CudnnDescription()});
  info.properties.push_back(
      {"math", allow_tf32() ? "tf32 (allow_tf32=true)" : "fp32 (TF32 off)"});
  const AllocatorStats stats = allocator_->stats();
  info.properties.push_back(
      {"allocator", absl::StrCat("allocated ", FormatBytes(stats.allocated_bytes),
                                 ", reserved ", FormatBytes(stats.reserved_bytes),
                                 ", peak ", FormatBytes(stats.peak_allocated_bytes))});
  return info;
}

absl::StatusOr<std::shared_ptr<Buffer>> CudaDevice::Allocate(size_t bytes) {
  SY_RETURN_IF_ERROR(Activate());
  SY_ASSIGN_OR_RETURN(void* ptr, allocator_->Allocate(bytes));
  free_fences_->MarkFresh(ptr);
  std::shared_ptr<CachingAllocator> allocator = allocator_;
  std::shared_ptr<FreeFences> fences = free_fences_;
  return std::make_shared<Buffer>(*this, device_, ptr, bytes,
                                  [allocator, fences](void* p) {
                                    fences->Record(p);
                                    allocator->Free(p);
                                  });
}

absl::Status CudaDevice::CheckCopy(const Buffer& buffer, size_t bytes,
                                   const char* what) const {
  if (&buffer.owner() != this) {
    return absl::InvalidArgumentError(
        absl::StrCat(name_, ": the ", what, " buffer is on ", buffer.device().ToString(),
                     "'s allocator, not this device's"));
  }
  if (bytes > buffer.size_bytes()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "copy of ", bytes, " bytes does not fit a buffer of ",
        buffer.size_bytes(), " bytes"));
  }
  return absl::OkStatus();
}

void CudaDevice::NewCopyTiming(cudaEvent_t* start, cudaEvent_t* end) {
  *start = *end = nullptr;
  if (cudaEventCreate(start) != cudaSuccess || cudaEventCreate(end) != cudaSuccess) {
    cudaGetLastError();  // an untimed copy; not the next launch's error
    if (*start != nullptr) cudaEventDestroy(*start);
    *start = *end = nullptr;
  }
}

void CudaDevice::KeepCopyTiming(cudaEvent_t start, cudaEvent_t end) {
  if (last_copy_.start != nullptr) cudaEventDestroy(last_copy_.start);
  if (last_copy_.end != nullptr) cudaEventDestroy(last_copy_.end);
  ++last_copy_.copies;
  last_copy_.start = start;
  last_copy_.end = end;
}

CudaDevice::CopyTiming CudaDevice::TakeCopyTiming() {
  absl::MutexLock lock(&staging_mu_);
  CopyTiming taken = last_copy_;
  last_copy_.start = last_copy_.end = nullptr;
  return taken;
}

absl::Status CudaDevice::QueueUpload(const void* src, void* dst, size_t bytes,
                                     bool direct) {
  cudaEvent_t start = nullptr, end = nullptr;
  NewCopyTiming(&start, &end);
  absl::Status copied;
  PinnedStaging* staging = direct ? nullptr : LazyStaging(name_, staging_, staging_failed_);
  if (staging != nullptr) {
    copied = staging->ToDevice(src, dst, bytes, copy_stream_, start, end);
  } else {
    // From pageable memory the copy has read `src` when the call returns;
    // from page-locked memory the DMA reads it later, in stream order.
    if (start != nullptr) cudaEventRecord(start, copy_stream_);
    copied = CudaStatus(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, copy_stream_),
                        "cudaMemcpyAsync", name_);
    if (start != nullptr) cudaEventRecord(end, copy_stream_);
  }
  KeepCopyTiming(start, end);
  return copied;
}

// Uploads go on the copy stream, then the compute stream waits for them
// (cuda_device.h); before the DMA the copy stream waits for what compute
// may still do with the destination (FreeFences says when that is less
// than all queued compute).
absl::Status CudaDevice::CopyFromHost(const void* src, Buffer& dst,
                                      size_t bytes) {
  SY_RETURN_IF_ERROR(CheckCopy(dst, bytes, "destination"));
  if (bytes == 0) return absl::OkStatus();
  SY_RETURN_IF_ERROR(Activate());
  absl::MutexLock lock(&staging_mu_);
  if (upload_done_ == nullptr) {
    SY_CUDA_RETURN_IF_ERROR(
        cudaEventCreateWithFlags(&upload_done_, cudaEventDisableTiming), name_);
  }
  if (compute_done_ == nullptr) {
    SY_CUDA_RETURN_IF_ERROR(
        cudaEventCreateWithFlags(&compute_done_, cudaEventDisableTiming), name_);
  }
  SY_RETURN_IF_ERROR(
      free_fences_->OrderBefore(dst.data(), copy_stream_, compute_done_));
  // `src` is read when the call returns: never straight from it, even
  // page-locked, since the caller may change it then.
  const absl::Status copied = QueueUpload(src, dst.data(), bytes, /*direct=*/false);
  // Even after a failure: whatever DMA went out must precede later compute.
  // The copy's own error, if any, is the one to report.
  absl::Status ordered = CudaStatus(cudaEventRecord(upload_done_, copy_stream_),
                                    "cudaEventRecord", name_);
  if (ordered.ok()) {
    ordered = CudaStatus(cudaStreamWaitEvent(stream_, upload_done_, 0),
                         "cudaStreamWaitEvent", name_);
  }
  return copied.ok() ? ordered : copied;
}

// Downloads wait on the copy stream for an event recorded on the compute
// stream now, so they see every kernel queued before the call (all that
// wrote `src`), and DMA on the copy stream, so that their timing events are
// the copy's own. They return with the data in `dst`.
absl::Status CudaDevice::CopyToHost(const Buffer& src, void* dst, size_t bytes) {
  SY_RETURN_IF_ERROR(CheckCopy(src, bytes, "source"));
  if (bytes == 0) return absl::OkStatus();
  SY_RETURN_IF_ERROR(Activate());
  absl::MutexLock lock(&staging_mu_);
  if (compute_done_ == nullptr) {
    SY_CUDA_RETURN_IF_ERROR(
        cudaEventCreateWithFlags(&compute_done_, cudaEventDisableTiming), name_);
  }
  SY_CUDA_RETURN_IF_ERROR(cudaEventRecord(compute_done_, stream_), name_);
  SY_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(copy_stream_, compute_done_, 0),
                          name_);
  cudaEvent_t start = nullptr, end = nullptr;
  NewCopyTiming(&start, &end);
  absl::Status copied;
  if (PinnedStaging* staging = LazyStaging(name_, staging_, staging_failed_)) {
    copied = staging->ToHost(src.data(), dst, bytes, copy_stream_, start, end);
  } else {
    if (start != nullptr) cudaEventRecord(start, copy_stream_);
    copied = CudaStatus(
        cudaMemcpyAsync(dst, src.data(), bytes, cudaMemcpyDeviceToHost, copy_stream_),
        "cudaMemcpyAsync", name_);
    if (start != nullptr) cudaEventRecord(end, copy_stream_);
    if (copied.ok()) {
      copied = CudaStatus(cudaStreamSynchronize(copy_stream_),
                          "cudaStreamSynchronize", name_);
    }
  }
  KeepCopyTiming(start, end);
  return copied;
}

absl::StatusOr<std::shared_ptr<void>> CudaDevice::AllocateHostStaging(size_t bytes) {
  SY_RETURN_IF_ERROR(Activate());
  void* block = nullptr;
  if (cudaHostAlloc(&block, bytes == 0 ? 1 : bytes, cudaHostAllocPortable) != cudaSuccess) {
    cudaGetLastError();
    // A locked-memory limit: ordinary memory still works, through the
    // staging ring, only less asynchronously.
    return BackendDevice::AllocateHostStaging(bytes);
  }
  return std::shared_ptr<void>(block, [](void* p) { cudaFreeHost(p); });
}

// As CopyFromHost, but the compute stream is not made to wait: the caller
// orders its work after the returned event (WaitEvent), so an upload for
// the next batch runs beside this batch's kernels. From page-locked memory
// the DMA reads `src` straight and the call returns at once; from pageable
// memory it goes through the staging ring and returns once `src` is read.
absl::StatusOr<std::unique_ptr<DeviceEvent>> CudaDevice::CopyFromHostAsync(
    const void* src, Buffer& dst, size_t bytes) {
  SY_RETURN_IF_ERROR(CheckCopy(dst, bytes, "destination"));
  SY_RETURN_IF_ERROR(Activate());
  auto event = std::make_unique<CudaEvent>(index_, name_);
  absl::MutexLock lock(&staging_mu_);
  absl::Status copied;
  if (bytes > 0) {
    // A fresh block's fence only: the caller has ordered the rest.
    SY_RETURN_IF_ERROR(free_fences_->OrderBefore(dst.data(), copy_stream_,
                                                 /*compute_done=*/nullptr));
    copied = QueueUpload(src, dst.data(), bytes, /*direct=*/IsPageLocked(src));
  }
  // Recorded even after a failure, so that waiting on it covers whatever
  // DMA went out; the copy's own error is the one to report.
  const absl::Status recorded = event->Record(copy_stream_);
  SY_RETURN_IF_ERROR(copied);
  SY_RETURN_IF_ERROR(recorded);
  return std::unique_ptr<DeviceEvent>(std::move(event));
}

absl::StatusOr<std::unique_ptr<DeviceEvent>> CudaDevice::RecordEvent() {
  SY_RETURN_IF_ERROR(Activate());
  auto event = std::make_unique<CudaEvent>(index_, name_);
  SY_RETURN_IF_ERROR(event->Record(stream_));
  SY_RETURN_IF_ERROR(event->Record(copy_stream_));
  return std::unique_ptr<DeviceEvent>(std::move(event));
}

absl::Status CudaDevice::WaitEvent(DeviceEvent& event) {
  auto* ours = dynamic_cast<CudaEvent*>(&event);
  // Another device's event: the host waits for it, which orders later
  // work after it too.
  if (ours == nullptr || ours->index() != index_) return event.Synchronize();
  SY_RETURN_IF_ERROR(Activate());
  return ours->QueueWait(stream_);
}

absl::Status CudaDevice::Synchronize() {
  {
    absl::MutexLock lock(&init_mu_);
    if (!initialized_) return absl::OkStatus();  // nothing was ever queued
  }
  SY_RETURN_IF_ERROR(Activate());
  // The compute stream waits for every upload; the copy stream is synced
  // too so that nothing of this device is left in flight.
  SY_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(copy_stream_), name_);
  SY_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_), name_);
  return absl::OkStatus();
}

absl::Status CudaDevice::EnablePeerAccess(int peer) {
  {
    absl::MutexLock lock(&peer_mu_);
    if (!peers_checked_.insert(peer).second) return absl::OkStatus();
  }
  int can_access = 0;
  SY_CUDA_RETURN_IF_ERROR(cudaDeviceCanAccessPeer(&can_access, index_, peer),
                          name_);
  if (!can_access) return absl::OkStatus();  // the driver stages the copies
  SY_CUDA_RETURN_IF_ERROR(SetCurrent(index_), name_);
  cudaError_t error = cudaDeviceEnablePeerAccess(peer, 0);
  if (error == cudaErrorPeerAccessAlreadyEnabled) {
    cudaGetLastError();
    return absl::OkStatus();
  }
  return CudaStatus(error, "cudaDeviceEnablePeerAccess", name_);
}

absl::Status CudaDevice::CopyToDevice(const Buffer& src, BackendDevice& dst_device,
                                      Buffer& dst, size_t bytes) {
  auto* to = dynamic_cast<CudaDevice*>(&dst_device);
  if (to == nullptr) {
    // Another backend: core stages the copy through host memory.
    return absl::UnimplementedError(absl::StrCat(
        "no direct copy from ", name_, " to ", dst_device.device().ToString()));
  }
  SY_RETURN_IF_ERROR(CheckCopy(src, bytes, "source"));
  SY_RETURN_IF_ERROR(to->CheckCopy(dst, bytes, "destination"));
  if (bytes == 0) return absl::OkStatus();
  SY_RETURN_IF_ERROR(Activate());
  if (to == this) {
    SY_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst.data(), src.data(), bytes,
                                            cudaMemcpyDeviceToDevice, stream_),
                            name_);
    return absl::OkStatus();
  }
  SY_RETURN_IF_ERROR(to->Activate());
  // Peer access makes the copy go GPU to GPU directly (NVLink or PCIe);
  // without it cudaMemcpyPeerAsync is staged through host memory by the
  // driver. Both directions, so that either device's stream can copy.
  SY_RETURN_IF_ERROR(EnablePeerAccess(to->index()));
  SY_RETURN_IF_ERROR(to->EnablePeerAccess(index_));
  // Order: the copy waits for the destination's queued work (which may
  // still read `dst`), and the destination's later work waits for the copy.
  SY_ASSIGN_OR_RETURN(cudaEvent_t dst_ready,
                      RecordStreamEvent(to->index(), to->stream(), to->name()));
  SY_CUDA_RETURN_IF_ERROR(SetCurrent(index_), name_);
  cudaError_t waited = cudaStreamWaitEvent(stream_, dst_ready, 0);
  cudaEventDestroy(dst_ready);  // released once it has completed
  SY_RETURN_IF_ERROR(CudaStatus(waited, "cudaStreamWaitEvent", name_));
  SY_CUDA_RETURN_IF_ERROR(cudaMemcpyPeerAsync(dst.data(), to->index(), src.data(),
                                              index_, bytes, stream_),
                          name_);
  SY_ASSIGN_OR_RETURN(cudaEvent_t copied, RecordStreamEvent(index_, stream_, name_));
  SY_CUDA_RETURN_IF_ERROR(SetCurrent(to->index()), to->name());
  waited = cudaStreamWaitEvent(to->stream(), copied, 0);
  cudaEventDestroy(copied);
  return CudaStatus(waited, "cudaStreamWaitEvent", to->name());
}

absl::StatusOr<std::unique_ptr<DeviceClock>> CudaDevice::CreateClock() {
  SY_RETURN_IF_ERROR(Activate());
  return std::unique_ptr<DeviceClock>(std::make_unique<CudaClock>(*this));
}

absl::Status CudaDevice::Supports(const Node& node, const Graph& graph) const {
  return CudaKernels().Supports(node, graph, kBackendName);
}

absl::StatusOr<std::unique_ptr<Kernel>> CudaDevice::CreateKernel(
    const Node& node, const Graph& graph) {
  SY_RETURN_IF_ERROR(Supports(node, graph));
  SY_RETURN_IF_ERROR(Activate());
  return CudaKernels().Create(node, graph, *this, kBackendName);
}

std::vector<Partition> CudaDevice::ClaimPartitions(const Graph& graph) const {
  std::vector<Partition> partitions;
  for (const ReluFusion& fusion : FindReluFusions(graph, device_)) {
    const Node& producer = graph.node(fusion.producer);
    const std::string name = ReluFusionName(producer.op);
    const KernelRegistry<CudaDevice>::Entry* entry =
        CudaFusedKernels().Find(name, KernelDType(producer, graph));
    if (entry == nullptr) continue;
    // A library that is missing leaves the nodes to the unfused kernels
    // (whose Supports then says why).
    if (entry->supports && !entry->supports(producer, graph).ok()) continue;
    partitions.push_back(Partition{{fusion.producer, fusion.relu}, name});
  }
  return partitions;
}

absl::StatusOr<std::unique_ptr<Kernel>> CudaDevice::CreatePartitionKernel(
    const Partition& partition, const Graph& graph) {
  if (partition.nodes.size() != 2) {
    return absl::InternalError(
        absl::StrCat(name_, " claims only pairs of nodes, not partition '",
                     partition.name, "' of ", partition.nodes.size()));
  }
  const Node& producer = graph.node(partition.nodes[0]);
  const Node& relu = graph.node(partition.nodes[1]);
  const DType dtype = KernelDType(producer, graph);
  const KernelRegistry<CudaDevice>::Entry* entry =
      CudaFusedKernels().Find(partition.name, dtype);
  if (entry == nullptr) {
    return absl::UnimplementedError(absl::StrCat(
        "the cuda backend has no fused kernel for ", KernelKeyName(partition.name, dtype),
        " (", DescribeNode(producer), ")"));
  }
  // The fused kernel reads the producer's operands and writes the relu's
  // output: check that this is what core will hand it.
  if (PartitionInputs(graph, partition) != producer.inputs ||
      PartitionOutputs(graph, partition) != relu.outputs) {
    return absl::InternalError(absl::StrCat(
        "partition '", partition.name, "' on ", name_, " (", DescribeNode(producer),
        ") does not have the producer's operands as inputs and the relu's "
        "output as its output"));
  }
  if (entry->supports) SY_RETURN_IF_ERROR(entry->supports(producer, graph));
  SY_RETURN_IF_ERROR(Activate());
  return entry->create(producer, graph, *this);
}

absl::StatusOr<cublasLtHandle_t> CudaDevice::CublasLtHandle() {
  if (cublaslt_ != nullptr) return cublaslt_;
  SY_ASSIGN_OR_RETURN(const CublasLtApi* api, LoadCublasLt());
  SY_RETURN_IF_ERROR(Activate());
  SY_RETURN_IF_ERROR(
      CublasLtCheck(*api, api->cublasLtCreate(&cublaslt_), "cublasLtCreate", name_));
  return cublaslt_;
}

absl::StatusOr<cudnnHandle_t> CudaDevice::CudnnHandle() {
  if (cudnn_ != nullptr) return cudnn_;
  SY_ASSIGN_OR_RETURN(const CudnnApi* api, LoadCudnn());
  SY_RETURN_IF_ERROR(Activate());
  cudnnHandle_t handle = nullptr;
  SY_RETURN_IF_ERROR(CudnnCheck(*api, api->cudnnCreate(&handle), "cudnnCreate", name_));
  absl::Status bound =
      CudnnCheck(*api, api->cudnnSetStream(handle, stream_), "cudnnSetStream", name_);
  if (!bound.ok()) {
    api->cudnnDestroy(handle);
    return bound;
  }
  cudnn_ = handle;
  return cudnn_;
}

absl::StatusOr<void*> CudaDevice::Workspace(size_t bytes) {
  if (bytes <= workspace_bytes_) return workspace_;
  // The old block may still be in use by queued work; freed to the cache it
  // is reused only by compute queued after that, or by an upload that waits
  // for this fence.
  if (workspace_ != nullptr) {
    free_fences_->Record(workspace_);
    allocator_->Free(workspace_);
  }
  workspace_ = nullptr;
  workspace_bytes_ = 0;
  SY_ASSIGN_OR_RETURN(workspace_, allocator_->Allocate(bytes));
  workspace_bytes_ = bytes;
  return workspace_;
}

std::optional<ConvAlgorithm> CudaDevice::FindConvAlgorithm(const std::string& key) {
  absl::MutexLock lock(&conv_mu_);
  auto it = conv_algorithms_.find(key);
  if (it == conv_algorithms_.end()) return std::nullopt;
  return it->second;
}

void CudaDevice::StoreConvAlgorithm(const std::string& key,
                                    const ConvAlgorithm& algo) {
  absl::MutexLock lock(&conv_mu_);
  conv_algorithms_[key] = algo;
}

}  // namespace cuda
}  // namespace switchyard
