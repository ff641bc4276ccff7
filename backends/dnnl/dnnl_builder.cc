#include "backends/dnnl/dnnl_builder.h"

#include <omp.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

#include "absl/strings/str_join.h"
#include "backends/dnnl/dnnl_op_table.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "oneapi/dnnl/dnnl_debug.h"

namespace switchyard {
namespace onednn {

using dnnl::memory;

namespace {

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

}  // namespace

Dims ToDims(const Shape& shape) {
  // oneDNN has no 0-D memory: a scalar is one element of rank 1.
  if (shape.rank() == 0) return {1};
  return Dims(shape.dims().begin(), shape.dims().end());
}

memory::desc Plain(const Dims& dims, memory::data_type type) {
  return memory::desc(dims, type, PlainTag(dims.size()));
}

memory::data_type DnnlType(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return memory::data_type::f32;
    case DType::kInt32: return memory::data_type::s32;
    case DType::kUInt8: return memory::data_type::u8;
    case DType::kInt8: return memory::data_type::s8;
    default: return memory::data_type::undef;
  }
}

bool IsPlain(const memory::desc& md) { return md == Plain(md.dims(), md.data_type()); }

int64_t Product(const Dims& dims, size_t from) {
  int64_t p = 1;
  for (size_t i = from; i < dims.size(); ++i) p *= dims[i];
  return p;
}

std::string MdString(const memory::desc& md) {
  const dnnl_memory_desc_t& d = md.data;
  std::string out = absl::StrJoin(md.dims(), "x");
  if (d.format_kind == dnnl_format_kind_wino) {
    // Winograd weights are laid out for one problem's blocking: the string
    // keys shared prepared weights, so every parameter is in it (a
    // detector's RPN head conv, one weight at 200x200 and at 100x100, got
    // the other size's blocking when this said only "wino").
    const dnnl_wino_desc_t& w = d.format_desc.wino_desc;
    return absl::StrCat(out, " wino format ", w.wino_format, " r ", w.r,
                        " alpha ", w.alpha, " ic ", w.ic, " oc ", w.oc,
                        " blocks ", w.ic_block, ",", w.oc_block, ",",
                        w.ic2_block, ",", w.oc2_block, " scale ", w.adj_scale,
                        " size ", w.size);
  }
  if (d.format_kind != dnnl_blocked) {
    // Another opaque layout: its description's bytes, hashed, so that two
    // strings are equal only for the same description.
    const std::string_view bytes(reinterpret_cast<const char*>(&d.format_desc),
                                 sizeof(d.format_desc));
    return absl::StrCat(out, " ", dnnl_fmt_kind2str(d.format_kind), " ",
                        std::hash<std::string_view>()(bytes));
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

memory::desc BiasDesc(const Graph& graph, const Node& node) {
  if (node.inputs.size() <= 2) return memory::desc();
  const Shape& w = *graph.value(node.inputs[1]).shape;
  return memory::desc({w.dim(0)}, kF32, Tag::a);
}

dnnl::primitive_attr PrimitiveAttr(const FusionGroup& group) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (group.sum || group.eltwise.has_value()) {
    dnnl::post_ops po;
    if (group.sum) po.append_sum(1.0f);
    if (group.eltwise.has_value()) AppendEltwise(po, *group.eltwise);
    attr.set_post_ops(po);
  }
  return attr;
}

PartitionBuilder::PartitionBuilder(const Graph& graph,
                                   const std::vector<NodeId>& nodes,
                                   const std::vector<ValueId>& inputs,
                                   const std::vector<ValueId>& outputs,
                                   const dnnl::engine& engine,
                                   BackendDevice& device,
                                   PreparedWeights& prepared_weights,
                                   WorkspacePool& workspaces,
                                   DnnlConvAlgorithm conv_algorithm,
                                   DnnlSilu silu)
    : graph_(graph),
      nodes_(nodes),
      inputs_(inputs),
      outputs_(outputs),
      engine_(engine),
      stream_(engine),
      device_(device),
      prepared_weights_(prepared_weights),
      workspaces_(workspaces),
      conv_algorithm_(conv_algorithm),
      silu_(silu) {
  // The last position inside the partition that reads each value;
  // partition outputs stay alive to the end.
  for (int p = 0; p < static_cast<int>(nodes_.size()); ++p) {
    for (ValueId v : graph_.node(nodes_[p]).inputs) last_read_[v] = p;
  }
  for (ValueId v : outputs_) last_read_[v] = std::numeric_limits<int>::max();
}

absl::StatusOr<std::unique_ptr<Kernel>> PartitionBuilder::Build(int threads) {
  threads_ = threads;
  kernel_ = std::make_unique<PartitionKernel>(device_, engine_, threads,
                                              inputs_.size(), outputs_.size());
  for (const FusionGroup& g : PlanFusionGroups(graph_, nodes_)) {
    const Node& head = GroupNode(g, 0);
    try {
      SY_RETURN_IF_ERROR(Lower(g));
    } catch (const std::exception& e) {  // dnnl::error, or a reorder's
      return absl::InternalError(absl::StrCat(
          "oneDNN could not create the primitive for ", DescribeNode(head),
          " (", FusionGroupName(graph_, nodes_, g), "): ", e.what()));
    }
    // Partition outputs are written as soon as they exist.
    for (int i = 0; i < g.count; ++i) {
      for (ValueId v : GroupNode(g, i).outputs) {
        auto it = std::find(outputs_.begin(), outputs_.end(), v);
        if (it != outputs_.end()) {
          SY_RETURN_IF_ERROR(
              WriteOutput(v, static_cast<int>(it - outputs_.begin())));
        }
      }
    }
  }
  SY_RETURN_IF_ERROR(Finalize());
  return std::unique_ptr<Kernel>(std::move(kernel_));
}

absl::Status PartitionBuilder::Lower(const FusionGroup& g) {
  const Node& head = GroupNode(g, 0);
  const DnnlOp* op = FindDnnlOp(head.op);
  if (op == nullptr || op->lower == nullptr) {
    return absl::InternalError(absl::StrCat("no lowering for op ", head.op));
  }
  return op->lower(*this, g, head, GroupNode(g, g.count - 1).outputs[0]);
}

// --- values ------------------------------------------------------------------

absl::StatusOr<PartitionBuilder::Val*> PartitionBuilder::Get(ValueId id) {
  auto it = vals_.find(id);
  if (it != vals_.end()) return &it->second;
  auto in = std::find(inputs_.begin(), inputs_.end(), id);
  if (in == inputs_.end()) {
    return absl::InternalError(absl::StrCat(
        "value '", graph_.value(id).name,
        "' is neither made in the dnnl partition nor one of its inputs"));
  }
  const Value& value = graph_.value(id);
  const Dims dims = ToDims(*value.shape);
  Val v{MemRef{MemRef::Kind::kInput, static_cast<int>(in - inputs_.begin()),
               Plain(dims, DnnlType(value.dtype))},
        dims};
  return &vals_.emplace(id, v).first->second;
}

MemRef PartitionBuilder::NewBuffer(const memory::desc& md) {
  buffer_bytes_.push_back(md.get_size());
  inside_.push_back({-1, 0});
  return MemRef{MemRef::Kind::kBuffer,
                static_cast<int>(buffer_bytes_.size()) - 1, md};
}

void PartitionBuilder::PlaceInside(const MemRef& part, const MemRef& whole, size_t offset) {
  inside_[part.index] = {whole.index, offset};
}

bool PartitionBuilder::CanPlaceInside(const MemRef& ref) const {
  return ref.kind == MemRef::Kind::kBuffer && inside_[ref.index].first < 0 &&
         buffer_bytes_[ref.index] == ref.md.get_size();
}

void PartitionBuilder::Define(ValueId id, const MemRef& ref) {
  vals_[id] = Val{ref, ToDims(*graph_.value(id).shape)};
}

absl::Status PartitionBuilder::Alias(ValueId out, ValueId in) {
  SY_ASSIGN_OR_RETURN(Val * v, Get(in));
  vals_[out] = Val{v->ref, ToDims(*graph_.value(out).shape)};
  return absl::OkStatus();
}

void PartitionBuilder::AddReorder(const MemRef& from, const MemRef& to,
                                  const std::string& what) {
  std::optional<dnnl::reorder::primitive_desc> made;
  try {
    made.emplace(engine_, from.md, engine_, to.md, PrimitiveAttr());
  } catch (const dnnl::error& e) {
    throw std::runtime_error(absl::StrCat(e.what(), " (", what, ": ",
                                          MdString(from.md), " to ",
                                          MdString(to.md), ")"));
  }
  const dnnl::reorder::primitive_desc& pd = *made;
  AddStep(dnnl::reorder(pd), {{DNNL_ARG_SRC, from}, {DNNL_ARG_DST, to}},
          pd.scratchpad_desc(), what);
}

void PartitionBuilder::AddStep(dnnl::primitive p,
                               std::vector<std::pair<int, MemRef>> args,
                               const memory::desc& scratchpad,
                               std::string what) {
  scratch_bytes_ = std::max(scratch_bytes_, scratchpad.get_size());
  if (step_threads_ == 1) what += " (1 thread)";
  steps_.push_back({step_threads_, std::move(p), nullptr, std::move(args), scratchpad,
                    std::move(what)});
}

PartitionBuilder::OneThread::OneThread(PartitionBuilder& b) : b_(b) {
  omp_set_num_threads(1);
  b_.step_threads_ = 1;
}

PartitionBuilder::OneThread::~OneThread() {
  omp_set_num_threads(b_.threads_);
  b_.step_threads_ = 0;
}

void PartitionBuilder::AddHostStep(PartitionKernel::HostStep step,
                                   std::vector<std::pair<int, MemRef>> args,
                                   std::string what) {
  steps_.push_back({0, dnnl::primitive(), std::move(step), std::move(args),
                    memory::desc(), std::move(what)});
}

absl::Status PartitionBuilder::AddWeightedStep(
    dnnl::primitive p, const Node& node, const MemRef& src,
    const MemRef& weights, const MemRef& dst, ValueId out,
    const memory::desc& scratchpad, std::string what) {
  std::vector<std::pair<int, MemRef>> args = {
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
  if (node.inputs.size() > 2) {
    const memory::desc bias_md = BiasDesc(graph_, node);
    SY_ASSIGN_OR_RETURN(MemRef bias, Owned(node.inputs[2], bias_md, bias_md));
    args.push_back({DNNL_ARG_BIAS, bias});
  }
  AddStep(std::move(p), std::move(args), scratchpad, std::move(what));
  Define(out, dst);
  return absl::OkStatus();
}

absl::StatusOr<MemRef> PartitionBuilder::PlainOf(ValueId id) {
  SY_ASSIGN_OR_RETURN(Val * v, Get(id));
  MemRef ref = v->ref;
  if (!IsPlain(ref.md)) {
    auto cached = plain_cache_.find(id);
    if (cached != plain_cache_.end()) {
      ref = cached->second;
    } else {
      MemRef to = NewBuffer(Plain(ref.md.dims(), ref.md.data_type()));
      AddReorder(ref, to, absl::StrCat("to plain: ", graph_.value(id).name));
      plain_cache_[id] = to;
      ref = to;
    }
  }
  ref.md = Plain(v->logical, ref.md.data_type());
  return ref;
}

absl::StatusOr<MemRef> PartitionBuilder::Natural(ValueId id) {
  SY_ASSIGN_OR_RETURN(Val * v, Get(id));
  if (v->ref.md.dims() == v->logical) return v->ref;
  return PlainOf(id);
}

absl::StatusOr<MemRef> PartitionBuilder::As(ValueId id, const memory::desc& md) {
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

bool PartitionBuilder::Reusable(ValueId id, int pos) const {
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

bool PartitionBuilder::IsOwnBuffer(ValueId id, const MemRef& ref) const {
  auto it = vals_.find(id);
  return it != vals_.end() && it->second.ref.kind == ref.kind &&
         it->second.ref.index == ref.index;
}

int PartitionBuilder::Position(const Node& node) const {
  return static_cast<int>(std::find(nodes_.begin(), nodes_.end(), node.id) -
                          nodes_.begin());
}

absl::StatusOr<const Tensor*> PartitionBuilder::Constant(ValueId id) const {
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
  // Its plain values may have been given back once a kernel had its own
  // copy (core/releasable_weights.h): read back before anyone reads them.
  if (v.residency != nullptr) SY_RETURN_IF_ERROR(v.residency->MakeResident());
  return &*v.constant;
}

absl::StatusOr<std::vector<float>> PartitionBuilder::ConstantValues(ValueId id) const {
  SY_ASSIGN_OR_RETURN(const Tensor* t, Constant(id));
  return t->ToVector();
}

absl::StatusOr<MemRef> PartitionBuilder::Owned(ValueId id,
                                               const memory::desc& plain,
                                               const memory::desc& md) {
  SY_ASSIGN_OR_RETURN(const Tensor* t, Constant(id));
  const std::function<memory()> reorder = [&] {
    memory user(plain, engine_, t->buffer()->data());
    memory mine(md, engine_);
    dnnl::reorder(user, mine).execute(stream_, user, mine);
    stream_.wait();
    return mine;
  };
  // The layout a primitive picks for its weights depends on the shapes it
  // was made for only through `md`, so the two layouts are the key.
  std::shared_ptr<const memory> owned = prepared_weights_.Get<memory>(
      *t, absl::StrCat("dnnl reorder ", MdString(plain), " to ", MdString(md)), reorder);
  // The kernel reads its own copy from now on: the plain one may go, unless
  // something else reads it.
  const Value& v = graph_.value(id);
  if (v.residency != nullptr) v.residency->ReleaseIfUnread();
  return MemRef{MemRef::Kind::kOwned, kernel_->AddOwned(std::move(owned)), md};
}

absl::Status PartitionBuilder::WriteOutput(ValueId id, int index) {
  SY_ASSIGN_OR_RETURN(Val * v, Get(id));
  // The output tensor is row-major in the logical shape: the same bytes
  // as row-major in the physical dims.
  MemRef to{MemRef::Kind::kOutput, index,
            Plain(v->ref.md.dims(), DnnlType(graph_.value(id).dtype))};
  AddReorder(v->ref, to, absl::StrCat("output: ", graph_.value(id).name));
  return absl::OkStatus();
}

// --- storage -----------------------------------------------------------------

// Shares storage between buffers whose step ranges do not overlap (best fit
// among free storage, else growing the largest free one).
absl::Status PartitionBuilder::Finalize() {
  const int nb = static_cast<int>(buffer_bytes_.size());
  // A part is stored in its outermost whole (a concat of concats nests),
  // `at` bytes in; only those wholes (roots) get storage, live from the
  // first use of any of their parts to the last.
  std::vector<int> root(nb);
  std::vector<size_t> at(nb, 0);
  for (int b = 0; b < nb; ++b) {
    root[b] = b;
    while (inside_[root[b]].first >= 0) {
      at[b] += inside_[root[b]].second;
      root[b] = inside_[root[b]].first;
    }
  }
  std::vector<int> first(nb, -1), last(nb, -1);
  for (int s = 0; s < static_cast<int>(steps_.size()); ++s) {
    for (const auto& [arg, ref] : steps_[s].args) {
      if (ref.kind != MemRef::Kind::kBuffer) continue;
      const int r = root[ref.index];
      if (first[r] < 0) first[r] = s;
      last[r] = s;
    }
  }
  std::vector<size_t> sizes;  // physical
  std::vector<int> assign(nb, -1);
  std::vector<int> free_list;
  for (int s = 0; s < static_cast<int>(steps_.size()); ++s) {
    for (int b = 0; b < nb; ++b) {
      if (first[b] != s) continue;
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
  // The storage and the scratchpad live in a workspace the kernel borrows
  // for each run (the device's pool): the kernels of every input size share
  // the memory of the largest, instead of each holding its own.
  const size_t scratch_index = sizes.size();
  sizes.push_back(scratch_bytes_);
  size_t workspace_bytes = 0;
  SY_ASSIGN_OR_RETURN(std::vector<size_t> offsets, LayOutWorkspace(sizes, &workspace_bytes));
  kernel_->SetWorkspace(&workspaces_, workspace_bytes);
  auto in_workspace = [&](const memory::desc& md, size_t storage, size_t offset = 0) {
    memory m(md, engine_, DNNL_MEMORY_NONE);
    kernel_->AddWorkspaceBinding({m, offsets[storage] + offset});
    return m;
  };
  for (Step& step : steps_) {
    std::unordered_map<int, memory> args;
    for (const auto& [arg, ref] : step.args) {
      switch (ref.kind) {
        case MemRef::Kind::kBuffer:
          args.emplace(arg, in_workspace(ref.md, assign[root[ref.index]], at[ref.index]));
          break;
        case MemRef::Kind::kOwned: {
          const memory& owned = kernel_->owned(ref.index);
          // The owned memory was made with this md; a view otherwise.
          args.emplace(arg, owned.get_desc() == ref.md
                                ? owned
                                : memory(ref.md, engine_, owned.get_data_handle()));
          break;
        }
        case MemRef::Kind::kInput:
        case MemRef::Kind::kOutput: {
          memory m(ref.md, engine_, DNNL_MEMORY_NONE);
          kernel_->AddBinding({ref.kind == MemRef::Kind::kOutput, ref.index, m});
          args.emplace(arg, m);
          break;
        }
      }
    }
    if (step.scratchpad.get_size() > 0) {
      args.emplace(DNNL_ARG_SCRATCHPAD, in_workspace(step.scratchpad, scratch_index));
    }
    if (step.host) {
      kernel_->AddHostStep(std::move(step.host), std::move(args), step.what);
    } else {
      kernel_->AddPrimitive(step.primitive, std::move(args), step.what, step.threads);
    }
  }
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
