// where: picks elementwise from x where condition is true, else from y, as
// ONNX Where, with numpy broadcasting of all three operands.
//   operands: condition (bool), x, y (the same dtype, any)
//   output:   x's dtype, the broadcast shape of the three (ops/broadcast.h)
//
// Kernels are keyed by the first operand's dtype (core/kernel_registry.h),
// so a backend registers `where` under bool and handles every x dtype.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/broadcast.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<std::vector<TensorType>> WhereTypes(
    const NoAttrs& /*attrs*/, absl::Span<const TensorType> operands) {
  if (operands[0].dtype != DType::kBool) {
    return absl::InvalidArgumentError(
        absl::StrCat("condition is ", DTypeName(operands[0].dtype),
                     "; where takes a bool condition (compare or cast it)"));
  }
  if (operands[1].dtype != operands[2].dtype) {
    return absl::InvalidArgumentError(
        absl::StrCat("x is ", DTypeName(operands[1].dtype), " but y is ",
                     DTypeName(operands[2].dtype),
                     "; where takes x and y of one dtype (cast one of them)"));
  }
  const std::vector<std::string> names = {"condition", "x", "y"};
  const std::vector<Shape> shapes = {operands[0].shape, operands[1].shape,
                                     operands[2].shape};
  SY_ASSIGN_OR_RETURN(Shape shape, BroadcastShapes(shapes, names));
  return std::vector<TensorType>{{std::move(shape), operands[1].dtype}};
}

// The dtype is the condition's (kernels are keyed by it); x and y: any,
// checked by WhereTypes.
static const bool kRegistered = RegisterOp(ops_internal::TypesOp(
    {"where", {{"condition"}, {"x"}, {"y"}}, {DType::kBool}}, &WhereTypes));

}  // namespace
}  // namespace switchyard
