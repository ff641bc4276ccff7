// dropout: identity at inference (this runtime never trains), as
// torch.nn.functional.dropout(training=False).
//   operands:   input (any shape)
//   attributes: p = 0.5, the drop probability, in [0, 1]
//               (ops/tensor_attrs.h)
//   output:     the same shape

#include <memory>
#include <string>
#include <vector>

#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/dropout_attrs.h"

namespace switchyard {
namespace {

class DropoutOp : public OpDef {
 public:
  std::string name() const override { return "dropout"; }
  const OpSchema& schema() const override {
    static const OpSchema* schema = [] {
      auto* s = new OpSchema;
      s->inputs = {{"input"}};
      DropoutAttrs::DeclareIn(*s);
      s->dtypes = ops_internal::FloatingDTypes();
      return s;
    }();
    return *schema;
  }

  absl::StatusOr<Shape> InferShape(
      const AttrMap& attrs, absl::Span<const Shape> operands) const override {
    SY_RETURN_IF_ERROR(ops_internal::CheckSchema(*this, attrs, operands));
    SY_RETURN_IF_ERROR(DropoutAttrs::FromAttrMap(attrs).status());
    return operands[0];
  }
};

static const bool kRegistered = RegisterOp(std::make_unique<DropoutOp>());

}  // namespace
}  // namespace switchyard
