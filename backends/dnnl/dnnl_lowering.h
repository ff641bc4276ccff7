#ifndef SWITCHYARD_BACKENDS_DNNL_DNNL_LOWERING_H_
#define SWITCHYARD_BACKENDS_DNNL_DNNL_LOWERING_H_

// The per-op checks and lowerings the op table (dnnl_op_table.cc) lists,
// one family per file. Each check sees a node that passed the common cases
// (dnnl_support.h); each lowering sees a group whose nodes passed their
// checks.

#include "absl/status/status.h"
#include "backends/dnnl/dnnl_builder.h"
#include "backends/dnnl/dnnl_op_table.h"
#include "core/graph.h"

namespace switchyard {
namespace onednn {

// Declared through the table's function types (dnnl_op_table.h), e.g.
// `DnnlCheck CheckConv2d;` is
//   absl::Status CheckConv2d(const Node&, const Graph&, const NodeShapes&);

// dnnl_conv.cc: conv2d (convolution_forward, blocked layouts, sum and
// eltwise post-ops).
DnnlCheck CheckConv2d;
DnnlLowering LowerConv2d;
// Where a conv2d (node `conv` of group `g`) writes: a new buffer of `md`,
// or with a sum post-op (the add is node `add_index` of the group) the
// residual's own buffer when nothing reads it later, else a copy of it.
absl::StatusOr<MemRef> ConvDestination(PartitionBuilder& b, const FusionGroup& g,
                                       int add_index, const Node& conv, const MemRef& src,
                                       const dnnl::memory::desc& md);

// dnnl_qlinear_conv.cc: qlinear_conv (an int8 convolution_forward with
// output scales and zero points; int8 weights with zero points 0).
DnnlCheck CheckQLinearConv;
DnnlLowering LowerQLinearConv;

// dnnl_linear_quantization.cc: quantize_linear, dequantize_linear (a host
// pass in the source's layout).
DnnlCheck CheckLinearQuantization;
DnnlLowering LowerLinearQuantization;
// dynamic_quantize_linear (a host pass for the range, one to quantize).
DnnlLowering LowerDynamicQuantizeLinear;
// qlinear_add (a host pass, both operands in one layout).
DnnlCheck CheckQLinearAdd;
DnnlLowering LowerQLinearAdd;

// dnnl_scaled_conv.cc: mul(x, s [N or 1, C, 1, 1]) read by a 1x1 conv2d
// alone (FusionGroup::scaled_input): the conv's weights scaled, where s is
// shared by the batch and the weights are smaller than x; else the two
// lowered one by one.
absl::Status LowerScaledConv2d(PartitionBuilder& b, const FusionGroup& g, ValueId out);

// dnnl_linear.cc: linear (inner_product_forward, reading a flattened
// blocked NCHW value directly).
DnnlCheck CheckLinear;
DnnlLowering LowerLinear;

// dnnl_pool.cc: max_pool2d, avg_pool2d (pooling_v2_forward),
// adaptive_avg_pool2d (pooling or nearest resampling).
DnnlCheck CheckPool2d;
DnnlCheck CheckAvgPool2d;
DnnlCheck CheckAdaptiveAvgPool2d;
DnnlLowering LowerMaxPool2d;
DnnlLowering LowerAvgPool2d;
DnnlLowering LowerAdaptiveAvgPool2d;

// dnnl_eltwise.cc: add, sub, mul, div (binary, numpy broadcasting of one
// operand).
DnnlCheck CheckBinary;
DnnlLowering LowerBinary;
// `ref`, value `operand`'s own buffer, when `node` may overwrite it (nothing
// reads it later) and it has layout `md`; else a new buffer of `md`.
MemRef InPlaceOr(PartitionBuilder& b, const Node& node, ValueId operand,
                 const MemRef& ref, const dnnl::memory::desc& md);
// The bytes of `s`, one factor per image and channel ([N or 1, C, 1, 1]),
// as row-major [N or 1, C] floats: its own buffer when its layout already
// is that, else a plain copy.
absl::StatusOr<MemRef> RowMajorFactors(PartitionBuilder& b, ValueId s);

// dnnl_unary.cc: relu, clip, sigmoid, tanh, sqrt, abs, leaky_relu,
// hard_swish, gelu (eltwise_forward; dnnl_eltwise_algorithm.h).
DnnlCheck CheckUnary;
DnnlLowering LowerUnary;

// dnnl_norm.cc: batch_norm (batch_normalization_forward with global
// statistics), softmax (softmax_forward on plain data).
DnnlCheck CheckBatchNorm;
DnnlLowering LowerBatchNorm;
DnnlLowering LowerSoftmax;

// dnnl_matmul.cc: matmul (matmul primitive, ranks 2 to 6, batch
// broadcasting; constant weights reordered once into the primitive's
// layout).
DnnlCheck CheckMatmul;
DnnlLowering LowerMatmul;

// dnnl_matmul_integer.cc: matmul_integer of a [..., M, K] and a constant
// symmetric int8 b [K, N] (int8 matmul primitive, a's zero point constant
// or read at run time).
DnnlCheck CheckMatmulInteger;
DnnlLowering LowerMatmulInteger;

// dnnl_transpose.cc: transpose (a reorder into permuted strides).
DnnlCheck CheckTranspose;
DnnlLowering LowerTranspose;

// dnnl_layer_norm.cc: layer_norm (layer_normalization_forward over the
// collapsed trailing dims).
DnnlCheck CheckLayerNorm;
DnnlLowering LowerLayerNorm;

// dnnl_cast.cc: cast of 8-bit or int32 integers to float32 or int32 (a
// reorder into the same layout in the other data type).
DnnlCheck CheckCast;
DnnlLowering LowerCast;

// dnnl_concat.cc: concat (concat primitive; a layout shared by every source
// is kept).
DnnlCheck CheckConcat;
DnnlLowering LowerConcat;

// dnnl_slice.cc: slice with every step 1 (a reorder from a sub-memory).
DnnlCheck CheckSlice;
DnnlLowering LowerSlice;

// dnnl_pad.cc: pad whose pads are all zero (a view), or constant padding
// that only adds (a host step).
DnnlCheck CheckPad;
DnnlLowering LowerPad;

// dnnl_reduce.cc: reduce_mean over any axes (reduction primitive).
DnnlCheck CheckReduceMean;
DnnlLowering LowerReduceMean;

// dnnl_resize.cc: resize, nearest or linear over the spatial axes where
// oneDNN's half-pixel rule picks the same inputs (resampling primitive).
DnnlCheck CheckResize;
DnnlLowering LowerResize;

// dnnl_views.cc: flatten, reshape, dropout: the same row-major elements
// under another shape, no primitive.
DnnlLowering LowerView;

}  // namespace onednn
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_DNNL_DNNL_LOWERING_H_
