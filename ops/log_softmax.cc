// log_softmax: log(softmax(x)) along one dimension, computed as
// x - max - log(sum(exp(x - max))) so it neither overflows nor takes the
// log of an underflowed 0; as torch.nn.functional.log_softmax and ONNX
// LogSoftmax (opset 13; the importer reshapes for earlier opsets).
//   operands:   input (rank >= 1)
//   attributes: dim (required; negative counts from the end; softmax's
//               attributes, ops/tensor_attrs.h SoftmaxAttrs)
//   output:     the same shape

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/softmax_attrs.h"

namespace switchyard {
namespace {

class LogSoftmaxOp : public OpDef {
 public:
  std::string name() const override { return "log_softmax"; }
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
      return absl::InvalidArgumentError(
          absl::StrCat("input must have rank >= 1, got ", input.ToString()));
    }
    SY_RETURN_IF_ERROR(
        ops_internal::WrapDim(a.dim, input.rank(), "dim").status());
    return input;
  }

  // Per element: compare for the max, subtract it, exp, add to the sum,
  // subtract the log.
  int64_t Flops(const AttrMap& attrs, absl::Span<const Shape> operands,
                const Shape& output) const override {
    return ops_internal::SaturatingProduct({5, output.num_elements()});
  }
};

static const bool kRegistered = RegisterOp(std::make_unique<LogSoftmaxOp>());

}  // namespace
}  // namespace switchyard
