// cast on oneDNN, for the casts that are exact: 8-bit and int32 integers to
// float32 or int32 (an int8 matmul's int32 sums on their way to the float
// scale that follows, in a dynamically quantized model). One reorder into
// the same layout in the other data type. Casts that round or truncate
// (float to integer: ONNX truncates, oneDNN's reorder rounds) stay on the
// CPU backend.

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

}  // namespace

absl::Status CheckCast(const Node& node, const Graph& graph, const NodeShapes& /*shapes*/) {
  const DType from = graph.value(node.inputs[0]).dtype;
  const DType to = graph.value(node.outputs[0]).dtype;
  if (!IsWidening(from, to)) {
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
