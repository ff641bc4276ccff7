#ifndef SWITCHYARD_BACKENDS_DNNL_DNNL_OP_TABLE_H_
#define SWITCHYARD_BACKENDS_DNNL_DNNL_OP_TABLE_H_

// The oneDNN device's one table of ops (as ONNX Runtime's DNNL provider
// keeps one op-to-capability map): per op, what it checks beyond the
// common cases (dnnl_support.h), how it lowers onto primitives, and which
// post-ops it takes. Supports(), ClaimPartitions(), the fusion groups and
// the partition builder all read this table, so a claimed node is always
// one the builder can lower. Adding an op: its check and lowering in the
// file of its family (dnnl_conv.cc, dnnl_pool.cc, ...), declared in
// dnnl_lowering.h, and one row in dnnl_op_table.cc.
//
//   const DnnlOp* op = FindDnnlOp(node.op);
//   if (op == nullptr) ...;  // no primitive for it
//   SY_RETURN_IF_ERROR(op->supports(node, graph, shapes));

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "backends/dnnl/dnnl_builder.h"
#include "core/graph.h"

namespace switchyard {
namespace onednn {

// A node's operand shapes and its output shape, checked by the common
// cases (float32, rank 1 to 6, not empty).
struct NodeShapes {
  std::vector<Shape> in;
  Shape out;
};

// OK when the device runs `node` (which passed the common cases), or
// Unimplemented naming the node and why (dnnl_support.h: Refuse).
using DnnlCheck = absl::Status(const Node& node, const Graph& graph,
                               const NodeShapes& shapes);
// Lowers group `g`, whose head is `node` and whose last node writes `out`,
// through `b`.
using DnnlLowering = absl::Status(PartitionBuilder& b, const FusionGroup& g,
                                  const Node& node, ValueId out);

struct DnnlOp {
  const char* op;
  DnnlCheck* supports = nullptr;  // null: the common cases are all
  DnnlLowering* lower = nullptr;
  // A following add of a same-shape value becomes a sum post-op.
  bool sum_post_op = false;
  // A following unary elementwise node (relu, clip, sigmoid, tanh, gelu,
  // hard_swish, ...), or a SiLU pair (sigmoid and mul), becomes an eltwise
  // post-op of the primitive (dnnl_fusion.h).
  bool eltwise_post_op = false;
  // A following relu only becomes part of the primitive (batch
  // normalization's fuse_norm_relu: it takes no post-ops).
  bool norm_relu_post_op = false;
  // A following add of a constant along the last dim ([N] or [1, ..., N])
  // becomes the primitive's bias (a transformer's matmul + bias).
  bool bias_add = false;
  // Its operands and output may be of any dtype (8-bit quantized data): the
  // common cases check shapes only, its own check the dtypes.
  bool any_dtype = false;
  // How many outputs its lowering defines.
  int outputs = 1;
  // Its output may be a scalar (rank 0, a one-element tensor to oneDNN):
  // the binary ops, whose operands are then scalars too (a dynamically
  // quantized model's activation scale times its weight scale).
  bool scalar_output = false;
};

// The row of `op`; null when the device has no primitive for it.
const DnnlOp* FindDnnlOp(const std::string& op);

// The ops the device runs, sorted (for messages and docs).
const std::vector<std::string>& SupportedOps();

}  // namespace onednn
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_DNNL_DNNL_OP_TABLE_H_
