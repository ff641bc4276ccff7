#include "backends/dnnl/dnnl_partition.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>
#include <optional>
#include <unordered_map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "ops/conv_attrs.h"
#include "ops/norm_attrs.h"
#include "ops/op_util.h"
#include "ops/pool_attrs.h"
#include "ops/softmax_attrs.h"
#include "oneapi/dnnl/dnnl_debug.h"

namespace switchyard {
namespace onednn {
namespace {

using dnnl::memory;
using Dims = memory::dims;
using Tag = memory::format_tag;
constexpr memory::data_type kF32 = memory::data_type::f32;

// ---------------------------------------------------------------------------
// Fusion groups: which consecutive nodes become one primitive.

struct Group {
  int first = 0;  // position in the partition's node list
  int count = 1;
  bool sum = false;   // conv2d + add: sum post-op
  bool relu = false;  // a relu folded into the group's primitive
};

int ReadCount(const Graph& graph, ValueId v) {
  int n = 0;
  for (const Node& node : graph.nodes()) {
    n += static_cast<int>(std::count(node.inputs.begin(), node.inputs.end(), v));
  }
  n += static_cast<int>(
      std::count(graph.outputs().begin(), graph.outputs().end(), v));
  return n;
}

// Whether node `next` is the one and only reader of `v` (read once): then
// nobody ever sees `v` and the two nodes may become one primitive.
bool OnlyFeeds(const Graph& graph, ValueId v, const Node& next) {
  return std::count(next.inputs.begin(), next.inputs.end(), v) == 1 &&
         ReadCount(graph, v) == 1;
}

std::vector<Group> PlanGroups(const Graph& graph,
                              const std::vector<NodeId>& nodes) {
  std::vector<Group> groups;
  const int n = static_cast<int>(nodes.size());
  for (int p = 0; p < n;) {
    Group g;
    g.first = p;
    const Node& head = graph.node(nodes[p]);
    ValueId made = head.outputs[0];
    int q = p + 1;
    if (head.op == "conv2d" && q < n) {
      const Node& next = graph.node(nodes[q]);
      if (next.op == "add" && OnlyFeeds(graph, made, next) &&
          *graph.value(next.inputs[0]).shape ==
              *graph.value(next.inputs[1]).shape) {
        g.sum = true;
        made = next.outputs[0];
        ++q;
      }
    }
    const bool relu_epilogue = head.op == "conv2d" || head.op == "linear" ||
                               head.op == "add" || head.op == "batch_norm";
    if (relu_epilogue && q < n) {
      const Node& next = graph.node(nodes[q]);
      if (next.op == "relu" && OnlyFeeds(graph, made, next)) {
        g.relu = true;
        ++q;
      }
    }
    g.count = q - p;
    groups.push_back(g);
    p = q;
  }
  return groups;
}

std::string GroupName(const Graph& graph, const std::vector<NodeId>& nodes,
                      const Group& g) {
  std::vector<std::string> ops;
  for (int i = 0; i < g.count; ++i) ops.push_back(graph.node(nodes[g.first + i]).op);
  return absl::StrJoin(ops, "+");
}

// ---------------------------------------------------------------------------
// Memory bookkeeping.

Dims ToDims(const Shape& shape) {
  return Dims(shape.dims().begin(), shape.dims().end());
}

Tag PlainTag(size_t rank) {
  switch (rank) {
    case 1: return Tag::a;
    case 2: return Tag::ab;
    case 3: return Tag::abc;
    case 4: return Tag::abcd;
    case 5: return Tag::abcde;
    default: return Tag::abcdef;
  }
}

memory::desc Plain(const Dims& dims) { return memory::desc(dims, kF32, PlainTag(dims.size())); }

// "1x16x8x8 strides 1024,64,8,1 blocks 8@1", for error messages.
std::string MdString(const memory::desc& md) {
  const dnnl_memory_desc_t& d = md.data;
  std::string out = absl::StrJoin(md.dims(), "x");
  if (d.format_kind != dnnl_blocked) {
    return absl::StrCat(out, " ", dnnl_fmt_kind2str(d.format_kind));
  }
  const dnnl_blocking_desc_t& b = d.format_desc.blocking;
  absl::StrAppend(&out, " strides ",
                  absl::StrJoin(b.strides, b.strides + d.ndims, ","));
  for (int i = 0; i < b.inner_nblks; ++i) {
    absl::StrAppend(&out, i == 0 ? " blocks " : ",", b.inner_blks[i], "@",
                    b.inner_idxs[i]);
  }
  return out;
}

bool IsPlain(const memory::desc& md) { return md == Plain(md.dims()); }

int64_t Product(const Dims& dims, size_t from = 0) {
  int64_t p = 1;
  for (size_t i = from; i < dims.size(); ++i) p *= dims[i];
  return p;
}

// Where the bytes of an argument live. Buffers are virtual until Finalize
// assigns them physical storage.
struct MemRef {
  enum class Kind { kBuffer, kInput, kOutput, kOwned };
  Kind kind = Kind::kBuffer;
  int index = -1;
  memory::desc md;
};

// A graph value inside the partition: its bytes (ref, whose md is the
// physical layout) and its logical shape, which differs from ref.md's dims
// after a flatten or reshape (the same row-major elements).
struct Val {
  MemRef ref;
  Dims logical;
};

struct Step {
  dnnl::primitive primitive;
  std::vector<std::pair<int, MemRef>> args;
  memory::desc scratchpad;  // zero size: none
  std::string what;
};

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};
using AlignedBlock = std::unique_ptr<void, AlignedFree>;

absl::StatusOr<AlignedBlock> AllocateAligned(size_t bytes) {
  // oneDNN's JIT kernels prefer 64-byte (cache line, AVX-512) alignment.
  const size_t rounded = std::max<size_t>(64, (bytes + 63) / 64 * 64);
  void* p = std::aligned_alloc(64, rounded);
  if (p == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the dnnl device could not allocate ", rounded,
        " bytes for a partition's intermediate values"));
  }
  return AlignedBlock(p);
}

// ---------------------------------------------------------------------------
// The kernel.

class PartitionKernel : public Kernel {
 public:
  struct Binding {
    bool output;
    int index;
    memory mem;
  };

  PartitionKernel(const BackendDevice& device, dnnl::engine engine,
                  int threads, size_t num_inputs, size_t num_outputs)
      : device_(device),
        engine_(std::move(engine)),
        stream_(engine_),
        threads_(threads),
        num_inputs_(num_inputs),
        num_outputs_(num_outputs) {}

  // Not reentrant: the edge memories and intermediate buffers are the
  // kernel's own. Runs of one plan are serialized (core/executable_plan.h).
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    if (inputs.size() != num_inputs_ || outputs.size() != num_outputs_) {
      return absl::InternalError(absl::StrCat(
          "a dnnl partition kernel takes ", num_inputs_, " inputs and ",
          num_outputs_, " outputs, got ", inputs.size(), " and ",
          outputs.size()));
    }
    for (const Binding& b : bindings_) {
      const Tensor* t = b.output ? outputs[b.index] : inputs[b.index];
      if (&t->backend_device() != &device_) {
        return absl::InternalError(absl::StrCat(
            "a dnnl partition kernel got a tensor on ", t->device().ToString(),
            ", not on its own ", device_.device().ToString()));
      }
      if (t->buffer()->size_bytes() < b.mem.get_desc().get_size()) {
        return absl::InternalError(absl::StrCat(
            "a dnnl partition kernel got a buffer of ", t->buffer()->size_bytes(),
            " bytes for a value of ", b.mem.get_desc().get_size()));
      }
      b.mem.set_data_handle(t->buffer()->data());
    }
    omp_set_num_threads(threads_);
    try {
      for (size_t i = 0; i < primitives_.size(); ++i) {
        primitives_[i].execute(stream_, args_[i]);
      }
      stream_.wait();
    } catch (const dnnl::error& e) {
      return absl::InternalError(
          absl::StrCat("oneDNN failed running a partition: ", e.what()));
    }
    return absl::OkStatus();
  }

  const BackendDevice& device_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  int threads_;
  size_t num_inputs_, num_outputs_;
  std::vector<dnnl::primitive> primitives_;
  std::vector<std::unordered_map<int, memory>> args_;
  std::vector<Binding> bindings_;
  std::vector<memory> owned_;         // weights, biases, statistics
  std::vector<AlignedBlock> blocks_;  // intermediate buffers, scratchpad
  std::vector<std::string> steps_;    // what each primitive is, in order
};

// ---------------------------------------------------------------------------
// The builder.

class Builder {
 public:
  Builder(const Graph& graph, const std::vector<NodeId>& nodes,
          const std::vector<ValueId>& inputs,
          const std::vector<ValueId>& outputs, const dnnl::engine& engine,
          const BackendDevice& device)
      : graph_(graph),
        nodes_(nodes),
        inputs_(inputs),
        outputs_(outputs),
        engine_(engine),
        stream_(engine),
        device_(device) {
    // The last position inside the partition that reads each value;
    // partition outputs stay alive to the end.
    for (int p = 0; p < static_cast<int>(nodes_.size()); ++p) {
      for (ValueId v : graph_.node(nodes_[p]).inputs) last_read_[v] = p;
    }
    for (ValueId v : outputs_) last_read_[v] = std::numeric_limits<int>::max();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> Build(int threads) {
    kernel_ = std::make_unique<PartitionKernel>(device_, engine_, threads,
                                                inputs_.size(), outputs_.size());
    for (const Group& g : PlanGroups(graph_, nodes_)) {
      const Node& head = graph_.node(nodes_[g.first]);
      const Node& last = graph_.node(nodes_[g.first + g.count - 1]);
      try {
        SY_RETURN_IF_ERROR(Lower(g, head, last));
      } catch (const std::exception& e) {  // dnnl::error, or a reorder's
        return absl::InternalError(absl::StrCat(
            "oneDNN could not create the primitive for ", DescribeNode(head),
            " (", GroupName(graph_, nodes_, g), "): ", e.what()));
      }
      // Partition outputs are written as soon as they exist.
      for (int i = 0; i < g.count; ++i) {
        for (ValueId v : graph_.node(nodes_[g.first + i]).outputs) {
          auto it = std::find(outputs_.begin(), outputs_.end(), v);
          if (it != outputs_.end()) {
            SY_RETURN_IF_ERROR(WriteOutput(v, static_cast<int>(it - outputs_.begin())));
          }
        }
      }
    }
    SY_RETURN_IF_ERROR(Finalize());
    return std::unique_ptr<Kernel>(std::move(kernel_));
  }

 private:
  // --- values ---------------------------------------------------------------

  absl::StatusOr<Val*> Get(ValueId id) {
    auto it = vals_.find(id);
    if (it != vals_.end()) return &it->second;
    auto in = std::find(inputs_.begin(), inputs_.end(), id);
    if (in == inputs_.end()) {
      return absl::InternalError(absl::StrCat(
          "value '", graph_.value(id).name,
          "' is neither made in the dnnl partition nor one of its inputs"));
    }
    const Dims dims = ToDims(*graph_.value(id).shape);
    Val v{MemRef{MemRef::Kind::kInput, static_cast<int>(in - inputs_.begin()),
                 Plain(dims)},
          dims};
    return &vals_.emplace(id, v).first->second;
  }

  MemRef NewBuffer(const memory::desc& md) {
    buffer_bytes_.push_back(md.get_size());
    return MemRef{MemRef::Kind::kBuffer,
                  static_cast<int>(buffer_bytes_.size()) - 1, md};
  }

  void Define(ValueId id, const MemRef& ref) {
    vals_[id] = Val{ref, ToDims(*graph_.value(id).shape)};
  }

  void AddReorder(const MemRef& from, const MemRef& to, const std::string& what) {
    std::optional<dnnl::reorder::primitive_desc> made;
    try {
      made.emplace(engine_, from.md, engine_, to.md, Attr());
    } catch (const dnnl::error& e) {
      throw std::runtime_error(absl::StrCat(e.what(), " (", what, ": ",
                                            MdString(from.md), " to ",
                                            MdString(to.md), ")"));
    }
    const dnnl::reorder::primitive_desc& pd = *made;
    AddStep(dnnl::reorder(pd), {{DNNL_ARG_SRC, from}, {DNNL_ARG_DST, to}},
            pd.scratchpad_desc(), what);
  }

  void AddStep(dnnl::primitive p, std::vector<std::pair<int, MemRef>> args,
               const memory::desc& scratchpad, std::string what) {
    scratch_bytes_ = std::max(scratch_bytes_, scratchpad.get_size());
    steps_.push_back({std::move(p), std::move(args), scratchpad, std::move(what)});
  }

  // The value with its logical dims in row-major order: an alias when its
  // bytes already are (any plain layout of the same elements), else a
  // reorder into a new buffer (memoized: several readers share it).
  absl::StatusOr<MemRef> PlainOf(ValueId id) {
    SY_ASSIGN_OR_RETURN(Val * v, Get(id));
    MemRef ref = v->ref;
    if (!IsPlain(ref.md)) {
      auto cached = plain_cache_.find(id);
      if (cached != plain_cache_.end()) {
        ref = cached->second;
      } else {
        MemRef to = NewBuffer(Plain(ref.md.dims()));
        AddReorder(ref, to, absl::StrCat("to plain: ", graph_.value(id).name));
        plain_cache_[id] = to;
        ref = to;
      }
    }
    ref.md = Plain(v->logical);
    return ref;
  }

  // The value in its own layout when that has its logical dims, else plain.
  absl::StatusOr<MemRef> Natural(ValueId id) {
    SY_ASSIGN_OR_RETURN(Val * v, Get(id));
    if (v->ref.md.dims() == v->logical) return v->ref;
    return PlainOf(id);
  }

  // The value in exactly the layout `md` (of its logical dims).
  absl::StatusOr<MemRef> As(ValueId id, const memory::desc& md) {
    SY_ASSIGN_OR_RETURN(MemRef ref, Natural(id));
    if (ref.md == md) return ref;
    for (const auto& [value, converted] : converted_) {
      if (value == id && converted.md == md) return converted;
    }
    MemRef to = NewBuffer(md);
    AddReorder(ref, to, absl::StrCat("reorder: ", graph_.value(id).name));
    converted_.push_back({id, to});
    return to;
  }

  // Whether the buffer holding value `id` may be overwritten at position
  // `pos`: an intermediate buffer whose every value (aliases included) is
  // read for the last time there.
  bool Reusable(ValueId id, int pos) {
    auto it = vals_.find(id);
    if (it == vals_.end() || it->second.ref.kind != MemRef::Kind::kBuffer) {
      return false;
    }
    const int buffer = it->second.ref.index;
    for (const auto& [value, val] : vals_) {
      if (val.ref.kind == MemRef::Kind::kBuffer && val.ref.index == buffer) {
        auto read = last_read_.find(value);
        if (read != last_read_.end() && read->second > pos) return false;
      }
    }
    return true;
  }

  // Whether `ref` is value `id`'s own storage (not a reordered copy).
  bool IsOwnBuffer(ValueId id, const MemRef& ref) const {
    auto it = vals_.find(id);
    return it != vals_.end() && it->second.ref.kind == ref.kind &&
           it->second.ref.index == ref.index;
  }

  int Position(const Node& node) const {
    return static_cast<int>(std::find(nodes_.begin(), nodes_.end(), node.id) -
                            nodes_.begin());
  }

  absl::StatusOr<const Tensor*> Constant(ValueId id) {
    const Value& v = graph_.value(id);
    if (!v.constant.has_value()) {
      return absl::InternalError(absl::StrCat("'", v.name, "' is not a constant"));
    }
    if (&v.constant->backend_device() != &device_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "parameter '", v.name, "' is on ", v.constant->device().ToString(),
          ", not on ", device_.device().ToString(),
          "; place the model's parameters on the dnnl device"));
    }
    return &*v.constant;
  }

  // A parameter copied into memory of layout `md`: reordered from its plain
  // layout `plain` (same elements) once, now.
  absl::StatusOr<MemRef> Owned(ValueId id, const memory::desc& plain,
                               const memory::desc& md) {
    SY_ASSIGN_OR_RETURN(const Tensor* t, Constant(id));
    memory user(plain, engine_, t->buffer()->data());
    memory mine(md, engine_);
    dnnl::reorder(user, mine).execute(stream_, user, mine);
    stream_.wait();
    kernel_->owned_.push_back(mine);
    return MemRef{MemRef::Kind::kOwned,
                  static_cast<int>(kernel_->owned_.size()) - 1, md};
  }

  // A fresh attribute each time: copies of a dnnl::primitive_attr share one
  // handle, so adding post-ops to a copy would change attr_ too.
  static dnnl::primitive_attr Attr(bool sum = false, bool relu = false) {
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (sum || relu) {
      dnnl::post_ops po;
      if (sum) po.append_sum(1.0f);
      if (relu) po.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
      attr.set_post_ops(po);
    }
    return attr;
  }

  // --- ops ------------------------------------------------------------------

  absl::Status Lower(const Group& g, const Node& head, const Node& last) {
    const ValueId out = last.outputs[0];
    const std::string& op = head.op;
    if (op == "conv2d") return Conv(g, head, out);
    if (op == "linear") return Linear(g, head, out);
    if (op == "add") return Add(g, head, out);
    if (op == "batch_norm") return BatchNorm(g, head, out);
    if (op == "relu") return Relu(head);
    if (op == "max_pool2d" || op == "avg_pool2d") return Pool(head);
    if (op == "adaptive_avg_pool2d") return AdaptivePool(head);
    if (op == "softmax") return Softmax(head);
    if (op == "flatten" || op == "reshape" || op == "dropout") {
      // The same row-major elements under another shape: no work.
      SY_ASSIGN_OR_RETURN(Val * v, Get(head.inputs[0]));
      vals_[head.outputs[0]] = Val{v->ref, ToDims(*graph_.value(head.outputs[0]).shape)};
      return absl::OkStatus();
    }
    return absl::InternalError(absl::StrCat("no lowering for op ", op));
  }

  absl::Status Conv(const Group& g, const Node& node, ValueId out) {
    SY_ASSIGN_OR_RETURN(Conv2dAttrs a, Conv2dAttrs::FromAttrMap(node.attrs));
    const Dims src = ToDims(*graph_.value(node.inputs[0]).shape);
    const Dims dst = ToDims(*graph_.value(node.outputs[0]).shape);
    const Dims w = ToDims(*graph_.value(node.inputs[1]).shape);
    const bool has_bias = node.inputs.size() > 2;
    Dims wdims = w;
    memory::desc wplain = Plain(w);
    if (a.groups > 1) {
      wdims = {a.groups, w[0] / a.groups, w[1], w[2], w[3]};
      wplain = memory::desc(wdims, kF32, Tag::goihw);
    }
    auto any = [](const Dims& d) { return memory::desc(d, kF32, Tag::any); };
    const Dims strides = {a.stride_h, a.stride_w};
    const Dims dilates = {a.dilation_h - 1, a.dilation_w - 1};
    const Dims pad_l = {a.pad_h, a.pad_w};
    const Dims pad_r = {a.pad_h, a.pad_w};
    const memory::desc bias_md =
        has_bias ? memory::desc({w[0]}, kF32, Tag::a) : memory::desc();
    dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference,
        dnnl::algorithm::convolution_direct, any(src), any(wdims), bias_md,
        any(dst), strides, dilates, pad_l, pad_r);
    dnnl::convolution_forward::primitive_desc pd(desc, Attr(g.sum, g.relu),
                                                 engine_);
    SY_ASSIGN_OR_RETURN(MemRef s, As(node.inputs[0], pd.src_desc()));
    SY_ASSIGN_OR_RETURN(MemRef wm,
                        Owned(node.inputs[1], wplain, pd.weights_desc()));
    MemRef d;
    if (g.sum) {
      // The residual becomes the destination's initial contents: its own
      // buffer when nothing reads it afterwards and the layout matches,
      // else a copy in the destination's layout.
      const Node& add = graph_.node(nodes_[g.first + 1]);
      const ValueId residual =
          add.inputs[0] == node.outputs[0] ? add.inputs[1] : add.inputs[0];
      SY_ASSIGN_OR_RETURN(MemRef r, Natural(residual));
      const bool is_source = r.kind == s.kind && r.index == s.index;
      if (r.md == pd.dst_desc() && !is_source && IsOwnBuffer(residual, r) &&
          Reusable(residual, g.first + 1)) {
        d = r;
      } else {
        d = NewBuffer(pd.dst_desc());
        AddReorder(r, d, absl::StrCat("residual: ", graph_.value(residual).name));
      }
    } else {
      d = NewBuffer(pd.dst_desc());
    }
    std::vector<std::pair<int, MemRef>> args = {
        {DNNL_ARG_SRC, s}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, d}};
    if (has_bias) {
      SY_ASSIGN_OR_RETURN(MemRef b, Owned(node.inputs[2], bias_md, bias_md));
      args.push_back({DNNL_ARG_BIAS, b});
    }
    AddStep(dnnl::convolution_forward(pd), std::move(args),
            pd.scratchpad_desc(), Describe(pd, node));
    Define(out, d);
    return absl::OkStatus();
  }

  absl::Status Linear(const Group& g, const Node& node, ValueId out) {
    const ValueId x = node.inputs[0];
    const Dims w = ToDims(*graph_.value(node.inputs[1]).shape);  // [out, in]
    const bool has_bias = node.inputs.size() > 2;
    const Dims ydims = ToDims(*graph_.value(node.outputs[0]).shape);
    const memory::desc bias_md =
        has_bias ? memory::desc({w[0]}, kF32, Tag::a) : memory::desc();
    SY_ASSIGN_OR_RETURN(Val * v, Get(x));
    std::optional<dnnl::inner_product_forward::primitive_desc> pd;
    MemRef s;
    memory::desc wplain;
    const Dims phys = v->ref.md.dims();
    // A flatten of NCHW into the linear: the inner product reads the 4-D
    // value in its own (blocked) layout, with the weights viewed as
    // [out, C, H, W], and the activation is never reordered.
    if (phys.size() == 4 && v->logical.size() == 2 && phys[0] == v->logical[0] &&
        !IsPlain(v->ref.md)) {
      const Dims w4 = {w[0], phys[1], phys[2], phys[3]};
      try {
        dnnl::inner_product_forward::desc desc(
            dnnl::prop_kind::forward_inference, v->ref.md,
            memory::desc(w4, kF32, Tag::any), bias_md,
            memory::desc({phys[0], w[0]}, kF32, Tag::any));
        pd.emplace(desc, Attr(false, g.relu), engine_);
        s = v->ref;
        wplain = Plain(w4);
      } catch (const dnnl::error&) {
        pd.reset();  // no implementation for that layout: plain below
      }
    }
    if (!pd) {
      SY_ASSIGN_OR_RETURN(s, PlainOf(x));
      const Dims rows = {Product(v->logical) / w[1], w[1]};
      s.md = Plain(rows);
      wplain = Plain(w);
      dnnl::inner_product_forward::desc desc(
          dnnl::prop_kind::forward_inference, s.md,
          memory::desc(w, kF32, Tag::any), bias_md,
          memory::desc({rows[0], w[0]}, kF32,
                       ydims.size() == 2 ? Tag::any : Tag::ab));
      pd.emplace(desc, Attr(false, g.relu), engine_);
    }
    SY_ASSIGN_OR_RETURN(MemRef wm, Owned(node.inputs[1], wplain, pd->weights_desc()));
    MemRef d = NewBuffer(pd->dst_desc());
    std::vector<std::pair<int, MemRef>> args = {
        {DNNL_ARG_SRC, s}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, d}};
    if (has_bias) {
      SY_ASSIGN_OR_RETURN(MemRef b, Owned(node.inputs[2], bias_md, bias_md));
      args.push_back({DNNL_ARG_BIAS, b});
    }
    AddStep(dnnl::inner_product_forward(*pd), std::move(args),
            pd->scratchpad_desc(), Describe(*pd, node));
    Define(out, d);
    return absl::OkStatus();
  }

  absl::Status Add(const Group& g, const Node& node, ValueId out) {
    SY_ASSIGN_OR_RETURN(MemRef a, Natural(node.inputs[0]));
    SY_ASSIGN_OR_RETURN(MemRef b, As(node.inputs[1], a.md));
    dnnl::binary::desc desc(dnnl::algorithm::binary_add, a.md, a.md, a.md);
    dnnl::binary::primitive_desc pd(desc, Attr(false, g.relu), engine_);
    // In place over the first operand when nothing reads it afterwards.
    const int pos = Position(node);
    MemRef d = IsOwnBuffer(node.inputs[0], a) && Reusable(node.inputs[0], pos) &&
                       node.inputs[0] != node.inputs[1]
                   ? a
                   : NewBuffer(a.md);
    AddStep(dnnl::binary(pd), {{DNNL_ARG_SRC_0, a}, {DNNL_ARG_SRC_1, b}, {DNNL_ARG_DST, d}},
            pd.scratchpad_desc(), Describe(pd, node));
    Define(out, d);
    return absl::OkStatus();
  }

  absl::Status BatchNorm(const Group& g, const Node& node, ValueId out) {
    SY_ASSIGN_OR_RETURN(BatchNormAttrs a, BatchNormAttrs::FromAttrMap(node.attrs));
    SY_ASSIGN_OR_RETURN(MemRef s, Natural(node.inputs[0]));
    auto flags = dnnl::normalization_flags::use_global_stats |
                 dnnl::normalization_flags::use_scale |
                 dnnl::normalization_flags::use_shift;
    if (g.relu) flags = flags | dnnl::normalization_flags::fuse_norm_relu;
    dnnl::batch_normalization_forward::desc desc(
        dnnl::prop_kind::forward_inference, s.md, static_cast<float>(a.epsilon),
        flags);
    dnnl::batch_normalization_forward::primitive_desc pd(desc, Attr(), engine_);
    const Dims c = {s.md.dims()[1]};
    const memory::desc vec(c, kF32, Tag::a);
    // Operands: input, weight (scale), bias (shift), running_mean, running_var.
    SY_ASSIGN_OR_RETURN(MemRef scale, Owned(node.inputs[1], vec, vec));
    SY_ASSIGN_OR_RETURN(MemRef shift, Owned(node.inputs[2], vec, vec));
    SY_ASSIGN_OR_RETURN(MemRef mean, Owned(node.inputs[3], vec, vec));
    SY_ASSIGN_OR_RETURN(MemRef var, Owned(node.inputs[4], vec, vec));
    MemRef d = NewBuffer(pd.dst_desc());
    AddStep(dnnl::batch_normalization_forward(pd),
            {{DNNL_ARG_SRC, s}, {DNNL_ARG_SCALE, scale}, {DNNL_ARG_SHIFT, shift},
             {DNNL_ARG_MEAN, mean}, {DNNL_ARG_VARIANCE, var}, {DNNL_ARG_DST, d}},
            pd.scratchpad_desc(), Describe(pd, node));
    Define(out, d);
    return absl::OkStatus();
  }

  absl::Status Relu(const Node& node) {
    SY_ASSIGN_OR_RETURN(MemRef s, Natural(node.inputs[0]));
    dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference,
                                     dnnl::algorithm::eltwise_relu, s.md, 0.f);
    dnnl::eltwise_forward::primitive_desc pd(desc, Attr(), engine_);
    MemRef d = IsOwnBuffer(node.inputs[0], s) && Reusable(node.inputs[0], Position(node))
                   ? s
                   : NewBuffer(s.md);
    AddStep(dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, d}},
            pd.scratchpad_desc(), Describe(pd, node));
    Define(node.outputs[0], d);
    return absl::OkStatus();
  }

  // Right padding that makes oneDNN's floor arithmetic give `out` windows
  // (PyTorch's and ONNX's ceil_mode output included), never less than the
  // padding asked for.
  static int64_t PadRight(int64_t in, int64_t out, int64_t kernel,
                          int64_t stride, int64_t dilation, int64_t pad_l,
                          int64_t pad_r) {
    const int64_t need =
        (out - 1) * stride + (kernel - 1) * dilation + 1 - in - pad_l;
    return std::max(pad_r, need);
  }

  absl::Status Pool(const Node& node) {
    const Dims in = ToDims(*graph_.value(node.inputs[0]).shape);
    const Dims outd = ToDims(*graph_.value(node.outputs[0]).shape);
    dnnl::algorithm alg;
    Dims kernel, strides, dil, pl, pr;
    if (node.op == "max_pool2d") {
      SY_ASSIGN_OR_RETURN(MaxPool2dAttrs a, MaxPool2dAttrs::FromAttrMap(node.attrs));
      alg = dnnl::algorithm::pooling_max;
      kernel = {a.kernel_h, a.kernel_w};
      strides = {a.stride_h, a.stride_w};
      dil = {a.dilation_h - 1, a.dilation_w - 1};
      pl = {a.pad_h, a.pad_w};
      pr = {PadRight(in[2], outd[2], a.kernel_h, a.stride_h, a.dilation_h, a.pad_h, a.pad_h),
            PadRight(in[3], outd[3], a.kernel_w, a.stride_w, a.dilation_w, a.pad_w, a.pad_w)};
    } else {
      SY_ASSIGN_OR_RETURN(AvgPool2dAttrs a, AvgPool2dAttrs::FromAttrMap(node.attrs));
      alg = a.count_include_pad ? dnnl::algorithm::pooling_avg_include_padding
                                : dnnl::algorithm::pooling_avg_exclude_padding;
      kernel = {a.kernel_h, a.kernel_w};
      strides = {a.stride_h, a.stride_w};
      dil = {0, 0};
      pl = {a.pad_top, a.pad_left};
      pr = {PadRight(in[2], outd[2], a.kernel_h, a.stride_h, 1, a.pad_top, a.pad_bottom),
            PadRight(in[3], outd[3], a.kernel_w, a.stride_w, 1, a.pad_left, a.pad_right)};
    }
    return PoolPrimitive(node, alg, kernel, strides, dil, pl, pr);
  }

  absl::Status PoolPrimitive(const Node& node, dnnl::algorithm alg,
                             const Dims& kernel, const Dims& strides,
                             const Dims& dil, const Dims& pl, const Dims& pr) {
    const Dims outd = ToDims(*graph_.value(node.outputs[0]).shape);
    SY_ASSIGN_OR_RETURN(MemRef s, Natural(node.inputs[0]));
    dnnl::pooling_v2_forward::desc desc(
        dnnl::prop_kind::forward_inference, alg, s.md,
        memory::desc(outd, kF32, Tag::any), strides, kernel, dil, pl, pr);
    dnnl::pooling_v2_forward::primitive_desc pd(desc, Attr(), engine_);
    MemRef d = NewBuffer(pd.dst_desc());
    AddStep(dnnl::pooling_v2_forward(pd), {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, d}},
            pd.scratchpad_desc(), Describe(pd, node));
    Define(node.outputs[0], d);
    return absl::OkStatus();
  }

  absl::Status AdaptivePool(const Node& node) {
    const Dims in = ToDims(*graph_.value(node.inputs[0]).shape);
    const Dims outd = ToDims(*graph_.value(node.outputs[0]).shape);
    if (in == outd) {
      // Every window is its own element (VGG's 7x7 from 7x7): no work.
      SY_ASSIGN_OR_RETURN(Val * v, Get(node.inputs[0]));
      vals_[node.outputs[0]] = Val{v->ref, outd};
      return absl::OkStatus();
    }
    if (in[2] % outd[2] == 0 && in[3] % outd[3] == 0) {
      const Dims k = {in[2] / outd[2], in[3] / outd[3]};
      return PoolPrimitive(node, dnnl::algorithm::pooling_avg_exclude_padding,
                           k, k, {0, 0}, {0, 0}, {0, 0});
    }
    // Output a whole multiple of the input: every window is one element,
    // which nearest resampling picks (oneDNN rounds (o + 0.5) * in / out -
    // 0.5, which lands on floor(o * in / out) for these ratios).
    SY_ASSIGN_OR_RETURN(MemRef s, Natural(node.inputs[0]));
    dnnl::resampling_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::resampling_nearest,
        s.md, memory::desc(outd, kF32, Tag::any));
    dnnl::resampling_forward::primitive_desc pd(desc, Attr(), engine_);
    MemRef d = NewBuffer(pd.dst_desc());
    AddStep(dnnl::resampling_forward(pd), {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, d}},
            pd.scratchpad_desc(), Describe(pd, node));
    Define(node.outputs[0], d);
    return absl::OkStatus();
  }

  absl::Status Softmax(const Node& node) {
    SY_ASSIGN_OR_RETURN(SoftmaxAttrs a, SoftmaxAttrs::FromAttrMap(node.attrs));
    SY_ASSIGN_OR_RETURN(MemRef s, PlainOf(node.inputs[0]));
    SY_ASSIGN_OR_RETURN(int axis,
                        ops_internal::WrapDim(a.dim, static_cast<int>(s.md.dims().size()), "dim"));
    dnnl::softmax_forward::desc desc(dnnl::prop_kind::forward_inference, s.md, axis);
    dnnl::softmax_forward::primitive_desc pd(desc, Attr(), engine_);
    MemRef d = NewBuffer(pd.dst_desc());
    AddStep(dnnl::softmax_forward(pd), {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, d}},
            pd.scratchpad_desc(), Describe(pd, node));
    Define(node.outputs[0], d);
    return absl::OkStatus();
  }

  absl::Status WriteOutput(ValueId id, int index) {
    SY_ASSIGN_OR_RETURN(Val * v, Get(id));
    // The output tensor is row-major in the logical shape: the same bytes
    // as row-major in the physical dims.
    MemRef to{MemRef::Kind::kOutput, index, Plain(v->ref.md.dims())};
    AddReorder(v->ref, to, absl::StrCat("output: ", graph_.value(id).name));
    return absl::OkStatus();
  }

  template <typename PD>
  static std::string Describe(const PD& pd, const Node& node) {
    return absl::StrCat(node.name, ": ", pd.impl_info_str());
  }

  // --- storage --------------------------------------------------------------

  // Gives every virtual buffer physical storage, sharing storage between
  // buffers whose step ranges do not overlap, then binds the arguments.
  absl::Status Finalize() {
    const int nb = static_cast<int>(buffer_bytes_.size());
    std::vector<int> first(nb, -1), last(nb, -1);
    for (int s = 0; s < static_cast<int>(steps_.size()); ++s) {
      for (const auto& [arg, ref] : steps_[s].args) {
        if (ref.kind != MemRef::Kind::kBuffer) continue;
        if (first[ref.index] < 0) first[ref.index] = s;
        last[ref.index] = s;
      }
    }
    std::vector<size_t> sizes;       // physical
    std::vector<int> assign(nb, -1);
    std::vector<int> free_list;
    for (int s = 0; s < static_cast<int>(steps_.size()); ++s) {
      for (int b = 0; b < nb; ++b) {
        if (first[b] != s) continue;
        // Best fit among free storage; else grow the largest free one.
        int best = -1, largest = -1;
        for (int f : free_list) {
          if (sizes[f] >= buffer_bytes_[b] && (best < 0 || sizes[f] < sizes[best])) {
            best = f;
          }
          if (largest < 0 || sizes[f] > sizes[largest]) largest = f;
        }
        if (best < 0) best = largest;
        if (best < 0) {
          sizes.push_back(buffer_bytes_[b]);
          best = static_cast<int>(sizes.size()) - 1;
        } else {
          sizes[best] = std::max(sizes[best], buffer_bytes_[b]);
          free_list.erase(std::find(free_list.begin(), free_list.end(), best));
        }
        assign[b] = best;
      }
      for (int b = 0; b < nb; ++b) {
        if (last[b] == s) free_list.push_back(assign[b]);
      }
    }
    std::vector<void*> storage;
    for (size_t bytes : sizes) {
      SY_ASSIGN_OR_RETURN(AlignedBlock block, AllocateAligned(bytes));
      storage.push_back(block.get());
      kernel_->blocks_.push_back(std::move(block));
    }
    void* scratch = nullptr;
    if (scratch_bytes_ > 0) {
      SY_ASSIGN_OR_RETURN(AlignedBlock block, AllocateAligned(scratch_bytes_));
      scratch = block.get();
      kernel_->blocks_.push_back(std::move(block));
    }
    for (Step& step : steps_) {
      std::unordered_map<int, memory> args;
      for (const auto& [arg, ref] : step.args) {
        switch (ref.kind) {
          case MemRef::Kind::kBuffer:
            args.emplace(arg, memory(ref.md, engine_, storage[assign[ref.index]]));
            break;
          case MemRef::Kind::kOwned: {
            memory owned = kernel_->owned_[ref.index];
            // The owned memory was made with this md; a view otherwise.
            args.emplace(arg, owned.get_desc() == ref.md
                                  ? owned
                                  : memory(ref.md, engine_, owned.get_data_handle()));
            break;
          }
          case MemRef::Kind::kInput:
          case MemRef::Kind::kOutput: {
            memory m(ref.md, engine_, DNNL_MEMORY_NONE);
            kernel_->bindings_.push_back(
                {ref.kind == MemRef::Kind::kOutput, ref.index, m});
            args.emplace(arg, m);
            break;
          }
        }
      }
      if (step.scratchpad.get_size() > 0) {
        args.emplace(DNNL_ARG_SCRATCHPAD, memory(step.scratchpad, engine_, scratch));
      }
      kernel_->primitives_.push_back(step.primitive);
      kernel_->steps_.push_back(step.what);
      kernel_->args_.push_back(std::move(args));
    }
    return absl::OkStatus();
  }

  const Graph& graph_;
  const std::vector<NodeId>& nodes_;
  const std::vector<ValueId>& inputs_;
  const std::vector<ValueId>& outputs_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  const BackendDevice& device_;
  std::unique_ptr<PartitionKernel> kernel_;

  std::map<ValueId, Val> vals_;
  std::map<ValueId, int> last_read_;
  std::map<ValueId, MemRef> plain_cache_;
  std::vector<std::pair<ValueId, MemRef>> converted_;
  std::vector<size_t> buffer_bytes_;
  std::vector<Step> steps_;
  size_t scratch_bytes_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Kernel>> BuildPartitionKernel(
    const Graph& graph, const std::vector<NodeId>& nodes,
    const std::vector<ValueId>& inputs, const std::vector<ValueId>& outputs,
    const dnnl::engine& engine, const BackendDevice& device,
    const PartitionOptions& options) {
  if (nodes.empty()) {
    return absl::InvalidArgumentError("a dnnl partition needs at least one node");
  }
  // Some primitives size their work split by the thread count at creation.
  omp_set_num_threads(options.threads);
  Builder builder(graph, nodes, inputs, outputs, engine, device);
  return builder.Build(options.threads);
}

std::vector<std::string> KernelSteps(const Kernel& kernel) {
  const auto* k = dynamic_cast<const PartitionKernel*>(&kernel);
  return k == nullptr ? std::vector<std::string>() : k->steps_;
}

std::string DescribePartition(const Graph& graph,
                              const std::vector<NodeId>& nodes) {
  // Counts of each fused group in order of first appearance.
  std::vector<std::pair<std::string, int>> counts;
  for (const Group& g : PlanGroups(graph, nodes)) {
    const std::string name = GroupName(graph, nodes, g);
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& c) { return c.first == name; });
    if (it == counts.end()) {
      counts.push_back({name, 1});
    } else {
      ++it->second;
    }
  }
  std::vector<std::string> parts;
  for (const auto& [name, n] : counts) {
    parts.push_back(n == 1 ? name : absl::StrCat(name, " x", n));
  }
  // One fused group ("conv2d+relu") is named like the cpu's partitions.
  if (counts.size() == 1 && counts[0].second == 1) return counts[0].first;
  return absl::StrCat("dnnl[", absl::StrJoin(parts, ", "), "]");
}

}  // namespace onednn
}  // namespace switchyard
