// cast: every element converted to the dtype of attribute `to`, as ONNX
// Cast (CastAttrs says how out-of-range values and NaN convert).
//   operands: input (any dtype); output: the input's shape, dtype `to`

#include <memory>
#include <string>
#include <vector>

#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/elementwise_attrs.h"
#include "ops/op_util.h"

namespace switchyard {
namespace {

class CastOp : public OpDef {
 public:
  std::string name() const override { return "cast"; }
  const OpSchema& schema() const override {
    static const OpSchema* schema = [] {
      auto* s = new OpSchema;
      s->inputs = {{"input"}};
      CastAttrs::DeclareIn(*s);
      s->dtypes = {};  // any
      return s;
    }();
    return *schema;
  }

  absl::StatusOr<std::vector<TensorType>> InferTypes(
      const AttrMap& attrs,
      absl::Span<const TensorType> operands) const override {
    SY_RETURN_IF_ERROR(ops_internal::CheckSchema(*this, attrs, operands));
    SY_ASSIGN_OR_RETURN(CastAttrs cast, CastAttrs::FromAttrMap(attrs));
    return std::vector<TensorType>{{operands[0].shape, cast.to}};
  }

  int64_t Flops(const AttrMap& attrs, absl::Span<const Shape> operands,
                const Shape& output) const override {
    return 0;  // a conversion, not arithmetic
  }
};

static const bool kRegistered = RegisterOp(std::make_unique<CastOp>());

}  // namespace
}  // namespace switchyard
