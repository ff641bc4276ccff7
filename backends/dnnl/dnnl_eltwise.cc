// The binary elementwise ops on oneDNN: add, sub, mul, div (binary
// primitive) with numpy broadcasting of one operand, in place over the
// full-shape operand when nothing reads it afterwards, taking an eltwise
// post-op (dnnl_fusion.h).
//
// oneDNN broadcasts src1 only (each of its dims 1 or src0's), so src0 is
// the operand with the output's shape: the first, or the second of a
// commutative op (mul(sigmoid [N,C,1,1], x [N,C,H,W]) is x * sigmoid).
// That squeeze-and-excitation scaling on a channels-last x is a host pass
// instead (dnnl_channel_scale.h): oneDNN 2.6 ran it on one thread at batch 1.
// A product of two scalars (a dynamically quantized model's activation
// scale times its weight scale, one per matmul) is one host multiplication:
// a primitive's call cost 20-35 us there, for one float. A broadcast that
// only oneDNN's reference kernel takes, even with its dims merged, is a host
// pass too (dnnl_broadcast_binary.h: Swin's window mask).

#include <optional>
#include <unordered_map>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_broadcast_binary.h"
#include "backends/dnnl/dnnl_channel_scale.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"

namespace switchyard {
namespace onednn {
namespace {

bool Commutative(const std::string& op) { return op == "add" || op == "mul"; }

dnnl::algorithm BinaryAlgorithm(const std::string& op) {
  if (op == "sub") return dnnl::algorithm::binary_sub;
  if (op == "mul") return dnnl::algorithm::binary_mul;
  if (op == "div") return dnnl::algorithm::binary_div;
  return dnnl::algorithm::binary_add;
}

// Which operand (0 or 1) becomes oneDNN's src0, the one of the output's
// shape; Unimplemented when oneDNN cannot broadcast the other.
absl::StatusOr<int> Src0Operand(const Node& node, const Shape& in0,
                                const Shape& in1, const Shape& out) {
  if (in0 == out) return 0;
  if (in1 == out) {
    if (Commutative(node.op)) return 1;
    return Refuse(node, absl::StrCat(
        "its first operand ", in0.ToString(), " broadcasts to ", in1.ToString(),
        "; oneDNN broadcasts only the second operand of a binary primitive, "
        "and ", node.op, " is not commutative"));
  }
  return Refuse(node, absl::StrCat(
      "neither operand (", in0.ToString(), ", ", in1.ToString(),
      ") has the output's shape ", out.ToString(),
      "; oneDNN broadcasts one operand against the other, not both"));
}

// `shape`'s dims with leading 1s up to `rank` (numpy's alignment); a scalar
// is [1, ..., 1].
Dims AlignedDims(const Shape& shape, size_t rank) {
  Dims dims(rank, 1);
  const size_t own = static_cast<size_t>(shape.rank());
  for (size_t i = 0; i < own; ++i) dims[rank - own + i] = shape.dim(static_cast<int>(i));
  return dims;
}

std::optional<dnnl::binary::primitive_desc> TryBinary(
    PartitionBuilder& b, const FusionGroup& g, dnnl::algorithm algorithm,
    const dnnl::memory::desc& src0, const dnnl::memory::desc& src1) {
  try {
    dnnl::binary::desc desc(algorithm, src0, src1, src0);
    return dnnl::binary::primitive_desc(desc, PrimitiveAttr(g), b.engine());
  } catch (const dnnl::error&) {
    return std::nullopt;  // no implementation for these layouts
  }
}

// The layout of `md` (plain, or channels blocked by 8 or 16, or channels
// last: what convolutions pick) for `dims` of the same rank; none for
// another layout.
std::optional<dnnl::memory::desc> SameLayout(const dnnl::memory::desc& md,
                                             const Dims& dims) {
  std::vector<Tag> tags;
  switch (dims.size()) {
    case 3: tags = {Tag::aBc8b, Tag::aBc16b, Tag::acb}; break;
    case 4: tags = {Tag::aBcd8b, Tag::aBcd16b, Tag::acdb}; break;
    case 5: tags = {Tag::aBcde8b, Tag::aBcde16b, Tag::acdeb}; break;
    default: return std::nullopt;
  }
  if (md.dims().size() != dims.size()) return std::nullopt;
  for (Tag tag : tags) {
    if (dnnl::memory::desc(md.dims(), kF32, tag) == md) {
      return dnnl::memory::desc(dims, kF32, tag);
    }
  }
  return std::nullopt;
}

// Row-major operands of a broadcast, as fewer dims. oneDNN's JIT binary
// kernels know a few broadcast patterns (per channel, scalar, ...); a
// [3,800,800] image minus a [3,1,1] mean ran its reference kernel at ~20 ns
// an element, while as [1,3,640000] minus [1,3,1] it is per channel. Drops
// 1s, merges neighbouring dims that src1 broadcasts alike and, when
// `leading_one`, puts a 1 in front so that the first group is oneDNN's
// channel dim. The same bytes in the same row-major order.
struct FlatOperands {
  Dims src0, src1;
};
FlatOperands FlattenBroadcast(const Dims& dims0, const Dims& dims1,
                              bool leading_one) {
  FlatOperands flat;
  if (leading_one) flat = {{1}, {1}};
  bool last_broadcast = false;
  for (size_t i = 0; i < dims0.size(); ++i) {
    if (dims0[i] == 1) continue;
    const bool broadcast = dims1[i] == 1;
    const bool opens_group = flat.src0.size() <= (leading_one ? 1u : 0u) ||
                             broadcast != last_broadcast;
    if (opens_group) {
      flat.src0.push_back(dims0[i]);
      flat.src1.push_back(broadcast ? 1 : dims0[i]);
    } else {
      flat.src0.back() *= dims0[i];
      if (!broadcast) flat.src1.back() *= dims0[i];
    }
    last_broadcast = broadcast;
  }
  if (flat.src0.empty()) flat = {{1}, {1}};
  return flat;
}

// src1 broadcast against `a` and the primitive taking both.
struct BroadcastOperand {
  MemRef ref;
  std::optional<dnnl::binary::primitive_desc> pd;
};

bool IsReference(const dnnl::binary::primitive_desc& pd) {
  return absl::StartsWith(pd.impl_info_str(), "ref");
}

// The broadcast operand `v1` (of aligned dims `dims`) in the first layout
// a jitted binary takes beside src0 `a`, trying: its own layout (a
// per-channel [N,C,1,1] in nChw8c beside an nChw8c src0: no reorder);
// row-major (the usual one for a plain src0); src0's own layout (a plain
// [C,1,1] constant beside nChw8c otherwise runs oneDNN's slow reference
// kernel), a constant reordered into it once, a computed value at each run
// (it is small: broadcast). Falls back to the first that works at all.
absl::StatusOr<BroadcastOperand> ChooseBroadcastOperand(
    PartitionBuilder& b, const FusionGroup& g, dnnl::algorithm algorithm,
    const MemRef& a, ValueId v1, const Dims& dims) {
  std::optional<BroadcastOperand> fallback;
  auto consider = [&](const MemRef& ref) -> std::optional<BroadcastOperand> {
    std::optional<dnnl::binary::primitive_desc> pd =
        TryBinary(b, g, algorithm, a.md, ref.md);
    if (!pd) return std::nullopt;
    if (!IsReference(*pd)) return BroadcastOperand{ref, pd};
    if (!fallback) fallback = BroadcastOperand{ref, pd};
    return std::nullopt;
  };
  SY_ASSIGN_OR_RETURN(PartitionBuilder::Val * v, b.Get(v1));
  if (v->ref.md.dims() == dims && !IsPlain(v->ref.md)) {
    if (auto chosen = consider(v->ref)) return *chosen;
  }
  SY_ASSIGN_OR_RETURN(MemRef plain, b.PlainOf(v1));
  plain.md = Plain(dims);  // the same row-major elements
  if (auto chosen = consider(plain)) return *chosen;
  const std::optional<dnnl::memory::desc> md = SameLayout(a.md, dims);
  if (md && *md != plain.md) {
    std::optional<dnnl::binary::primitive_desc> pd =
        TryBinary(b, g, algorithm, a.md, *md);
    if (pd && !IsReference(*pd)) {
      // A constant is reordered once, now (when it lives on this device).
      absl::StatusOr<MemRef> owned =
          b.graph().value(v1).constant.has_value()
              ? b.Owned(v1, Plain(dims), *md)
              : absl::StatusOr<MemRef>(absl::NotFoundError("computed"));
      if (owned.ok()) return BroadcastOperand{*owned, pd};
      MemRef ref = b.NewBuffer(*md);
      b.AddReorder(plain, ref, absl::StrCat("broadcast operand: ",
                                            b.graph().value(v1).name));
      return BroadcastOperand{ref, pd};
    }
  }
  if (fallback) return *fallback;
  return BroadcastOperand{plain, std::nullopt};
}

// x * s, x a channels-last [N, C, H, W] value and s [N or 1, C, 1, 1], as
// the host pass of dnnl_channel_scale.h; false (nothing added) for anything
// else.
absl::StatusOr<bool> LowerChannelScaleOnHost(PartitionBuilder& b, const FusionGroup& g,
                                             const Node& node, ValueId v0, ValueId v1,
                                             const MemRef& a, const Dims& src1_dims,
                                             ValueId out) {
  const Dims& dims = a.md.dims();
  if (node.op != "mul" || g.count != 1 || v0 == v1 || dims.size() != 4 ||
      a.md != dnnl::memory::desc(dims, kF32, Tag::acdb) ||
      (src1_dims[0] != 1 && src1_dims[0] != dims[0]) || src1_dims[1] != dims[1] ||
      src1_dims[2] != 1 || src1_dims[3] != 1) {
    return false;
  }
  SY_ASSIGN_OR_RETURN(const MemRef scale, RowMajorFactors(b, v1));
  const MemRef d = InPlaceOr(b, node, v0, a, a.md);
  ChannelScalePlan plan;
  plan.batch = dims[0];
  plan.channels = dims[1];
  plan.pixels = dims[2] * dims[3];
  plan.per_image = src1_dims[0] == dims[0];
  const int threads = b.threads();
  b.AddHostStep(
      [plan, threads](const std::unordered_map<int, dnnl::memory>& bound) {
        ChannelScale(plan, static_cast<const float*>(bound.at(DNNL_ARG_SRC_0).get_data_handle()),
                     static_cast<const float*>(bound.at(DNNL_ARG_SRC_1).get_data_handle()),
                     static_cast<float*>(bound.at(DNNL_ARG_DST).get_data_handle()), threads);
      },
      {{DNNL_ARG_SRC_0, a}, {DNNL_ARG_SRC_1, scale}, {DNNL_ARG_DST, d}},
      absl::StrCat(node.name, ": host channel scale"));
  b.Define(out, d);
  return true;
}

// Lowers `node` as one host arithmetic operation when its operands and
// output are one float each and it takes no post-op; false otherwise.
absl::StatusOr<bool> LowerScalarBinaryOnHost(PartitionBuilder& b, const FusionGroup& g,
                                             const Node& node, ValueId out) {
  const Graph& graph = b.graph();
  for (ValueId v : {node.inputs[0], node.inputs[1], out}) {
    if (graph.value(v).shape->num_elements() != 1) return false;
  }
  if (g.count != 1 || g.eltwise.has_value()) return false;
  SY_ASSIGN_OR_RETURN(MemRef x, b.PlainOf(node.inputs[0]));
  SY_ASSIGN_OR_RETURN(MemRef y, b.PlainOf(node.inputs[1]));
  const MemRef z = b.NewBuffer(Plain(ToDims(*graph.value(out).shape)));
  const dnnl::algorithm algorithm = BinaryAlgorithm(node.op);
  b.AddHostStep(
      [algorithm](const std::unordered_map<int, dnnl::memory>& bound) {
        const float u = *static_cast<const float*>(bound.at(DNNL_ARG_SRC_0).get_data_handle());
        const float v = *static_cast<const float*>(bound.at(DNNL_ARG_SRC_1).get_data_handle());
        float w = u + v;
        if (algorithm == dnnl::algorithm::binary_sub) w = u - v;
        if (algorithm == dnnl::algorithm::binary_mul) w = u * v;
        if (algorithm == dnnl::algorithm::binary_div) w = u / v;
        *static_cast<float*>(bound.at(DNNL_ARG_DST).get_data_handle()) = w;
      },
      {{DNNL_ARG_SRC_0, x}, {DNNL_ARG_SRC_1, y}, {DNNL_ARG_DST, z}},
      absl::StrCat(node.name, ": host scalar ", node.op));
  b.Define(out, z);
  return true;
}

// x op y on the host (dnnl_broadcast_binary.h) for row-major operands
// whose broadcast oneDNN runs only in its reference kernel, when the node
// takes no post-op; false (nothing added) otherwise.
absl::StatusOr<bool> LowerBroadcastBinaryOnHost(PartitionBuilder& b, const FusionGroup& g,
                                                const Node& node, ValueId v0, ValueId v1,
                                                const MemRef& a, const MemRef& other,
                                                ValueId out) {
  if (g.count != 1 || g.eltwise.has_value() || !IsPlain(a.md) || !IsPlain(other.md) ||
      a.md.data_type() != kF32 || other.md.data_type() != kF32) {
    return false;
  }
  const FlatOperands flat = FlattenBroadcast(a.md.dims(), other.md.dims(), false);
  BroadcastBinaryPlan plan;
  plan.dims = flat.src0;
  plan.y_dims = flat.src1;
  const dnnl::algorithm algorithm = BinaryAlgorithm(node.op);
  plan.op = algorithm == dnnl::algorithm::binary_sub   ? BroadcastOp::kSub
            : algorithm == dnnl::algorithm::binary_mul ? BroadcastOp::kMul
            : algorithm == dnnl::algorithm::binary_div ? BroadcastOp::kDiv
                                                       : BroadcastOp::kAdd;
  // x op x reads its operand twice: never in place.
  const MemRef d = v0 != v1 ? InPlaceOr(b, node, v0, a, a.md) : b.NewBuffer(a.md);
  const int threads = b.threads();
  b.AddHostStep(
      [plan, threads](const std::unordered_map<int, dnnl::memory>& bound) {
        BroadcastBinary(plan,
                        static_cast<const float*>(bound.at(DNNL_ARG_SRC_0).get_data_handle()),
                        static_cast<const float*>(bound.at(DNNL_ARG_SRC_1).get_data_handle()),
                        static_cast<float*>(bound.at(DNNL_ARG_DST).get_data_handle()), threads);
      },
      {{DNNL_ARG_SRC_0, a}, {DNNL_ARG_SRC_1, other}, {DNNL_ARG_DST, d}},
      absl::StrCat(node.name, ": host broadcast ", node.op));
  b.Define(out, d);
  return true;
}

}  // namespace

absl::StatusOr<MemRef> RowMajorFactors(PartitionBuilder& b, ValueId s) {
  // s's own bytes when they already are (a [N, C, 1, 1] convolution output
  // in channels-last or in whole channel blocks is), else a plain copy.
  SY_ASSIGN_OR_RETURN(PartitionBuilder::Val * sv, b.Get(s));
  const MemRef& own = sv->ref;
  const Dims& d = own.md.dims();
  const bool row_major =
      d.size() == 4 && d[2] == 1 && d[3] == 1 &&
      (IsPlain(own.md) || own.md == dnnl::memory::desc(d, kF32, Tag::acdb) ||
       (d[1] % 8 == 0 && own.md == dnnl::memory::desc(d, kF32, Tag::aBcd8b)) ||
       (d[1] % 16 == 0 && own.md == dnnl::memory::desc(d, kF32, Tag::aBcd16b)));
  if (row_major) return own;
  return b.PlainOf(s);
}

MemRef InPlaceOr(PartitionBuilder& b, const Node& node, ValueId operand,
                 const MemRef& ref, const dnnl::memory::desc& md) {
  const bool in_place = b.IsOwnBuffer(operand, ref) &&
                        b.Reusable(operand, b.Position(node)) && ref.md == md;
  return in_place ? ref : b.NewBuffer(md);
}

absl::Status CheckBinary(const Node& node, const Graph&, const NodeShapes& shapes) {
  if (shapes.in.size() != 2) {
    return Refuse(node, absl::StrCat("it has ", shapes.in.size(),
                                     " operands; a binary op takes 2"));
  }
  return Src0Operand(node, shapes.in[0], shapes.in[1], shapes.out).status();
}

absl::Status LowerBinary(PartitionBuilder& b, const FusionGroup& g,
                         const Node& node, ValueId out) {
  if (g.scaled_input) return LowerScaledConv2d(b, g, out);
  SY_ASSIGN_OR_RETURN(const bool scalar, LowerScalarBinaryOnHost(b, g, node, out));
  if (scalar) return absl::OkStatus();
  const Graph& graph = b.graph();
  const Shape& out_shape = *graph.value(node.outputs[0]).shape;
  SY_ASSIGN_OR_RETURN(
      const int first,
      Src0Operand(node, *graph.value(node.inputs[0]).shape,
                  *graph.value(node.inputs[1]).shape, out_shape));
  const ValueId v0 = node.inputs[first];
  const ValueId v1 = node.inputs[1 - first];
  const dnnl::algorithm algorithm = BinaryAlgorithm(node.op);
  SY_ASSIGN_OR_RETURN(MemRef a, b.Natural(v0));
  const Dims src1_dims = AlignedDims(*graph.value(v1).shape, out_shape.rank());
  SY_ASSIGN_OR_RETURN(const bool on_host,
                      LowerChannelScaleOnHost(b, g, node, v0, v1, a, src1_dims, out));
  if (on_host) return absl::OkStatus();
  MemRef other;
  std::optional<dnnl::binary::primitive_desc> pd;
  if (src1_dims == a.md.dims() &&
      graph.value(v1).shape->rank() < static_cast<int>(src1_dims.size())) {
    // The same elements with fewer dims (a Gemm's bias [10] beside its
    // [1, 10] output): its row-major bytes at src0's rank (a reorder
    // cannot change the rank).
    SY_ASSIGN_OR_RETURN(other, b.PlainOf(v1));
    other.md = Plain(src1_dims);
    pd = TryBinary(b, g, algorithm, a.md, other.md);
  } else if (src1_dims == a.md.dims()) {
    // Same shape: both in src0's layout.
    SY_ASSIGN_OR_RETURN(other, b.As(v1, a.md));
    pd = TryBinary(b, g, algorithm, a.md, other.md);
  } else {
    SY_ASSIGN_OR_RETURN(BroadcastOperand chosen,
                        ChooseBroadcastOperand(b, g, algorithm, a, v1, src1_dims));
    other = chosen.ref;
    pd = chosen.pd;
  }
  if (!IsPlain(a.md) && (!pd || IsReference(*pd))) {
    // src0's layout has no primitive or only oneDNN's slow reference one
    // (a transposed view such as attention's "bac" ran at 0.1 GFLOP/s):
    // row-major operands, and the output, get a JIT kernel.
    SY_ASSIGN_OR_RETURN(MemRef plain_a, b.PlainOf(v0));
    SY_ASSIGN_OR_RETURN(MemRef plain_other, b.PlainOf(v1));
    plain_other.md = Plain(src1_dims);  // the same bytes, aligned rank
    std::optional<dnnl::binary::primitive_desc> plain_pd =
        TryBinary(b, g, algorithm, plain_a.md, plain_other.md);
    if (plain_pd && (!pd || !IsReference(*plain_pd))) {
      a = plain_a;
      other = plain_other;
      pd = plain_pd;
    }
  }
  if (IsPlain(a.md) && IsPlain(other.md) && (!pd || IsReference(*pd))) {
    for (bool leading_one : {true, false}) {
      const FlatOperands flat =
          FlattenBroadcast(a.md.dims(), other.md.dims(), leading_one);
      std::optional<dnnl::binary::primitive_desc> flat_pd =
          TryBinary(b, g, algorithm, Plain(flat.src0), Plain(flat.src1));
      if (flat_pd && !IsReference(*flat_pd)) {
        a.md = Plain(flat.src0);  // the same bytes; out's logical dims stay
        other.md = Plain(flat.src1);
        pd = flat_pd;
        break;
      }
    }
  }
  if (!pd || IsReference(*pd)) {
    SY_ASSIGN_OR_RETURN(const bool host, LowerBroadcastBinaryOnHost(b, g, node, v0, v1, a,
                                                                    other, out));
    if (host) return absl::OkStatus();
  }
  if (!pd) {
    return absl::InternalError(absl::StrCat(
        "oneDNN has no binary primitive for ", DescribeNode(node), " on ",
        MdString(a.md), " and ", MdString(other.md),
        "; run the node on another device (--placement=auto)"));
  }
  // x op x reads its operand twice: never in place.
  const MemRef d = v0 != v1 ? InPlaceOr(b, node, v0, a, pd->dst_desc())
                            : b.NewBuffer(pd->dst_desc());
  b.AddStep(dnnl::binary(*pd),
            {{DNNL_ARG_SRC_0, a}, {DNNL_ARG_SRC_1, other}, {DNNL_ARG_DST, d}},
            pd->scratchpad_desc(), Describe(*pd, node));
  b.Define(out, d);
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
