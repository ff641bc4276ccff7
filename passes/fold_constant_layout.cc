// The fold-constant-layout optimisation pass. It has no header: nothing
// calls it by name; linking this library (//onnx does, whose importer
// writes these patterns) registers it, and Compile runs it.
//
// Folds transpose, reshape and flatten of graph constants into new
// constants at compile time: the ONNX importer writes a 3-D convolution as
// a 2-D one whose weight is the parameter transposed and reshaped, and
// without this every run recomputed it, and a backend that needs constant
// weights (dnnl:0 reorders them once into its layout) refused the conv:
// r3d_18's 3x3x3 convolutions all ran on cpu:0 between copies.
//
//   before: w2 = /conv/transpose(conv.weight), w = /conv/reshape(w2)
//           y  = /conv/conv2d(x, w, conv.bias)
//   after:  y  = /conv/conv2d(x, conv.weight+/conv/reshape, conv.bias)
//
// Chains fold from the first node on. The new constant lives on the
// source constant's device, in its dtype; the module's own parameters stay
// as they are. Runs before batch-norm folding (which then sees the folded
// weight as a constant) and placement.

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/graph.h"
#include "core/optimization_pass_registry.h"
#include "core/pass.h"
#include "core/status_macros.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace {

// `bytes` (row-major `in`, elements of `size` bytes) permuted by `perm`:
// output dim i is input dim perm[i].
std::vector<char> Permuted(const std::vector<char>& bytes, const Shape& in,
                           const std::vector<int64_t>& perm, size_t size) {
  const int rank = static_cast<int>(in.rank());
  std::vector<int64_t> in_strides(rank, 1), out_dims(rank), index(rank, 0);
  for (int d = rank - 2; d >= 0; --d) in_strides[d] = in_strides[d + 1] * in.dim(d + 1);
  for (int d = 0; d < rank; ++d) out_dims[d] = in.dim(perm[d]);
  std::vector<char> out(bytes.size());
  const int64_t count = in.num_elements();
  for (int64_t o = 0; o < count; ++o) {
    int64_t source = 0;
    for (int d = 0; d < rank; ++d) source += index[d] * in_strides[perm[d]];
    std::memcpy(out.data() + o * size, bytes.data() + source * size, size);
    for (int d = rank - 1; d >= 0; --d) {  // the next output index, row-major
      if (++index[d] < out_dims[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

// Every axis of `rank` once: what Permuted may index with.
bool IsPermutation(std::vector<int64_t> perm, int64_t rank) {
  if (static_cast<int64_t>(perm.size()) != rank) return false;
  std::sort(perm.begin(), perm.end());
  for (int64_t i = 0; i < rank; ++i) {
    if (perm[i] != i) return false;
  }
  return true;
}

bool IsLayoutOp(const std::string& op) {
  return op == "transpose" || op == "reshape" || op == "flatten";
}

// Folds node `id` when it is a layout op of one constant with a known
// output shape; returns whether it did.
absl::StatusOr<bool> TryFold(Graph& graph, NodeId id) {
  const Node& node = graph.node(id);
  if (!IsLayoutOp(node.op) || node.inputs.size() != 1 || node.outputs.size() != 1) {
    return false;
  }
  const Value& source = graph.value(node.inputs[0]);
  const Value& result = graph.value(node.outputs[0]);
  for (ValueId out : graph.outputs()) {
    if (out == node.outputs[0]) return false;  // a graph output stays computed
  }
  if (!source.constant.has_value() || !source.constant->defined() ||
      !result.shape.has_value() ||
      result.shape->num_elements() != source.constant->shape().num_elements()) {
    return false;
  }
  // Copies: adding a constant below reallocates the graph's values.
  const Tensor constant = *source.constant;
  const Shape out_shape = *result.shape;
  const std::string name = absl::StrCat(source.name, "+", node.name);
  SY_ASSIGN_OR_RETURN(std::vector<char> bytes, constant.ToBytes());
  if (node.op == "transpose") {
    absl::StatusOr<TransposeAttrs> a = TransposeAttrs::FromAttrMap(node.attrs);
    if (!a.ok() || !IsPermutation(a->perm, constant.shape().rank())) {
      return false;  // shape inference reports it
    }
    bytes = Permuted(bytes, constant.shape(), a->perm, DTypeSize(constant.dtype()));
  }
  SY_ASSIGN_OR_RETURN(Tensor folded,
                      Tensor::FromBytes(out_shape, constant.dtype(), bytes.data(),
                                        bytes.size(), constant.backend_device()));
  const ValueId replacement[] = {graph.AddConstant(name, folded)};
  SY_RETURN_IF_ERROR(graph.RemoveNode(id, replacement));
  return true;
}

class FoldConstantLayoutPass : public Pass {
 public:
  std::string name() const override { return "fold-constant-layout"; }
  absl::StatusOr<bool> Run(Graph& graph) override;
};

}  // namespace

absl::StatusOr<bool> FoldConstantLayoutPass::Run(Graph& graph) {
  bool changed = false;
  // Removing a node renumbers the ones after it: look at `id` again.
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes().size());) {
    SY_ASSIGN_OR_RETURN(bool folded, TryFold(graph, id));
    changed = changed || folded;
    if (!folded) ++id;
  }
  return changed;
}

// Before batch-norm folding (100), which needs the conv's weight constant.
SY_REGISTER_OPTIMIZATION_PASS(90, FoldConstantLayoutPass);

}  // namespace switchyard
