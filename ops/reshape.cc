// reshape: the same row-major elements under another shape, as ONNX Reshape
// once the importer has resolved its -1 and 0 entries.
//   operands:   input (any shape, any dtype)
//   attributes: shape (ints, required; entries >= 0, product = the input's
//               element count; ops/shape_attrs.h)
//   output:     `shape`

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace {

class ReshapeOp : public OpDef {
 public:
  std::string name() const override { return "reshape"; }
  const OpSchema& schema() const override {
    static const OpSchema* schema = [] {
      auto* s = new OpSchema;
      s->inputs = {{"input"}};
      ReshapeAttrs::DeclareIn(*s);
      s->dtypes = {};  // any: it moves no element
      return s;
    }();
    return *schema;
  }

  absl::StatusOr<Shape> InferShape(
      const AttrMap& attrs, absl::Span<const Shape> operands) const override {
    SY_RETURN_IF_ERROR(ops_internal::CheckSchema(*this, attrs, operands));
    SY_ASSIGN_OR_RETURN(ReshapeAttrs a, ReshapeAttrs::FromAttrMap(attrs));
    absl::StatusOr<Shape> shape = Shape::Create(a.shape, 1);
    const Shape target = shape.ok() ? *shape : Shape(a.shape);
    if (!shape.ok() ||
        target.num_elements() != operands[0].num_elements()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute 'shape' ", target.ToString(), " must hold the ",
          operands[0].num_elements(), " elements of input ",
          operands[0].ToString(),
          shape.ok() ? absl::StrCat(", not ", target.num_elements())
                     : absl::StrCat(": ", shape.status().message())));
    }
    return target;
  }
};

static const bool kRegistered = RegisterOp(std::make_unique<ReshapeOp>());

}  // namespace
}  // namespace switchyard
