// resize: samples its operand on a new grid, as ONNX Resize (and Upsample)
// with the scales or sizes input resolved by the importer.
//   operands:   input (any rank, floating)
//   attributes: sizes (the output shape, required), scales (the coordinate
//               transform's, empty: sizes / input dims), mode, the
//               coordinate and nearest modes, cubic_coeff_a,
//               exclude_outside (ops/resize_attrs.h)
//   output:     `sizes`; along each axis, output index o reads the input
//               elements ops/resize_geometry.h ResizeTaps names, weighted;
//               an axis whose size stays and whose scale is 1 is copied.
//               Every input dim must be non-empty (there is nothing to
//               sample from otherwise).

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/resize_attrs.h"
#include "ops/typed_op.h"

namespace switchyard {
namespace {

absl::StatusOr<Shape> ResizeShape(const ResizeAttrs& a,
                                  absl::Span<const Shape> operands) {
  const Shape& input = operands[0];
  const size_t rank = static_cast<size_t>(input.rank());
  if (a.sizes.size() != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'sizes' has ", a.sizes.size(), " values but input ",
        input.ToString(), " has rank ", rank, "; give one output size per dim"));
  }
  if (!a.scales.empty() && a.scales.size() != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'scales' has ", a.scales.size(), " values but input ",
        input.ToString(), " has rank ", rank,
        "; give one scale per dim, or none (sizes / input dims)"));
  }
  for (size_t d = 0; d < rank; ++d) {
    if (input.dim(static_cast<int>(d)) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", input.ToString(), " is empty in dim ", d,
          "; resize needs elements to sample from"));
    }
  }
  absl::StatusOr<Shape> out = Shape::Create(a.sizes);
  if (!out.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'sizes' ", Shape(a.sizes).ToString(),
        " is too large: ", out.status().message()));
  }
  return *out;
}

// Two FLOPs (a multiply and an add) per tap per output element.
int64_t ResizeFlops(const AttrMap& attrs, absl::Span<const Shape> operands,
                    const Shape& output) {
  absl::StatusOr<ResizeAttrs> a = ResizeAttrs::FromAttrMap(attrs);
  const size_t rank = static_cast<size_t>(operands[0].rank());
  if (!a.ok() || a->sizes.size() != rank ||
      (!a->scales.empty() && a->scales.size() != rank)) {
    return 0;
  }
  int64_t taps = 1;
  for (int d = 0; d < operands[0].rank(); ++d) {
    taps = ops_internal::SaturatingProduct(
        {taps, ResizeTapCount(a->Axis(operands[0], d))});
  }
  return ops_internal::SaturatingProduct({2, taps, output.num_elements()});
}

static const bool kRegistered = RegisterOp(ops_internal::ShapeOp(
    {"resize", {{"input"}}, ops_internal::FloatingDTypes()}, &ResizeShape,
    &ResizeFlops));

}  // namespace
}  // namespace switchyard
