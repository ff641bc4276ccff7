// expand: broadcasts its operand to a larger shape, as ONNX Expand.
//   operands:   input (any shape, any dtype)
//   attributes: shape (ints, required; entries >= 0; ops/shape_attrs.h)
//   output:     the numpy broadcast of input's shape and `shape`
//               (ops/broadcast.h), so a 1 in `shape` keeps the input's dim
//               and `shape` may have fewer dims than the input

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/broadcast.h"
#include "ops/op_util.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace {

class ExpandOp : public OpDef {
 public:
  std::string name() const override { return "expand"; }
  const OpSchema& schema() const override {
    static const OpSchema* schema = [] {
      auto* s = new OpSchema;
      s->inputs = {{"input"}};
      ExpandAttrs::DeclareIn(*s);
      s->dtypes = {};  // any: it only copies elements
      return s;
    }();
    return *schema;
  }

  absl::StatusOr<Shape> InferShape(
      const AttrMap& attrs, absl::Span<const Shape> operands) const override {
    SY_RETURN_IF_ERROR(ops_internal::CheckSchema(*this, attrs, operands));
    SY_ASSIGN_OR_RETURN(ExpandAttrs a, ExpandAttrs::FromAttrMap(attrs));
    const std::vector<Shape> shapes = {operands[0], Shape(a.shape)};
    const std::vector<std::string> names = {"input", "attribute 'shape'"};
    return BroadcastShapes(shapes, names);
  }
};

static const bool kRegistered = RegisterOp(std::make_unique<ExpandOp>());

}  // namespace
}  // namespace switchyard
