// The logical ops, as ONNX Not, And, Or and Xor: bool operands, a bool
// output (ops/logical_functors.h has the formulas).
//   logical_not:  !input; the input's shape
//   logical_and, logical_or, logical_xor: input (op) other with numpy
//                 broadcasting (ops/broadcast.h)
// And the bitwise ops of the same shapes, as ONNX BitwiseNot, BitwiseAnd,
// BitwiseOr and BitwiseXor: integer operands (every integer dtype
// Switchyard has), the result in their dtype, computed on the two's
// complement bits; both operands one dtype.

#include <string>
#include <vector>

#include "core/op_def.h"
#include "ops/broadcast.h"
#include "ops/logical_functors.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<Shape> NotShape(const NoAttrs&, absl::Span<const Shape> operands) {
  return operands[0];
}

absl::StatusOr<Shape> BinaryShape(const NoAttrs&,
                                  absl::Span<const Shape> operands) {
  static const auto* names = new std::vector<std::string>{"input", "other"};
  return BroadcastShapes(operands, *names);
}

const std::vector<DType>& IntegerDTypes() {
  static const auto* dtypes = new std::vector<DType>{
      DType::kInt64, DType::kInt32, DType::kInt8, DType::kUInt8};
  return *dtypes;
}

// One operation per output element.
int64_t LogicalFlops(const AttrMap&, absl::Span<const Shape>,
                     const Shape& output) {
  return output.num_elements();
}

bool RegisterAll() {
  bool ok = RegisterOp(ops_internal::ShapeOp(
      {"logical_not", {{"input"}}, {DType::kBool}}, &NotShape, &LogicalFlops));
#define SY_REGISTER_LOGICAL_OP(op, Functor)                                  \
  ok &= RegisterOp(ops_internal::ShapeOp(                                    \
      {op, {{"input"}, {"other"}}, {DType::kBool}}, &BinaryShape, &LogicalFlops));
  SY_LOGICAL_BINARY_OPS(SY_REGISTER_LOGICAL_OP)
#undef SY_REGISTER_LOGICAL_OP
  ok &= RegisterOp(ops_internal::ShapeOp(
      {"bitwise_not", {{"input"}}, IntegerDTypes()}, &NotShape, &LogicalFlops));
  for (const char* op : {"bitwise_and", "bitwise_or", "bitwise_xor"}) {
    ok &= RegisterOp(ops_internal::ShapeOp(
        {op, {{"input"}, {"other"}}, IntegerDTypes()}, &BinaryShape, &LogicalFlops));
  }
  return ok;
}

static const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace switchyard
