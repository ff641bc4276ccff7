#include "backends/dnnl/dnnl_device.h"

#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_partition.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/copy_op.h"
#include "core/format_bytes.h"
#include "core/graph.h"
#include "core/host_memory.h"
#include "core/host_memory_source.h"
#include "core/status_macros.h"
#include "core/partition.h"

namespace switchyard {
namespace onednn {
namespace {

const char* RuntimeName(unsigned runtime) {
  switch (runtime) {
    case DNNL_RUNTIME_OMP: return "OpenMP";
    case DNNL_RUNTIME_TBB: return "TBB";
    case DNNL_RUNTIME_SEQ: return "sequential";
    case DNNL_RUNTIME_THREADPOOL: return "threadpool";
    default: return "other";
  }
}

// 64-byte classes up to 1 MiB, 64 KiB classes above (little slack on
// activations of a few MiB), and at most 1 GiB of freed blocks kept: the
// CPU backend's policy (backends/cpu/cpu_device.cc).
CachingAllocatorOptions DnnlAllocatorOptions() {
  CachingAllocatorOptions options;
  options.small_rounding = 64;
  options.large_threshold = size_t{1} << 20;
  options.large_rounding = size_t{64} << 10;
  options.max_cached_bytes = int64_t{1024} << 20;
  return options;
}

}  // namespace

std::string EffectiveIsaName() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_mic: return "avx512_mic";
    case dnnl::cpu_isa::avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    case dnnl::cpu_isa::all: return "all";
    default: return "unknown";
  }
}

std::string VersionString() {
  const dnnl_version_t* v = dnnl_version();
  return absl::StrCat(v->major, ".", v->minor, ".", v->patch, " (",
                      RuntimeName(v->cpu_runtime), ")");
}

DnnlDevice::DnnlDevice(Device device, int threads)
    : device_(std::move(device)),
      engine_(dnnl::engine::kind::cpu, 0),
      threads_(threads),
      allocator_(std::make_shared<CachingAllocator>(
          std::make_unique<HostMemorySource>(device_.ToString(), 64),
          DnnlAllocatorOptions())) {}

DeviceInfo DnnlDevice::Info() const {
  DeviceInfo info;
  info.device = device_;
  info.name = absl::StrCat("oneDNN ", VersionString(), " on the host CPU, ISA ",
                           EffectiveIsaName(), " (chosen by oneDNN at run time)");
  const HostMemory host = ReadHostMemory();
  info.total_memory_bytes = host.total_bytes;
  info.free_memory_bytes = host.available_bytes;
  info.properties.push_back({"isa", EffectiveIsaName()});
  info.properties.push_back({"threads", absl::StrCat(threads_.load())});
  const AllocatorStats memory = allocator_->stats();
  info.properties.push_back(
      {"allocator", absl::StrCat("in use ", FormatBytes(memory.allocated_bytes),
                                 ", cached ", FormatBytes(memory.cached_bytes),
                                 ", peak ", FormatBytes(memory.peak_allocated_bytes))});
  return info;
}

absl::StatusOr<std::shared_ptr<Buffer>> DnnlDevice::Allocate(size_t bytes) {
  SY_ASSIGN_OR_RETURN(void* data, allocator_->Allocate(bytes));
  std::shared_ptr<CachingAllocator> allocator = allocator_;
  return std::make_shared<Buffer>(*this, device_, data, bytes,
                                  [allocator](void* p) { allocator->Free(p); });
}

absl::Status DnnlDevice::CopyFromHost(const void* src, Buffer& dst,
                                      size_t bytes) {
  if (absl::Status s = CheckBuffer(dst, bytes, "destination"); !s.ok()) {
    return s;
  }
  if (bytes > 0) std::memcpy(dst.data(), src, bytes);
  return absl::OkStatus();
}

absl::Status DnnlDevice::CopyToHost(const Buffer& src, void* dst,
                                    size_t bytes) {
  if (absl::Status s = CheckBuffer(src, bytes, "source"); !s.ok()) return s;
  if (bytes > 0) std::memcpy(dst, src.data(), bytes);
  return absl::OkStatus();
}

absl::Status DnnlDevice::Supports(const Node& node, const Graph& graph) const {
  return CheckNode(node, graph);
}

absl::StatusOr<std::unique_ptr<Kernel>> DnnlDevice::CreateKernel(
    const Node& node, const Graph& graph) {
  if (absl::Status s = CheckNode(node, graph); !s.ok()) return s;
  PartitionOptions options;
  options.threads = threads_.load();
  options.conv_algorithm = conv_algorithm_.load();
  options.silu = silu_.load();
  return BuildPartitionKernel(graph, {node.id}, node.inputs, node.outputs,
                              engine_, *this, prepared_weights_, workspaces_, options);
}

std::vector<Partition> DnnlDevice::ClaimPartitions(const Graph& graph) const {
  std::vector<Partition> partitions;
  std::vector<NodeId> run;
  auto close = [&] {
    if (!run.empty()) {
      partitions.push_back({run, DescribePartition(graph, run)});
      run.clear();
    }
  };
  for (const Node& node : graph.nodes()) {
    const bool mine = node.device == device_ && node.op != kCopyOp &&
                      CheckNode(node, graph).ok();
    if (mine) {
      run.push_back(node.id);
    } else {
      close();
    }
  }
  close();
  return partitions;
}

absl::StatusOr<std::unique_ptr<Kernel>> DnnlDevice::CreatePartitionKernel(
    const Partition& partition, const Graph& graph) {
  for (NodeId id : partition.nodes) {
    if (absl::Status s = CheckNode(graph.node(id), graph); !s.ok()) return s;
  }
  PartitionOptions options;
  options.threads = threads_.load();
  options.conv_algorithm = conv_algorithm_.load();
  options.silu = silu_.load();
  return BuildPartitionKernel(graph, partition.nodes,
                              PartitionInputs(graph, partition),
                              PartitionOutputs(graph, partition), engine_,
                              *this, prepared_weights_, workspaces_, options);
}

absl::Status DnnlDevice::CheckBuffer(const Buffer& buffer, size_t bytes,
                                     const char* role) const {
  if (&buffer.owner() != this) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the ", role, " buffer is on ", buffer.device().ToString(),
        buffer.device() == device_ ? " of another backend object" : "",
        ", not on this ", device_.ToString()));
  }
  if (bytes > buffer.size_bytes()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a copy of ", bytes, " bytes does not fit the ", role, " buffer of ",
        buffer.size_bytes(), " bytes on ", device_.ToString()));
  }
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
