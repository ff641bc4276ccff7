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

// dnnl_conv.cc: conv2d (convolution_forward, blocked layouts, sum and relu
// post-ops).
DnnlCheck CheckConv2d;
DnnlLowering LowerConv2d;

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

// dnnl_eltwise.cc: relu (eltwise_forward), add (binary, same shapes).
DnnlCheck CheckAdd;
DnnlLowering LowerAdd;
DnnlLowering LowerRelu;
DnnlCheck CheckClip;  // clip (eltwise clip_v2), min <= max
DnnlLowering LowerClip;

// dnnl_norm.cc: batch_norm (batch_normalization_forward with global
// statistics), softmax (softmax_forward on plain data).
DnnlCheck CheckBatchNorm;
DnnlLowering LowerBatchNorm;
DnnlLowering LowerSoftmax;

// dnnl_views.cc: flatten, reshape, dropout: the same row-major elements
// under another shape, no primitive.
DnnlLowering LowerView;

}  // namespace onednn
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_DNNL_DNNL_LOWERING_H_
