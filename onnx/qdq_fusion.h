#ifndef SWITCHYARD_ONNX_QDQ_FUSION_H_
#define SWITCHYARD_ONNX_QDQ_FUSION_H_

// A QDQ model (ONNX Runtime's quantizer, format QDQ) keeps float ops and
// marks where values are 8-bit: DequantizeLinear before a Conv's input,
// weight and bias, QuantizeLinear after its output. ONNX Runtime runs each
// such group as one QLinearConv (an Add's as one QLinearAdd); so does
// Switchyard. Before conversion,
//
//   x_q -> DQ --.
//   w_q -> DQ ---> Conv -> y -> Q -> y_q        (y read by that Q alone)
//   b_q -> DQ --/   (optional; int32, scale = x_scale * w_scale)
//
// becomes QLinearConv(x_q, x_scale, x_zp, w_q, w_scale, w_zp, y_scale,
// y_zp, b_q) -> y_q, converted as a QOperator model's node is (one
// qlinear_conv op). Only where that computes what ONNX Runtime does:
// constant scales and zero points (per-tensor for x and y; per-tensor or
// per output channel, axis 0, for w), 8-bit integer constant weights, an
// int32 bias whose scales are x_scale * w_scale, no blocked or float8 forms.
// Likewise DQ(a), DQ(b) -> Add -> Q (per-tensor constants, a, b and the
// output of one 8-bit type) becomes com.microsoft QLinearAdd, whose
// converter emits one qlinear_add op where a and b share a shape.
// A DequantizeLinear that nothing reads any more is removed. Anything else
// stays as it is and runs in float, as before.

#include <string>

#include "onnx/onnx_pb.h"

namespace switchyard {
namespace onnx_import {

// Rewrites `graph` (nodes sorted; its top level, not subgraphs) in place;
// `model_dir` is where external data lives. Returns how many groups became
// one node.
int FuseQdqGroups(onnx::GraphProto& graph, const std::string& model_dir);

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_QDQ_FUSION_H_
