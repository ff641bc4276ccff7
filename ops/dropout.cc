// dropout: identity at inference (this runtime never trains), as
// torch.nn.functional.dropout(training=False).
//   operands:   input (any shape)
//   attributes: p = 0.5, the drop probability, in [0, 1]
//   output:     the same shape

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"

namespace switchyard {
namespace {

class DropoutOp : public OpDef {
 public:
  std::string name() const override { return "dropout"; }
  std::vector<std::string> operand_names() const override { return {"input"}; }

  absl::StatusOr<Shape> InferShape(
      const AttrMap& attrs, absl::Span<const Shape> operands) const override {
    SY_RETURN_IF_ERROR(ops_internal::CheckOperandCount(*this, operands));
    SY_RETURN_IF_ERROR(ops_internal::CheckKnownAttrs(attrs, name(), {"p"}));
    SY_ASSIGN_OR_RETURN(double p, attrs.GetFloat("p", 0.5));
    if (!(p >= 0.0 && p <= 1.0)) {  // also rejects NaN
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute 'p' must be a probability in [0, 1], got ", p));
    }
    return operands[0];
  }
};

static const bool kRegistered = RegisterOp(std::make_unique<DropoutOp>());

}  // namespace
}  // namespace switchyard
