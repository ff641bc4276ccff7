#ifndef SWITCHYARD_BACKENDS_DNNL_DNNL_BUILDER_H_
#define SWITCHYARD_BACKENDS_DNNL_DNNL_BUILDER_H_

// The state of lowering one partition onto oneDNN primitives, shared by the
// per-op lowerings (dnnl_conv.cc, dnnl_pool.cc, ...; listed in
// dnnl_op_table.cc): where each graph value's bytes live and in which
// layout, reorders between layouts, parameters copied into the layouts the
// primitives chose, and the steps (primitive + arguments) in order. Build()
// gives the virtual buffers storage (sharing it between buffers whose
// lifetimes do not overlap) and makes the PartitionKernel.
//
//   absl::Status LowerUnary(PartitionBuilder& b, const FusionGroup& g,
//                           const Node& node, ValueId out) {
//     SY_ASSIGN_OR_RETURN(MemRef s, b.Natural(node.inputs[0]));
//     ... b.AddStep(dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, s}, ...});
//     b.Define(out, d);
//   }

#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_conv_algorithm.h"
#include "backends/dnnl/dnnl_fusion.h"
#include "backends/dnnl/dnnl_partition_kernel.h"
#include "backends/dnnl/dnnl_silu.h"
#include "core/backend.h"
#include "core/graph.h"
#include "core/prepared_weights.h"
#include "core/workspace_pool.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace switchyard {
namespace onednn {

using Dims = dnnl::memory::dims;
using Tag = dnnl::memory::format_tag;
inline constexpr dnnl::memory::data_type kF32 = dnnl::memory::data_type::f32;

// --- memory descriptors ------------------------------------------------------

// A scalar (rank 0) is [1].
Dims ToDims(const Shape& shape);
// Row-major `dims` of `type` (float32 unless said).
dnnl::memory::desc Plain(const Dims& dims, dnnl::memory::data_type type = kF32);
// oneDNN's data type of `dtype` (float32, int32, uint8, int8); undef for
// others.
dnnl::memory::data_type DnnlType(DType dtype);
bool IsPlain(const dnnl::memory::desc& md);
int64_t Product(const Dims& dims, size_t from = 0);
// "1x16x8x8 strides 1024,64,8,1 blocks 8@1", for error messages.
std::string MdString(const dnnl::memory::desc& md);

// The bias of a conv2d or linear `node` ([out] of weight [out, ...]): zero
// (no bias) when it has none.
dnnl::memory::desc BiasDesc(const Graph& graph, const Node& node);

// A fresh attribute each time (copies of a dnnl::primitive_attr share one
// handle, so adding post-ops to a copy would change the original): user
// scratchpad, and the post-ops of `group`: sum, then its eltwise (relu,
// clip, sigmoid, SiLU's swish, ...).
dnnl::primitive_attr PrimitiveAttr(const FusionGroup& group = FusionGroup());

// "features.0/conv2d: jit:avx2", a kernel step's description.
template <typename PD>
std::string Describe(const PD& pd, const Node& node) {
  return absl::StrCat(node.name, ": ", pd.impl_info_str());
}

// Where the bytes of an argument live. Buffers are virtual until Build
// assigns them physical storage.
struct MemRef {
  enum class Kind { kBuffer, kInput, kOutput, kOwned };
  Kind kind = Kind::kBuffer;
  int index = -1;
  dnnl::memory::desc md;
};

class PartitionBuilder {
 public:
  PartitionBuilder(const Graph& graph, const std::vector<NodeId>& nodes,
                   const std::vector<ValueId>& inputs,
                   const std::vector<ValueId>& outputs,
                   const dnnl::engine& engine, BackendDevice& device,
                   PreparedWeights& prepared_weights, WorkspacePool& workspaces,
                   DnnlConvAlgorithm conv_algorithm = DnnlConvAlgorithm::kAuto,
                   DnnlSilu silu = DnnlSilu::kAuto);

  // Lowers every group and makes the kernel.
  absl::StatusOr<std::unique_ptr<Kernel>> Build(int threads);

  const Graph& graph() const { return graph_; }
  // The backend option dnnl.conv_algorithm when the partition was built.
  DnnlConvAlgorithm conv_algorithm() const { return conv_algorithm_; }
  // The backend option dnnl.silu when the partition was built.
  DnnlSilu silu() const { return silu_; }
  const dnnl::engine& engine() const { return engine_; }
  // Node `i` of group `g` (0: its head).
  const Node& GroupNode(const FusionGroup& g, int i) const {
    return graph_.node(nodes_[g.first + i]);
  }

  // --- values ----------------------------------------------------------------

  // The value in its own layout when that has its logical dims, else plain.
  absl::StatusOr<MemRef> Natural(ValueId id);
  // The value with its logical dims in row-major order: an alias when its
  // bytes already are, else a reorder into a new buffer (memoized).
  absl::StatusOr<MemRef> PlainOf(ValueId id);
  // The value in exactly the layout `md` (of its logical dims).
  absl::StatusOr<MemRef> As(ValueId id, const dnnl::memory::desc& md);
  // A graph value inside the partition: its bytes (ref, whose md is the
  // physical layout) and its logical shape, which differs from ref.md's
  // dims after a flatten or reshape (the same row-major elements).
  struct Val {
    MemRef ref;
    Dims logical;
  };
  // Value `id` as made in the partition, or as one of its inputs (plain).
  absl::StatusOr<Val*> Get(ValueId id);

  // A new virtual buffer of layout `md`.
  MemRef NewBuffer(const dnnl::memory::desc& md);
  // Buffer `part` is stored `offset` bytes into buffer `whole` (which lives
  // as long as any of its parts): a concat's sources written in place of
  // its output. Only where CanPlaceInside(part).
  void PlaceInside(const MemRef& part, const MemRef& whole, size_t offset);
  // Whether `ref` is a whole buffer of exactly ref.md's size that is not
  // yet a part of another.
  bool CanPlaceInside(const MemRef& ref) const;
  // Value `id` lives in `ref`.
  void Define(ValueId id, const MemRef& ref);
  // Value `out` is value `in`'s bytes under out's shape (no work).
  absl::Status Alias(ValueId out, ValueId in);

  // Whether the buffer holding value `id` may be overwritten at partition
  // position `pos`: an intermediate buffer whose every value (aliases
  // included) is read for the last time there.
  bool Reusable(ValueId id, int pos) const;
  // Whether `ref` is value `id`'s own storage (not a reordered copy).
  bool IsOwnBuffer(ValueId id, const MemRef& ref) const;
  // `node`'s position in the partition.
  int Position(const Node& node) const;

  // A parameter (a graph constant on this device) copied into memory of
  // layout `md`: reordered from its plain layout `plain` now, or shared with
  // another kernel that reordered the same tensor into the same layout.
  absl::StatusOr<MemRef> Owned(ValueId id, const dnnl::memory::desc& plain,
                               const dnnl::memory::desc& md);
  // A parameter's values as floats, for host steps.
  absl::StatusOr<std::vector<float>> ConstantValues(ValueId id) const;

  // --- steps -----------------------------------------------------------------

  void AddStep(dnnl::primitive p, std::vector<std::pair<int, MemRef>> args,
               const dnnl::memory::desc& scratchpad, std::string what);
  // A step the kernel runs on the host (PartitionKernel::HostStep).
  void AddHostStep(PartitionKernel::HostStep step,
                   std::vector<std::pair<int, MemRef>> args, std::string what);
  // The OpenMP threads of the kernel being built (host steps use them).
  int threads() const { return threads_; }
  // While one lives, primitives are created for one OpenMP thread and the
  // steps added run on one: for work too small to share, where waking the
  // other threads costs more than it saves (an EfficientNet squeeze conv at
  // batch 1, 1152 -> 48 channels on one pixel: 12 us on 2 threads, 8 on 1).
  class OneThread {
   public:
    explicit OneThread(PartitionBuilder& b);
    ~OneThread();
    OneThread(const OneThread&) = delete;
    OneThread& operator=(const OneThread&) = delete;

   private:
    PartitionBuilder& b_;
  };
  // The step of a one-source primitive of kind `Primitive` made from `pd`
  // (src -> dst); then value `out` lives in `dst`.
  template <typename Primitive, typename PD>
  void AddSourceStep(const PD& pd, const Node& node, const MemRef& src,
                     const MemRef& dst, ValueId out) {
    AddStep(Primitive(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}},
            pd.scratchpad_desc(), Describe(pd, node));
    Define(out, dst);
  }
  // A one-source primitive of kind `Primitive` from its operation
  // descriptor, with the default attribute, writing node's output into a
  // new buffer of the layout the primitive chose.
  template <typename Primitive>
  void AddSourcePrimitive(const typename Primitive::desc& desc,
                          const Node& node, const MemRef& src) {
    typename Primitive::primitive_desc pd(desc, PrimitiveAttr(), engine_);
    AddSourceStep<Primitive>(pd, node, src, NewBuffer(pd.dst_desc()),
                             node.outputs[0]);
  }
  // The step of a primitive with weights: arguments src, weights and dst,
  // and the bias (node operand 2, copied now) when `node` has one; then
  // value `out` lives in `dst`.
  absl::Status AddWeightedStep(dnnl::primitive p, const Node& node,
                               const MemRef& src, const MemRef& weights,
                               const MemRef& dst, ValueId out,
                               const dnnl::memory::desc& scratchpad,
                               std::string what);
  // Throws (std::runtime_error with both layouts) when oneDNN cannot.
  void AddReorder(const MemRef& from, const MemRef& to, const std::string& what);

 private:
  struct Step {
    int threads = 0;            // 0: the kernel's
    dnnl::primitive primitive;  // empty for a host step
    PartitionKernel::HostStep host;
    std::vector<std::pair<int, MemRef>> args;
    dnnl::memory::desc scratchpad;  // zero size: none
    std::string what;
  };

  absl::StatusOr<const Tensor*> Constant(ValueId id) const;
  absl::Status Lower(const FusionGroup& g);
  absl::Status WriteOutput(ValueId id, int index);
  // Gives every virtual buffer physical storage and binds the arguments.
  absl::Status Finalize();

  const Graph& graph_;
  const std::vector<NodeId>& nodes_;
  const std::vector<ValueId>& inputs_;
  const std::vector<ValueId>& outputs_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  BackendDevice& device_;
  PreparedWeights& prepared_weights_;
  WorkspacePool& workspaces_;
  const DnnlConvAlgorithm conv_algorithm_;
  const DnnlSilu silu_;
  int threads_ = 1;  // of the kernel being built
  int step_threads_ = 0;  // of steps added now (OneThread)
  std::unique_ptr<PartitionKernel> kernel_;

  std::map<ValueId, Val> vals_;
  std::map<ValueId, int> last_read_;
  std::map<ValueId, MemRef> plain_cache_;
  std::vector<std::pair<ValueId, MemRef>> converted_;
  std::vector<size_t> buffer_bytes_;
  // For each buffer, the buffer it is stored inside (-1: none) and where.
  std::vector<std::pair<int, size_t>> inside_;
  std::vector<Step> steps_;
  size_t scratch_bytes_ = 0;
};

}  // namespace onednn
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_DNNL_DNNL_BUILDER_H_
