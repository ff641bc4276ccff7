// The bitwise ops, as ONNX BitwiseNot, BitwiseAnd, BitwiseOr and
// BitwiseXor: integer operands (every integer dtype Switchyard has), the
// result in their dtype, computed on the two's complement bits.
//   bitwise_not:  ~input; the input's shape
//   bitwise_and, bitwise_or, bitwise_xor: input (op) other with numpy
//                 broadcasting (ops/broadcast.h); both operands one dtype

#include <string>
#include <vector>

#include "core/op_def.h"
#include "ops/broadcast.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

const std::vector<DType>& IntegerDTypes() {
  static const auto* dtypes = new std::vector<DType>{
      DType::kInt64, DType::kInt32, DType::kInt8, DType::kUInt8};
  return *dtypes;
}

absl::StatusOr<Shape> NotShape(const NoAttrs&, absl::Span<const Shape> operands) {
  return operands[0];
}

absl::StatusOr<Shape> BinaryShape(const NoAttrs&,
                                  absl::Span<const Shape> operands) {
  static const auto* names = new std::vector<std::string>{"input", "other"};
  return BroadcastShapes(operands, *names);
}

// One operation per output element.
int64_t BitwiseFlops(const AttrMap&, absl::Span<const Shape>,
                     const Shape& output) {
  return output.num_elements();
}

bool RegisterAll() {
  bool ok = RegisterOp(ops_internal::ShapeOp(
      {"bitwise_not", {{"input"}}, IntegerDTypes()}, &NotShape, &BitwiseFlops));
  for (const char* op : {"bitwise_and", "bitwise_or", "bitwise_xor"}) {
    ok &= RegisterOp(ops_internal::ShapeOp(
        {op, {{"input"}, {"other"}}, IntegerDTypes()}, &BinaryShape,
        &BitwiseFlops));
  }
  return ok;
}

static const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace switchyard
