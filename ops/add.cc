// add: elementwise input + other, as torch.add without alpha. Shapes must be
// equal; broadcasting is not supported yet.
//   operands: input, other (the same shape and dtype); output: that shape

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

class AddOp : public OpDef {
 public:
  std::string name() const override { return "add"; }
  const OpSchema& schema() const override {
    static const OpSchema* schema = [] {
      auto* s = new OpSchema;
      s->inputs = {{"input"}, {"other"}};
      s->dtypes = ops_internal::NumericDTypes();
      return s;
    }();
    return *schema;
  }

  absl::StatusOr<Shape> InferShape(
      const AttrMap& attrs, absl::Span<const Shape> operands) const override {
    SY_RETURN_IF_ERROR(ops_internal::CheckSchema(*this, attrs, operands));
    if (operands[0] != operands[1]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", operands[0].ToString(), " and other ",
          operands[1].ToString(),
          " must have the same shape; broadcasting is not supported"));
    }
    return operands[0];
  }

  int64_t Flops(const AttrMap& attrs, absl::Span<const Shape> operands,
                const Shape& output) const override {
    return output.num_elements();
  }
};

static const bool kRegistered = RegisterOp(std::make_unique<AddOp>());

}  // namespace
}  // namespace switchyard
