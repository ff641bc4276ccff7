#ifndef SWITCHYARD_OPS_SHAPE_ATTRS_H_
#define SWITCHYARD_OPS_SHAPE_ATTRS_H_

// The attributes of the shape ops (reshape, transpose, concat, split, slice,
// gather, pad, expand) as typed structs: the one place that converts them to
// and from the attribute map, and whose defaults are the op schemas'. Checks
// that need the input's shape (a perm of the input's rank, sizes that sum to
// the axis) stay in the ops' shape inference; a struct checks only what can
// be wrong whatever the input. `where` has no attributes.
//
//   SliceAttrs s;
//   s.starts = {0}; s.ends = {kSliceEnd}; s.axes = {1}; s.steps = {-1};
//   graph.AddNode("slice", "flip", {x}, s.ToAttrMap());
//   absl::StatusOr<PadAttrs> p = PadAttrs::FromAttrMap(node.attrs);

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/attributes.h"
#include "core/op_def.h"

namespace switchyard {

// reshape: the output shape, every entry >= 0 and their product the input's
// element count. ONNX's -1 and 0 entries are resolved by the importer.
struct ReshapeAttrs {
  std::vector<int64_t> shape;  // "shape", required

  static const std::vector<AttrSpec>& Specs();
  // Also InvalidArgument for a negative entry.
  static absl::StatusOr<ReshapeAttrs> FromAttrMap(const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

// transpose: output dim i is input dim perm[i].
struct TransposeAttrs {
  // "perm", required: a permutation of [0, rank) (checked against the
  // input's rank by shape inference).
  std::vector<int64_t> perm;

  static const std::vector<AttrSpec>& Specs();
  static absl::StatusOr<TransposeAttrs> FromAttrMap(const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

// concat: the operands joined along `axis`.
struct ConcatAttrs {
  int64_t axis = 0;  // "axis", required; negative counts from the end

  static const std::vector<AttrSpec>& Specs();
  static absl::StatusOr<ConcatAttrs> FromAttrMap(const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

// split: one output per entry of `sizes`, each that long along `axis`.
struct SplitAttrs {
  int64_t axis = 0;            // "axis" (ONNX's default 0); negative ok
  std::vector<int64_t> sizes;  // "sizes", required: >= 0, at least one

  static const std::vector<AttrSpec>& Specs();
  // Also InvalidArgument for no sizes or a negative one.
  static absl::StatusOr<SplitAttrs> FromAttrMap(const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

// An `ends` entry meaning "to the end whatever the step's sign": ONNX models
// write INT64_MAX (positive step) and INT64_MIN (negative step); both clamp.
inline constexpr int64_t kSliceEnd = std::numeric_limits<int64_t>::max();

// slice, as ONNX Slice (opset 13) with its inputs as attributes. For each
// listed axis, start and end count from the end when negative, and are then
// clamped: to [0, dim] for a positive step, to [-1, dim - 1] for a negative
// one; the output takes start, start + step, ... while before end.
struct SliceAttrs {
  std::vector<int64_t> starts;  // "starts", required
  std::vector<int64_t> ends;    // "ends", required, as long as starts
  // "axes": empty means 0, 1, ..., len(starts) - 1 (ONNX's default); else as
  // long as starts, distinct once wrapped (checked against the rank).
  std::vector<int64_t> axes;
  // "steps": empty means all 1 (ONNX's default); else as long as starts,
  // none 0.
  std::vector<int64_t> steps;

  // The axes and steps with ONNX's defaults filled in.
  std::vector<int64_t> AxesOrDefault() const;
  std::vector<int64_t> StepsOrDefault() const;

  static const std::vector<AttrSpec>& Specs();
  // Also InvalidArgument for lists of different lengths or a zero step.
  static absl::StatusOr<SliceAttrs> FromAttrMap(const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

// gather, as ONNX Gather: output = data[:axis] + indices.shape +
// data[axis+1:].
struct GatherAttrs {
  int64_t axis = 0;  // "axis" (ONNX's default 0); negative ok

  static const std::vector<AttrSpec>& Specs();
  static absl::StatusOr<GatherAttrs> FromAttrMap(const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

// pad's modes, as ONNX Pad (numpy.pad): a constant value; the input mirrored
// about its first and last elements (which are not repeated); the edge
// element repeated.
enum class PadMode { kConstant, kReflect, kEdge };

// "constant", "reflect", "edge".
const char* PadModeName(PadMode mode);

// pad, as ONNX Pad (opset 11+) with its pads and constant value as
// attributes.
struct PadAttrs {
  // "pads", required: 2 * rank values, every dim's begin then every dim's
  // end (ONNX's order: x1_begin, x2_begin, ..., x1_end, x2_end, ...);
  // negative values remove elements.
  std::vector<int64_t> pads;
  PadMode mode = PadMode::kConstant;  // "mode"
  // "value": the constant mode's fill, converted to the input's dtype as a
  // C++ conversion would (saturating; bool: non-zero is true).
  double value = 0.0;

  static const std::vector<AttrSpec>& Specs();
  // Also InvalidArgument for an odd number of pads or an unknown mode.
  static absl::StatusOr<PadAttrs> FromAttrMap(const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

// expand, as ONNX Expand: the input broadcast (numpy rules) with `shape`;
// the output is that broadcast shape, so a 1 in `shape` keeps the input's
// dim.
struct ExpandAttrs {
  std::vector<int64_t> shape;  // "shape", required; entries >= 0

  static const std::vector<AttrSpec>& Specs();
  // Also InvalidArgument for a negative entry.
  static absl::StatusOr<ExpandAttrs> FromAttrMap(const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_SHAPE_ATTRS_H_
