// relu: max(x, 0) elementwise, as torch.nn.functional.relu.
//   operands: input (any shape); output: the same shape

#include <memory>
#include <string>
#include <vector>

#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"

namespace switchyard {
namespace {

class ReluOp : public OpDef {
 public:
  std::string name() const override { return "relu"; }
  const OpSchema& schema() const override {
    static const OpSchema* schema = [] {
      auto* s = new OpSchema;
      s->inputs = {{"input"}};
      s->dtypes = ops_internal::NumericDTypes();
      return s;
    }();
    return *schema;
  }

  absl::StatusOr<Shape> InferShape(
      const AttrMap& attrs, absl::Span<const Shape> operands) const override {
    SY_RETURN_IF_ERROR(ops_internal::CheckSchema(*this, attrs, operands));
    return operands[0];
  }

  // One comparison per element.
  int64_t Flops(const AttrMap& attrs, absl::Span<const Shape> operands,
                const Shape& output) const override {
    return output.num_elements();
  }
};

static const bool kRegistered = RegisterOp(std::make_unique<ReluOp>());

}  // namespace
}  // namespace switchyard
