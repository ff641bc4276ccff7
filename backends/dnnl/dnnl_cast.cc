// cast on oneDNN, for the casts that are exact: 8-bit and int32 integers to
// float32 or int32 (an int8 matmul's int32 sums on their way to the float
// scale that follows, in a dynamically quantized model), and float32 back
// to the 8-bit type it was cast from, through max pooling (the importer
// pools 8-bit data in float32: cast, max_pool2d, cast). One reorder into
// the same layout in the other data type. Other casts from float to
// integers (ONNX truncates, oneDNN's reorder rounds) stay on the CPU
// backend.

#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"

namespace switchyard {
namespace onednn {

namespace {

bool IsWidening(DType from, DType to) {
  const bool integer_from =
      from == DType::kUInt8 || from == DType::kInt8 || from == DType::kInt32;
  const bool wider_to = to == DType::kFloat32 || (to == DType::kInt32 && from != DType::kInt32);
  return integer_from && wider_to;
}

// Whether float32 value `v` holds whole numbers of 8-bit type `type`: it
// was cast from `type`, then at most max-pooled or reshaped.
bool HoldsIntegersOf(const Graph& graph, ValueId v, DType type) {
  for (int step = 0; step < 8; ++step) {
    const NodeId producer = graph.value(v).producer;
    if (producer < 0) return false;
    const Node& p = graph.node(producer);
    if (p.op == "cast") return graph.value(p.inputs[0]).dtype == type;
    if (p.op != "max_pool2d" && p.op != "reshape" && p.op != "flatten") return false;
    v = p.inputs[0];
  }
  return false;
}

}  // namespace

absl::Status CheckCast(const Node& node, const Graph& graph, const NodeShapes& /*shapes*/) {
  const DType from = graph.value(node.inputs[0]).dtype;
  const DType to = graph.value(node.outputs[0]).dtype;
  const bool back_to_eight_bit = from == DType::kFloat32 &&
                                 (to == DType::kUInt8 || to == DType::kInt8) &&
                                 HoldsIntegersOf(graph, node.inputs[0], to);
  if (!IsWidening(from, to) && !back_to_eight_bit) {
    return Refuse(node, absl::StrCat("it casts ", DTypeName(from), " to ", DTypeName(to),
                                     "; the oneDNN device casts 8-bit and int32 integers to "
                                     "float32 or int32 only (exact conversions)"));
  }
  return absl::OkStatus();
}

absl::Status LowerCast(PartitionBuilder& b, const FusionGroup& /*g*/, const Node& node,
                       ValueId out) {
  SY_ASSIGN_OR_RETURN(const MemRef src, b.Natural(node.inputs[0]));
  dnnl::memory::desc md = src.md;  // the same layout in the other dtype
  md.data.data_type = dnnl::memory::convert_to_c(DnnlType(b.graph().value(out).dtype));
  const MemRef dst = b.NewBuffer(md);
  b.AddReorder(src, dst, absl::StrCat(node.name, ": cast"));
  b.Define(out, dst);
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
