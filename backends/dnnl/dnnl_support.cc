#include "backends/dnnl/dnnl_support.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/dnnl/dnnl_op_table.h"
#include "core/dtype.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace switchyard {
namespace onednn {
namespace {

// oneDNN memory descriptors hold 1 to 12 dimensions; the ops here use at
// most 6, which keeps every reshape and reorder on well-trodden paths.
constexpr int kMaxRank = 6;

}  // namespace

absl::Status Refuse(const Node& node, const std::string& why) {
  return absl::UnimplementedError(
      absl::StrCat("the dnnl backend (oneDNN) cannot run ", DescribeNode(node),
                   ": ", why));
}

absl::Status CheckConstants(const Node& node, const Graph& graph, size_t first) {
  for (size_t i = first; i < node.inputs.size(); ++i) {
    const Value& v = graph.value(node.inputs[i]);
    if (!v.constant.has_value()) {
      return Refuse(node, absl::StrCat(
          "operand ", i, " ('", v.name, "') is computed, not a constant; "
          "oneDNN reorders parameters into its own layout once, when the "
          "kernel is created, so they must be graph constants"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckExactInt8Products(const Node& node) {
  // The ISA values are bit sets: 0x40 marks AVX-512 VNNI (and everything
  // above it), 0x400 AVX-VNNI.
  const unsigned isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  if ((isa & dnnl_cpu_isa_avx512_core_vnni & ~dnnl_cpu_isa_avx512_core) != 0 ||
      (isa & dnnl_cpu_isa_avx2_vnni & ~dnnl_cpu_isa_avx2) != 0) {
    return absl::OkStatus();
  }
  return Refuse(node,
                "oneDNN's int8 kernels on this CPU (no VNNI) add pairs of 8-bit products in "
                "16 bits, which saturates; without VNNI the node runs on the CPU backend");
}

absl::Status CheckNode(const Node& node, const Graph& graph) {
  const DnnlOp* op = FindDnnlOp(node.op);
  if (op == nullptr) {
    return absl::UnimplementedError(absl::StrCat(
        "the dnnl backend (oneDNN) has no primitive for op '", node.op,
        "' (node '", node.name, "'); it runs: ",
        absl::StrJoin(SupportedOps(), ", ")));
  }
  if (static_cast<int>(node.outputs.size()) != op->outputs) {
    return Refuse(node, absl::StrCat("it has ", node.outputs.size(), " outputs; the device's ",
                                     node.op, " makes ", op->outputs));
  }
  NodeShapes shapes;
  std::vector<ValueId> operands = node.inputs;
  operands.insert(operands.end(), node.outputs.begin(), node.outputs.end());
  for (size_t i = 0; i < operands.size(); ++i) {
    const Value& v = graph.value(operands[i]);
    const bool is_output = i >= node.inputs.size();
    const std::string what =
        is_output ? "its output" : absl::StrCat("operand ", i, " ('", v.name, "')");
    if (v.dtype != DType::kFloat32 && !op->any_dtype) {
      return Refuse(node, absl::StrCat(what, " is ", DTypeName(v.dtype),
                                       "; the oneDNN device runs float32 only"));
    }
    if (!v.shape.has_value()) {
      return Refuse(node, absl::StrCat(what, " has no shape yet"));
    }
    // A scalar operand (rank 0: 0.5 in x * 0.5) is a one-element tensor to
    // oneDNN (ToDims); an op that cannot take one refuses in its own check.
    // Host steps (the 8-bit ops' rows) and the binary ops write scalars too.
    const int min_rank = is_output && !op->any_dtype && !op->scalar_output ? 1 : 0;
    if (v.shape->rank() < min_rank || v.shape->rank() > kMaxRank) {
      return Refuse(node, absl::StrCat(what, " ", v.shape->ToString(),
                                       " has rank ", v.shape->rank(),
                                       "; the oneDNN device takes ", min_rank, " to ",
                                       kMaxRank));
    }
    if (v.shape->num_elements() == 0) {
      return Refuse(node, absl::StrCat(what, " ", v.shape->ToString(),
                                       " is empty"));
    }
    if (!is_output) {
      shapes.in.push_back(*v.shape);
    } else if (i == node.inputs.size()) {
      shapes.out = *v.shape;  // the first output's
    }
  }
  return op->supports == nullptr ? absl::OkStatus()
                                 : op->supports(node, graph, shapes);
}

}  // namespace onednn
}  // namespace switchyard
