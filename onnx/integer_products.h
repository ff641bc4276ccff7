#ifndef SWITCHYARD_ONNX_INTEGER_PRODUCTS_H_
#define SWITCHYARD_ONNX_INTEGER_PRODUCTS_H_

// The integer products as the quantized converters emit them
// (onnx/convert_integer_ops.cc, the com.microsoft ops).

#include "absl/status/statusor.h"
#include "onnx/node_context.h"

namespace switchyard {
namespace onnx_import {

// Input `index`, the zero point of 8-bit input `data_index`, checked to
// have its dtype and as a scalar or vector (a [..., 1, N] one flattened);
// a scalar 0 of that dtype when absent.
absl::StatusOr<Val> ZeroPointInput(NodeContext& ctx, int index, int data_index,
                                   const char* name, const char* data_name);

// What turns conv_integer into qlinear_conv (ops/qlinear_conv.cc): an int32
// bias [M], the multiplier (float32 scalar or [M]) and the output's zero
// point (a uint8/int8 scalar: the output's dtype).
struct Requantization {
  Val bias = kNoVal;
  Val multiplier = kNoVal;
  Val output_zero_point = kNoVal;
};

// conv_integer of 8-bit x and w with their zero points, over the window the
// node's Conv attributes give (1-D as 2-D, asymmetric pads as an explicit
// pad with the input's zero point): an int32 [N, M, Ho, Wo] value; with
// `requantization`, qlinear_conv's 8-bit one.
absl::StatusOr<Val> EmitConvInteger(NodeContext& ctx, Val x, Val w, Val x_zp, Val w_zp,
                                    const Requantization* requantization = nullptr);

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_INTEGER_PRODUCTS_H_
