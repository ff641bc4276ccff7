#ifndef SWITCHYARD_ONNX_QUANTIZATION_H_
#define SWITCHYARD_ONNX_QUANTIZATION_H_

// Linear quantization as the importer composes it from Switchyard's ops, for
// QuantizeLinear, DequantizeLinear and every QLinear* and *Integer op:
//
//   q = saturate(round_half_even(x / scale) + zero_point)
//   x = (q - zero_point) * scale
//
// in float32 (the precision ONNX Runtime's CPU kernels use for float and
// float16 alike); for the float8 types, as ONNX Runtime does, q = float8(x /
// scale) and x = float(q) * scale, their zero points 0. A node's scale and zero point are read once into
// QuantParams, shaped to broadcast against the data (per-tensor, per-axis
// or blocked) and checked: scales known at import must be positive and
// finite, zero points must have the quantized dtype and the scale's shape.

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "onnx/node_context.h"

namespace switchyard {
namespace onnx_import {

// The dtypes QuantizeLinear makes and DequantizeLinear reads (besides
// int32, which DequantizeLinear also takes): uint8, int8, uint16, int16,
// uint4, int4 and the four float8 types.
bool IsQuantizedDType(DType dtype);

struct QuantParams {
  Val scale = kNoVal;       // float32, broadcasts against the data
  Val zero_point = kNoVal;  // int32, broadcasts against the data
  DType type = DType::kUInt8;  // the quantized dtype
  DType scale_type = DType::kFloat32;  // the scale's dtype in the model
  // To a float8 type: out-of-range values become the largest finite one
  // (QuantizeLinear-19's saturate attribute).
  bool saturate = true;
};

// Where a node keeps one tensor's quantization: its scale and zero-point
// input indices (zero_point -1 or absent: 0), their ONNX names for errors,
// and the granularity attributes (axis, block_size) of the Q/DQ ops.
struct QuantInputs {
  int scale = -1, zero_point = -1;
  const char* scale_name = "scale";
  const char* zero_point_name = "zero_point";
  int64_t axis = 1;
  int64_t block_size = 0;
  // A scale of more than one element is allowed (per-axis or blocked);
  // QLinear* ops other than the weight of QLinearConv/QLinearMatMul take
  // scalars only.
  bool per_axis = true;
};

// The checked parameters of data of shape `data`; `type` is the quantized
// dtype when no zero point says it.
absl::StatusOr<QuantParams> ReadQuantParams(NodeContext& ctx, const QuantInputs& in,
                                            const Shape& data, DType type);

// float32 `x` (any float dtype, or int32, is cast) quantized.
absl::StatusOr<Val> Quantize(NodeContext& ctx, Val x, const QuantParams& p);

// `q` (an integer or float8 dtype) dequantized to `out` (float32 unless given).
absl::StatusOr<Val> Dequantize(NodeContext& ctx, Val q, const QuantParams& p,
                               DType out = DType::kFloat32);

// An int32 accumulator rescaled to the quantized output: as Quantize, but
// multiplying by `multiplier` (input scales / output scale, as ONNX Runtime
// requantizes) instead of dividing by the output's scale.
absl::StatusOr<Val> Requantize(NodeContext& ctx, Val accumulator, Val multiplier,
                               const QuantParams& out);

// DynamicQuantizeLinear: float32 x to uint8 with the range of x widened to
// include 0,
//   scale = (max - min) / 255 (1 when max == min, so all-zero data stays 0)
//   zero_point = round(clip(-min / scale, 0, 255))
// as ONNX Runtime computes them: one dynamic_quantize_linear op.
struct DynamicQuantized {
  Val y = kNoVal;           // uint8, x's shape
  Val scale = kNoVal;       // float32 []
  Val zero_point = kNoVal;  // uint8 []
};
absl::StatusOr<DynamicQuantized> DynamicQuantize(NodeContext& ctx, Val x);

// A zero point as a scalar constant of `type` (for absent inputs).
Val ZeroOf(NodeContext& ctx, DType type);

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_QUANTIZATION_H_
