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

namespace switchyard {
namespace {

class WhereOp : public OpDef {
 public:
  std::string name() const override { return "where"; }
  const OpSchema& schema() const override {
    static const OpSchema* schema = [] {
      auto* s = new OpSchema;
      s->inputs = {{"condition"}, {"x"}, {"y"}};
      // The condition's (kernels are keyed by it); x and y: any, checked
      // below.
      s->dtypes = {DType::kBool};
      return s;
    }();
    return *schema;
  }

  absl::StatusOr<std::vector<TensorType>> InferTypes(
      const AttrMap& attrs,
      absl::Span<const TensorType> operands) const override {
    SY_RETURN_IF_ERROR(ops_internal::CheckSchema(*this, attrs, operands));
    if (operands[0].dtype != DType::kBool) {
      return absl::InvalidArgumentError(absl::StrCat(
          "condition is ", DTypeName(operands[0].dtype),
          "; where takes a bool condition (compare or cast it)"));
    }
    if (operands[1].dtype != operands[2].dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "x is ", DTypeName(operands[1].dtype), " but y is ",
          DTypeName(operands[2].dtype),
          "; where takes x and y of one dtype (cast one of them)"));
    }
    const std::vector<std::string> names = {"condition", "x", "y"};
    const std::vector<Shape> shapes = {operands[0].shape, operands[1].shape,
                                       operands[2].shape};
    SY_ASSIGN_OR_RETURN(Shape shape, BroadcastShapes(shapes, names));
    return std::vector<TensorType>{{std::move(shape), operands[1].dtype}};
  }
};

static const bool kRegistered = RegisterOp(std::make_unique<WhereOp>());

}  // namespace
}  // namespace switchyard
