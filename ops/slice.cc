// slice: a strided window of its operand, as ONNX Slice (opset 13) with its
// starts, ends, axes and steps inputs as attributes.
//   operands:   input (any shape, any dtype)
//   attributes: starts, ends (ints, required, equal lengths), axes (empty:
//               0, 1, ...), steps (empty: all 1; none 0). Per listed axis:
//               negative starts and ends count from the end, then clamp
//               (ONNX's rules, ops/shape_geometry.h SliceGeometry), so
//               INT64_MAX and INT64_MIN ends mean "to the end"; a negative
//               step walks backwards.
//   output:     per dim, the number of elements the window takes (0 when it
//               is empty)

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/shape_attrs.h"
#include "ops/shape_geometry.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<Shape> SliceShape(const SliceAttrs& a,
                                 absl::Span<const Shape> operands) {
  SY_ASSIGN_OR_RETURN(std::vector<SliceDim> dims,
                      SliceGeometry(a, operands[0]));
  std::vector<int64_t> out;
  for (const SliceDim& d : dims) out.push_back(d.count);
  return Shape(std::move(out));
}

// Any dtype: it only moves elements.
static const bool kRegistered =
    RegisterOp(ops_internal::ShapeOp({"slice", {{"input"}}, {}}, &SliceShape));

}  // namespace
}  // namespace switchyard
