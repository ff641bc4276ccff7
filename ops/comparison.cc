// The comparisons, as ONNX Equal, Less, Greater, LessOrEqual and
// GreaterOrEqual: input (op) other, elementwise with numpy broadcasting
// (ops/broadcast.h), into a bool output (ops/comparison_functors.h has the
// formulas). Both operands have one dtype: any numeric one, or bool.
//   operands: input, other; output: bool, BroadcastShapes(input, other)

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/broadcast.h"
#include "ops/comparison_functors.h"
#include "ops/op_util.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

const std::vector<DType>& ComparableDTypes() {
  static const auto* dtypes = [] {
    auto* d = new std::vector<DType>(ops_internal::NumericDTypes());
    d->push_back(DType::kBool);
    return d;
  }();
  return *dtypes;
}

absl::StatusOr<std::vector<TensorType>> ComparisonTypes(
    const NoAttrs&, absl::Span<const TensorType> operands) {
  SY_RETURN_IF_ERROR(ops_internal::CheckDType(operands[0].dtype, "input", "a comparison",
                                              ComparableDTypes()));
  if (operands[1].dtype != operands[0].dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input is ", DTypeName(operands[0].dtype), " and other is ",
        DTypeName(operands[1].dtype), "; a comparison takes one dtype (cast one of them)"));
  }
  static const auto* names = new std::vector<std::string>{"input", "other"};
  SY_ASSIGN_OR_RETURN(Shape shape,
                      BroadcastShapes({operands[0].shape, operands[1].shape}, *names));
  return std::vector<TensorType>{{std::move(shape), DType::kBool}};
}

// One comparison per output element.
int64_t ComparisonFlops(const AttrMap&, absl::Span<const Shape>, const Shape& output) {
  return output.num_elements();
}

bool RegisterAll() {
  bool ok = true;
#define SY_REGISTER_COMPARISON_OP(op, Functor)                                   \
  ok &= RegisterOp(ops_internal::TypesOp({op, {{"input"}, {"other"}}, ComparableDTypes()}, \
                                         &ComparisonTypes, &ComparisonFlops));
  SY_COMPARISON_OPS(SY_REGISTER_COMPARISON_OP)
#undef SY_REGISTER_COMPARISON_OP
  return ok;
}

static const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace switchyard
