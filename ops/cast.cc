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
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<std::vector<TensorType>> CastTypes(
    const CastAttrs& cast, absl::Span<const TensorType> operands) {
  return std::vector<TensorType>{{operands[0].shape, cast.to}};
}

// Any dtype in; no FLOPs: a conversion, not arithmetic.
static const bool kRegistered =
    RegisterOp(ops_internal::TypesOp({"cast", {{"input"}}, {}}, &CastTypes));

}  // namespace
}  // namespace switchyard
