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
#include "ops/attr_fields.h"

namespace switchyard {

// Checks shared by the structs below (ops/shape_attrs.cc).
namespace shape_attrs_internal {
// Every entry >= 0; for "shape", a hint about ONNX's -1 and 0 placeholders.
absl::Status CheckNonNegative(absl::string_view name,
                              const std::vector<int64_t>& values);
}  // namespace shape_attrs_internal

// reshape: the output shape, every entry >= 0 and their product the input's
// element count. ONNX's -1 and 0 entries are resolved by the importer.
struct ReshapeAttrs {
  SY_ATTR_STRUCT(ReshapeAttrs);
  static constexpr const char* kOp = "reshape";
  std::vector<int64_t> shape;

  static void DeclareFields(AttrFields<ReshapeAttrs>& f) {
    f.Field("shape", &ReshapeAttrs::shape)
        .Required()
        .CheckStatus([](const std::vector<int64_t>& v) {
          return shape_attrs_internal::CheckNonNegative("shape", v);
        })
        .Doc("the output shape: entries >= 0 whose product is the input's "
             "element count (no -1 or 0 placeholders)");
  }
};

// transpose: output dim i is input dim perm[i].
struct TransposeAttrs {
  SY_ATTR_STRUCT(TransposeAttrs);
  static constexpr const char* kOp = "transpose";
  // Checked against the input's rank by shape inference.
  std::vector<int64_t> perm;

  static void DeclareFields(AttrFields<TransposeAttrs>& f) {
    f.Field("perm", &TransposeAttrs::perm)
        .Required()
        .Doc("a permutation of [0, rank): output dim i is input dim perm[i]");
  }
};

// concat: the operands joined along `axis`.
struct ConcatAttrs {
  SY_ATTR_STRUCT(ConcatAttrs);
  static constexpr const char* kOp = "concat";
  int64_t axis = 0;  // required; negative counts from the end

  static void DeclareFields(AttrFields<ConcatAttrs>& f) {
    f.Field("axis", &ConcatAttrs::axis)
        .Required()
        .Doc("a dim of the operands (negative from the end)");
  }
};

// split: one output per entry of `sizes`, each that long along `axis`.
struct SplitAttrs {
  SY_ATTR_STRUCT(SplitAttrs);
  static constexpr const char* kOp = "split";
  int64_t axis = 0;            // ONNX's default 0; negative ok
  std::vector<int64_t> sizes;  // required: >= 0, at least one

  static void DeclareFields(AttrFields<SplitAttrs>& f) {
    f.Field("axis", &SplitAttrs::axis)
        .Doc("a dim of the input (negative from the end)");
    f.Field("sizes", &SplitAttrs::sizes)
        .Required()
        .CheckStatus([](const std::vector<int64_t>& v) {
          if (v.empty()) {
            return absl::InvalidArgumentError(
                "attribute 'sizes' must have at least one entry (one per "
                "output)");
          }
          return shape_attrs_internal::CheckNonNegative("sizes", v);
        })
        .Doc("one entry >= 0 per output, summing to the input's length along "
             "axis");
  }
};

// An `ends` entry meaning "to the end whatever the step's sign": ONNX models
// write INT64_MAX (positive step) and INT64_MIN (negative step); both clamp.
inline constexpr int64_t kSliceEnd = std::numeric_limits<int64_t>::max();

// slice, as ONNX Slice (opset 13) with its inputs as attributes. For each
// listed axis, start and end count from the end when negative, and are then
// clamped: to [0, dim] for a positive step, to [-1, dim - 1] for a negative
// one; the output takes start, start + step, ... while before end.
struct SliceAttrs {
  SY_ATTR_STRUCT(SliceAttrs);
  static constexpr const char* kOp = "slice";
  std::vector<int64_t> starts;  // required
  std::vector<int64_t> ends;    // required, as long as starts
  // Empty means 0, 1, ..., len(starts) - 1 (ONNX's default); else as long
  // as starts, distinct once wrapped (checked against the rank).
  std::vector<int64_t> axes;
  // Empty means all 1 (ONNX's default); else as long as starts, none 0.
  std::vector<int64_t> steps;

  // The axes and steps with ONNX's defaults filled in.
  std::vector<int64_t> AxesOrDefault() const;
  std::vector<int64_t> StepsOrDefault() const;

  static void DeclareFields(AttrFields<SliceAttrs>& f) {
    f.Field("starts", &SliceAttrs::starts)
        .Required()
        .Doc("one start per sliced axis; negative counts from the end; "
             "clamped");
    f.Field("ends", &SliceAttrs::ends)
        .Required()
        .Doc("one (exclusive) end per sliced axis, as long as starts; "
             "negative counts from the end; clamped (INT64_MAX / INT64_MIN: "
             "to the end)");
    f.Field("axes", &SliceAttrs::axes)
        .Doc("empty (0, 1, ...) or as long as starts: distinct dims of the "
             "input (negative from the end)");
    f.Field("steps", &SliceAttrs::steps)
        .Doc("empty (all 1) or as long as starts: non-zero; negative walks "
             "backwards");
    f.Finally(&SliceAttrs::CheckLengths);
  }
  // The lists agree in length; no step is 0.
  static absl::Status CheckLengths(SliceAttrs& a);
};

// gather, as ONNX Gather: output = data[:axis] + indices.shape +
// data[axis+1:].
struct GatherAttrs {
  SY_ATTR_STRUCT(GatherAttrs);
  static constexpr const char* kOp = "gather";
  int64_t axis = 0;  // ONNX's default 0; negative ok

  static void DeclareFields(AttrFields<GatherAttrs>& f) {
    f.Field("axis", &GatherAttrs::axis)
        .Doc("a dim of data (negative from the end)");
  }
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
  SY_ATTR_STRUCT(PadAttrs);
  static constexpr const char* kOp = "pad";
  // Required: 2 * rank values, every dim's begin then every dim's end
  // (ONNX's order: x1_begin, x2_begin, ..., x1_end, x2_end, ...); negative
  // values remove elements.
  std::vector<int64_t> pads;
  PadMode mode = PadMode::kConstant;
  // The constant mode's fill, converted to the input's dtype as a C++
  // conversion would (saturating; bool: non-zero is true).
  double value = 0.0;

  static void DeclareFields(AttrFields<PadAttrs>& f) {
    f.Field("pads", &PadAttrs::pads)
        .Required()
        .CheckStatus(&PadAttrs::CheckPads)
        .Doc("2 * rank values: every dim's begin, then every dim's end; "
             "negative removes");
    f.Enum("mode", &PadAttrs::mode,
           {{PadMode::kConstant, PadModeName(PadMode::kConstant)},
            {PadMode::kReflect, PadModeName(PadMode::kReflect)},
            {PadMode::kEdge, PadModeName(PadMode::kEdge)}});
    f.Field("value", &PadAttrs::value)
        .Doc("the constant mode's fill, converted to the input's dtype");
  }
  // An even number of values.
  static absl::Status CheckPads(const std::vector<int64_t>& pads);
};

// expand, as ONNX Expand: the input broadcast (numpy rules) with `shape`;
// the output is that broadcast shape, so a 1 in `shape` keeps the input's
// dim.
struct ExpandAttrs {
  SY_ATTR_STRUCT(ExpandAttrs);
  static constexpr const char* kOp = "expand";
  std::vector<int64_t> shape;  // required; entries >= 0

  static void DeclareFields(AttrFields<ExpandAttrs>& f) {
    f.Field("shape", &ExpandAttrs::shape)
        .Required()
        .CheckStatus([](const std::vector<int64_t>& v) {
          return shape_attrs_internal::CheckNonNegative("shape", v);
        })
        .Doc("entries >= 0, numpy-broadcast with the input's shape to give "
             "the output's");
  }
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_SHAPE_ATTRS_H_
