// matmul_integer on oneDNN: one int8 matmul primitive (uint8 or int8 a,
// int8 weights) for the form dynamically quantized models use: a [..., M,
// K] times a constant b [K, N] with zero point 0 (ONNX Runtime's quantizer
// writes symmetric int8 weights). a's batch folds into the rows of one 2-D
// product. a's zero point is an attribute when it is a constant, and read
// at run time (widened to int32 by a host step) when it is computed, as
// DynamicQuantizeLinear's is. With VNNI oneDNN sums in int32 exactly, so
// results equal cpu:0's bit for bit; without it the node stays on cpu:0
// (dnnl_support.h: CheckExactInt8Products).
//
// The int32 sums are the output, unless the group dequantizes them
// (dnnl_fusion.h): then the primitive writes the float32 sums times the
// scale (one, or one per column; constant or computed), plus the bias,
// through the eltwise, in post-ops: cast, mul, add and gelu in one pass
// over the product instead of four, rounded as the graph's ops round.

#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"
#include "core/tensor.h"

namespace switchyard {
namespace onednn {

using dnnl::memory;

namespace {

enum Operand { kA = 0, kB = 1, kAZeroPoint = 2, kBZeroPoint = 3 };

// Positions in a dequantizing group: matmul_integer, cast, mul, add.
enum GroupPosition { kScaleMul = 2, kBiasAdd = 3 };

bool IsConstant(const Graph& graph, ValueId id) {
  return graph.value(id).constant.has_value();
}

}  // namespace

absl::Status CheckMatmulInteger(const Node& node, const Graph& graph, const NodeShapes& shapes) {
  if (shapes.in[kA].rank() < 2 || shapes.in[kB].rank() != 2) {
    return Refuse(node, "it takes a of rank 2 or more times a 2-D b only");
  }
  SY_RETURN_IF_ERROR(CheckExactInt8Products(node));
  if (!IsConstant(graph, node.inputs[kB]) || !IsConstant(graph, node.inputs[kBZeroPoint])) {
    return Refuse(node, "its b and b's zero point must be graph constants (a layer's weights)");
  }
  const DType a = graph.value(node.inputs[kA]).dtype;
  if (graph.value(node.inputs[kB]).dtype != DType::kInt8 ||
      (a != DType::kUInt8 && a != DType::kInt8)) {
    return Refuse(node, "oneDNN's int8 matmuls take uint8 or int8 a and int8 b");
  }
  if (shapes.in[kAZeroPoint].num_elements() != 1) {
    return Refuse(node, "a's zero point must be one value (not one per row)");
  }
  absl::StatusOr<std::vector<float>> b_zp = graph.value(node.inputs[kBZeroPoint]).constant->ToVector();
  if (!b_zp.ok()) return Refuse(node, std::string(b_zp.status().message()));
  for (float zp : *b_zp) {
    if (zp != 0) {
      return Refuse(node, "b's zero point is not 0; oneDNN's int8 matmuls take symmetric weights");
    }
  }
  return absl::OkStatus();
}

namespace {

// The attribute of a dequantizing group's primitive: post-ops in the
// graph's order, the scale as a binary mul by [1, scale_count] (one factor,
// or one per column), the bias as a binary add of [1, n], then the
// eltwise. (oneDNN 2.6 has run-time output scales too, but takes them only
// on its slower gemm:jit matmul, not on the VNNI brgemm one.)
dnnl::primitive_attr DequantizingAttr(const FusionGroup& g, int64_t n, int64_t scale_count) {
  dnnl::primitive_attr attr = PrimitiveAttr();
  dnnl::post_ops po;
  po.append_binary(dnnl::algorithm::binary_mul, Plain({1, scale_count}));
  if (g.bias) {
    po.append_binary(dnnl::algorithm::binary_add, Plain({1, n}));
  }
  if (g.eltwise.has_value()) {
    AppendEltwise(po, *g.eltwise);
  }
  attr.set_post_ops(po);
  return attr;
}

}  // namespace

absl::Status LowerMatmulInteger(PartitionBuilder& b, const FusionGroup& g, const Node& node,
                                ValueId out) {
  const Graph& graph = b.graph();
  const Value& a = graph.value(node.inputs[kA]);
  const Dims a_dims = ToDims(*a.shape);
  const Dims w_dims = ToDims(*graph.value(node.inputs[kB]).shape);
  const int64_t k = a_dims.back();
  const int64_t rows = Product(a_dims) / k;
  const int64_t n = w_dims[1];
  const memory::data_type a_type = DnnlType(a.dtype);

  // A dequantizing group's scale: the mul's operand that is not the cast.
  ValueId scale = -1;
  int64_t scale_count = 0;
  dnnl::primitive_attr attr = PrimitiveAttr();
  if (g.dequantize) {
    const Node& mul = b.GroupNode(g, kScaleMul);
    const ValueId cast = b.GroupNode(g, 1).outputs[0];
    scale = mul.inputs[0] == cast ? mul.inputs[1] : mul.inputs[0];
    scale_count = graph.value(scale).shape->num_elements();
    attr = DequantizingAttr(g, n, scale_count);
  }
  const bool runtime_zp = !IsConstant(graph, node.inputs[kAZeroPoint]);
  int32_t constant_zp = 0;
  if (!runtime_zp) {
    SY_ASSIGN_OR_RETURN(std::vector<float> zp, b.ConstantValues(node.inputs[kAZeroPoint]));
    constant_zp = static_cast<int32_t>(zp[0]);
  }
  if (runtime_zp) {
    attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  } else if (constant_zp != 0) {
    attr.set_zero_points(DNNL_ARG_SRC, 0, {constant_zp});
  }
  const memory::desc src_md({rows, k}, a_type, Tag::ab);
  const memory::desc dst_md(
      {rows, n}, g.dequantize ? memory::data_type::f32 : memory::data_type::s32, Tag::ab);
  const dnnl::matmul::desc desc(src_md, memory::desc({k, n}, memory::data_type::s8, Tag::any),
                                dst_md);
  const dnnl::matmul::primitive_desc pd(desc, attr, b.engine());

  SY_ASSIGN_OR_RETURN(MemRef src, b.PlainOf(node.inputs[kA]));
  src.md = src_md;  // the same row-major bytes, batch folded into rows
  SY_ASSIGN_OR_RETURN(
      const MemRef weights,
      b.Owned(node.inputs[kB], Plain({k, n}, memory::data_type::s8), pd.weights_desc()));
  MemRef dst = b.NewBuffer(dst_md);
  std::vector<std::pair<int, MemRef>> args = {
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
  if (runtime_zp) {
    // The zero point as oneDNN reads it: one int32.
    SY_ASSIGN_OR_RETURN(const MemRef zp, b.PlainOf(node.inputs[kAZeroPoint]));
    const MemRef wide = b.NewBuffer(memory::desc({1}, memory::data_type::s32, Tag::a));
    const bool is_unsigned = graph.value(node.inputs[kAZeroPoint]).dtype == DType::kUInt8;
    b.AddHostStep(
        [is_unsigned](const std::unordered_map<int, memory>& bound) {
          const void* from = bound.at(DNNL_ARG_SRC).get_data_handle();
          const int32_t value = is_unsigned ? *static_cast<const uint8_t*>(from)
                                            : *static_cast<const int8_t*>(from);
          std::memcpy(bound.at(DNNL_ARG_DST).get_data_handle(), &value, sizeof(value));
        },
        {{DNNL_ARG_SRC, zp}, {DNNL_ARG_DST, wide}},
        absl::StrCat(node.name, ": zero point to int32"));
    args.push_back({DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, wide});
  }
  if (g.dequantize) {
    const Dims scale_dims = {1, scale_count};
    MemRef scales;
    if (IsConstant(graph, scale)) {
      SY_ASSIGN_OR_RETURN(scales, b.Owned(scale, Plain(scale_dims), Plain(scale_dims)));
    } else {
      SY_ASSIGN_OR_RETURN(scales, b.PlainOf(scale));
      scales.md = Plain(scale_dims);  // the same floats
    }
    args.push_back({DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, scales});
  }
  if (g.bias) {
    const ValueId bias = BiasOf(b.GroupNode(g, kBiasAdd), b.GroupNode(g, kScaleMul).outputs[0]);
    SY_ASSIGN_OR_RETURN(const MemRef bias_ref, b.Owned(bias, Plain({1, n}), Plain({1, n})));
    args.push_back({DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, bias_ref});
  }
  b.AddStep(dnnl::matmul(pd), std::move(args), pd.scratchpad_desc(), Describe(pd, node));
  dst.md = Plain(ToDims(*graph.value(out).shape), DnnlType(graph.value(out).dtype));
  b.Define(out, dst);
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
