// dynamic_quantize_linear: float32 x to uint8 with a scale and zero point
// taken from x's own range, as ONNX DynamicQuantizeLinear (and ONNX
// Runtime) computes them (ops/linear_quantization.h:
// DynamicQuantizationOf): the range of x, NaN left out, widened to hold 0;
// then y = quantize_linear(x, scale, zero_point). One op where the
// composition took sixteen, several of them passes over x.
//   operand: x (float32, any shape)
//   outputs: y (uint8, x's shape), y_scale (float32 []), y_zero_point
//            (uint8 [])

#include <vector>

#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<std::vector<TensorType>> DynamicQuantizeTypes(
    const NoAttrs& /*attrs*/, absl::Span<const TensorType> operands) {
  if (operands[0].dtype != DType::kFloat32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dynamic_quantize_linear's x is ", DTypeName(operands[0].dtype), "; it takes float32"));
  }
  return std::vector<TensorType>{{operands[0].shape, DType::kUInt8},
                                 {Shape(), DType::kFloat32},
                                 {Shape(), DType::kUInt8}};
}

static const bool kRegistered = RegisterOp(ops_internal::TypesOp(
    {"dynamic_quantize_linear",
     {{"x"}},
     {DType::kFloat32},
     {{"y"}, {"y_scale"}, {"y_zero_point"}}},
    &DynamicQuantizeTypes));

}  // namespace
}  // namespace switchyard
