#include "ops/shape_attrs.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "ops/op_util.h"

namespace switchyard {

using ops_internal::DefaultOf;

namespace {

std::string List(const std::vector<int64_t>& values) {
  return absl::StrCat("[", absl::StrJoin(values, ", "), "]");
}

absl::Status CheckNonNegative(const std::vector<int64_t>& values,
                              absl::string_view name) {
  for (int64_t v : values) {
    if (v < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute '", name, "' must have entries >= 0, got ", List(values),
          name == "shape" ? " (resolve -1 and 0 entries before building the "
                            "node)"
                          : ""));
    }
  }
  return absl::OkStatus();
}

}  // namespace

// ------------------------------------------------------------------ reshape

const std::vector<AttrSpec>& ReshapeAttrs::Specs() {
  static const auto* specs = new std::vector<AttrSpec>{
      {"shape", AttrType::kInts, std::nullopt,
       "the output shape: entries >= 0 whose product is the input's element "
       "count (no -1 or 0 placeholders)"},
  };
  return *specs;
}

absl::StatusOr<ReshapeAttrs> ReshapeAttrs::FromAttrMap(const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(ops_internal::CheckAttrSpecs(Specs(), attrs, "reshape"));
  ReshapeAttrs a;
  SY_ASSIGN_OR_RETURN(a.shape, attrs.GetInts("shape"));
  SY_RETURN_IF_ERROR(CheckNonNegative(a.shape, "shape"));
  return a;
}

AttrMap ReshapeAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("shape", shape);
  return attrs;
}

// ---------------------------------------------------------------- transpose

const std::vector<AttrSpec>& TransposeAttrs::Specs() {
  static const auto* specs = new std::vector<AttrSpec>{
      {"perm", AttrType::kInts, std::nullopt,
       "a permutation of [0, rank): output dim i is input dim perm[i]"},
  };
  return *specs;
}

absl::StatusOr<TransposeAttrs> TransposeAttrs::FromAttrMap(
    const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(ops_internal::CheckAttrSpecs(Specs(), attrs, "transpose"));
  TransposeAttrs a;
  SY_ASSIGN_OR_RETURN(a.perm, attrs.GetInts("perm"));
  return a;
}

AttrMap TransposeAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("perm", perm);
  return attrs;
}

// ------------------------------------------------------------------- concat

const std::vector<AttrSpec>& ConcatAttrs::Specs() {
  static const auto* specs = new std::vector<AttrSpec>{
      {"axis", AttrType::kInt, std::nullopt,
       "a dim of the operands (negative from the end)"},
  };
  return *specs;
}

absl::StatusOr<ConcatAttrs> ConcatAttrs::FromAttrMap(const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(ops_internal::CheckAttrSpecs(Specs(), attrs, "concat"));
  ConcatAttrs a;
  SY_ASSIGN_OR_RETURN(a.axis, attrs.GetInt("axis"));
  return a;
}

AttrMap ConcatAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("axis", axis);
  return attrs;
}

// -------------------------------------------------------------------- split

const std::vector<AttrSpec>& SplitAttrs::Specs() {
  static const auto* specs = [] {
    const AttrMap d = SplitAttrs().ToAttrMap();
    return new std::vector<AttrSpec>{
        {"axis", AttrType::kInt, DefaultOf(d, "axis"),
         "a dim of the input (negative from the end)"},
        {"sizes", AttrType::kInts, std::nullopt,
         "one entry >= 0 per output, summing to the input's length along "
         "axis"},
    };
  }();
  return *specs;
}

absl::StatusOr<SplitAttrs> SplitAttrs::FromAttrMap(const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(ops_internal::CheckAttrSpecs(Specs(), attrs, "split"));
  SplitAttrs a;
  SY_ASSIGN_OR_RETURN(a.axis, attrs.GetInt("axis", a.axis));
  SY_ASSIGN_OR_RETURN(a.sizes, attrs.GetInts("sizes"));
  if (a.sizes.empty()) {
    return absl::InvalidArgumentError(
        "attribute 'sizes' must have at least one entry (one per output)");
  }
  SY_RETURN_IF_ERROR(CheckNonNegative(a.sizes, "sizes"));
  return a;
}

AttrMap SplitAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("axis", axis);
  attrs.Set("sizes", sizes);
  return attrs;
}

// -------------------------------------------------------------------- slice

std::vector<int64_t> SliceAttrs::AxesOrDefault() const {
  if (!axes.empty()) return axes;
  std::vector<int64_t> all(starts.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  return all;
}

std::vector<int64_t> SliceAttrs::StepsOrDefault() const {
  if (!steps.empty()) return steps;
  return std::vector<int64_t>(starts.size(), 1);
}

const std::vector<AttrSpec>& SliceAttrs::Specs() {
  static const auto* specs = [] {
    const AttrMap d = SliceAttrs().ToAttrMap();
    return new std::vector<AttrSpec>{
        {"starts", AttrType::kInts, std::nullopt,
         "one start per sliced axis; negative counts from the end; clamped"},
        {"ends", AttrType::kInts, std::nullopt,
         "one (exclusive) end per sliced axis, as long as starts; negative "
         "counts from the end; clamped (INT64_MAX / INT64_MIN: to the end)"},
        {"axes", AttrType::kInts, DefaultOf(d, "axes"),
         "empty (0, 1, ...) or as long as starts: distinct dims of the input "
         "(negative from the end)"},
        {"steps", AttrType::kInts, DefaultOf(d, "steps"),
         "empty (all 1) or as long as starts: non-zero; negative walks "
         "backwards"},
    };
  }();
  return *specs;
}

absl::StatusOr<SliceAttrs> SliceAttrs::FromAttrMap(const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(ops_internal::CheckAttrSpecs(Specs(), attrs, "slice"));
  SliceAttrs a;
  SY_ASSIGN_OR_RETURN(a.starts, attrs.GetInts("starts"));
  SY_ASSIGN_OR_RETURN(a.ends, attrs.GetInts("ends"));
  SY_ASSIGN_OR_RETURN(a.axes, attrs.GetInts("axes", a.axes));
  SY_ASSIGN_OR_RETURN(a.steps, attrs.GetInts("steps", a.steps));
  const size_t n = a.starts.size();
  if (a.ends.size() != n || (!a.axes.empty() && a.axes.size() != n) ||
      (!a.steps.empty() && a.steps.size() != n)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attributes 'starts' ", List(a.starts), ", 'ends' ", List(a.ends),
        ", 'axes' ", List(a.axes), " and 'steps' ", List(a.steps),
        " must have the same length (axes and steps may be empty for ONNX's "
        "defaults)"));
  }
  for (int64_t step : a.steps) {
    if (step == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute 'steps' ", List(a.steps), " has a 0; steps are non-zero"));
    }
  }
  return a;
}

AttrMap SliceAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("starts", starts);
  attrs.Set("ends", ends);
  attrs.Set("axes", axes);
  attrs.Set("steps", steps);
  return attrs;
}

// ------------------------------------------------------------------- gather

const std::vector<AttrSpec>& GatherAttrs::Specs() {
  static const auto* specs = [] {
    const AttrMap d = GatherAttrs().ToAttrMap();
    return new std::vector<AttrSpec>{
        {"axis", AttrType::kInt, DefaultOf(d, "axis"),
         "a dim of data (negative from the end)"},
    };
  }();
  return *specs;
}

absl::StatusOr<GatherAttrs> GatherAttrs::FromAttrMap(const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(ops_internal::CheckAttrSpecs(Specs(), attrs, "gather"));
  GatherAttrs a;
  SY_ASSIGN_OR_RETURN(a.axis, attrs.GetInt("axis", a.axis));
  return a;
}

AttrMap GatherAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("axis", axis);
  return attrs;
}

// ---------------------------------------------------------------------- pad

const char* PadModeName(PadMode mode) {
  switch (mode) {
    case PadMode::kConstant:
      return "constant";
    case PadMode::kReflect:
      return "reflect";
    case PadMode::kEdge:
      return "edge";
  }
  return "?";
}

const std::vector<AttrSpec>& PadAttrs::Specs() {
  static const auto* specs = [] {
    const AttrMap d = PadAttrs().ToAttrMap();
    return new std::vector<AttrSpec>{
        {"pads", AttrType::kInts, std::nullopt,
         "2 * rank values: every dim's begin, then every dim's end; negative "
         "removes"},
        {"mode", AttrType::kString, DefaultOf(d, "mode"),
         "constant, reflect or edge"},
        {"value", AttrType::kFloat, DefaultOf(d, "value"),
         "the constant mode's fill, converted to the input's dtype"},
    };
  }();
  return *specs;
}

absl::StatusOr<PadAttrs> PadAttrs::FromAttrMap(const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(ops_internal::CheckAttrSpecs(Specs(), attrs, "pad"));
  PadAttrs a;
  SY_ASSIGN_OR_RETURN(a.pads, attrs.GetInts("pads"));
  if (a.pads.size() % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'pads' must have 2 values per dim (all begins, then all "
        "ends), got ",
        a.pads.size(), ": ", List(a.pads)));
  }
  if (attrs.Has("mode")) {
    SY_ASSIGN_OR_RETURN(std::string mode, attrs.GetString("mode"));
    if (mode == "constant") {
      a.mode = PadMode::kConstant;
    } else if (mode == "reflect") {
      a.mode = PadMode::kReflect;
    } else if (mode == "edge") {
      a.mode = PadMode::kEdge;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute 'mode' must be constant, reflect or edge, got '", mode,
          "'"));
    }
  }
  SY_ASSIGN_OR_RETURN(a.value, attrs.GetFloat("value", a.value));
  return a;
}

AttrMap PadAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("pads", pads);
  attrs.Set("mode", std::string(PadModeName(mode)));
  attrs.Set("value", value);
  return attrs;
}

// ------------------------------------------------------------------- expand

const std::vector<AttrSpec>& ExpandAttrs::Specs() {
  static const auto* specs = new std::vector<AttrSpec>{
      {"shape", AttrType::kInts, std::nullopt,
       "entries >= 0, numpy-broadcast with the input's shape to give the "
       "output's"},
  };
  return *specs;
}

absl::StatusOr<ExpandAttrs> ExpandAttrs::FromAttrMap(const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(ops_internal::CheckAttrSpecs(Specs(), attrs, "expand"));
  ExpandAttrs a;
  SY_ASSIGN_OR_RETURN(a.shape, attrs.GetInts("shape"));
  SY_RETURN_IF_ERROR(CheckNonNegative(a.shape, "shape"));
  return a;
}

AttrMap ExpandAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("shape", shape);
  return attrs;
}

}  // namespace switchyard
