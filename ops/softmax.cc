// softmax: exp(x) / sum(exp(x)) along one dimension, as
// torch.nn.functional.softmax.
//   operands:   input (rank >= 1)
//   attributes: dim (required; negative counts from the end;
//               ops/tensor_attrs.h)
//   output:     the same shape

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/softmax_attrs.h"

namespace switchyard {
namespace {

class SoftmaxOp : public OpDef {
 public:
  std::string name() const override { return "softmax"; }
  const OpSchema& schema() const override {
    static const OpSchema* schema = [] {
      auto* s = new OpSchema;
      s->inputs = {{"input"}};
      SoftmaxAttrs::DeclareIn(*s);
      s->dtypes = ops_internal::FloatingDTypes();
      return s;
    }();
    return *schema;
  }

  absl::StatusOr<Shape> InferShape(
      const AttrMap& attrs, absl::Span<const Shape> operands) const override {
    SY_RETURN_IF_ERROR(ops_internal::CheckSchema(*this, attrs, operands));
    SY_ASSIGN_OR_RETURN(SoftmaxAttrs a, SoftmaxAttrs::FromAttrMap(attrs));
    const Shape& input = operands[0];
    if (input.rank() < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input must have rank >= 1, got ", input.ToString()));
    }
    SY_RETURN_IF_ERROR(
        ops_internal::WrapDim(a.dim, input.rank(), "dim").status());
    return input;
  }

  // Per element: compare for the max, subtract it, exp, add to the sum,
  // divide.
  int64_t Flops(const AttrMap& attrs, absl::Span<const Shape> operands,
                const Shape& output) const override {
    return ops_internal::SaturatingProduct({5, output.num_elements()});
  }
};

static const bool kRegistered = RegisterOp(std::make_unique<SoftmaxOp>());

}  // namespace
}  // namespace switchyard
