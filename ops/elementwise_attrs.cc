#include "ops/elementwise_attrs.h"

#include <cmath>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/op_util.h"

namespace switchyard {
namespace {

using ops_internal::DefaultOf;

// Reads float attribute `name` (absent: `fallback`) and refuses NaN and,
// unless `infinite_ok`, infinities: either would make every output NaN or
// an infinity, which is never what a model meant.
absl::StatusOr<double> GetFiniteFloat(const AttrMap& attrs,
                                      absl::string_view op,
                                      absl::string_view name, double fallback,
                                      bool infinite_ok) {
  SY_ASSIGN_OR_RETURN(double value, attrs.GetFloat(name, fallback));
  if (std::isnan(value) || (!infinite_ok && std::isinf(value))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute '", name, "' of ", op, " must be ",
        infinite_ok ? "a number (infinities allowed)" : "finite", ", got ",
        value));
  }
  return value;
}

}  // namespace

const std::vector<AttrSpec>& HardSigmoidAttrs::Specs() {
  static const auto* specs = [] {
    const AttrMap d = HardSigmoidAttrs().ToAttrMap();
    return new std::vector<AttrSpec>{
        {"alpha", AttrType::kFloat, DefaultOf(d, "alpha"),
         "finite; the slope"},
        {"beta", AttrType::kFloat, DefaultOf(d, "beta"),
         "finite; the value at 0"},
    };
  }();
  return *specs;
}

absl::StatusOr<HardSigmoidAttrs> HardSigmoidAttrs::FromAttrMap(
    const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(
      ops_internal::CheckAttrSpecs(Specs(), attrs, "hard_sigmoid"));
  HardSigmoidAttrs a;
  SY_ASSIGN_OR_RETURN(
      a.alpha, GetFiniteFloat(attrs, "hard_sigmoid", "alpha", a.alpha, false));
  SY_ASSIGN_OR_RETURN(
      a.beta, GetFiniteFloat(attrs, "hard_sigmoid", "beta", a.beta, false));
  return a;
}

AttrMap HardSigmoidAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("alpha", alpha);
  attrs.Set("beta", beta);
  return attrs;
}

const std::vector<AttrSpec>& LeakyReluAttrs::Specs() {
  static const auto* specs = [] {
    const AttrMap d = LeakyReluAttrs().ToAttrMap();
    return new std::vector<AttrSpec>{
        {"alpha", AttrType::kFloat, DefaultOf(d, "alpha"),
         "finite; the slope below 0"},
    };
  }();
  return *specs;
}

absl::StatusOr<LeakyReluAttrs> LeakyReluAttrs::FromAttrMap(
    const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(
      ops_internal::CheckAttrSpecs(Specs(), attrs, "leaky_relu"));
  LeakyReluAttrs a;
  SY_ASSIGN_OR_RETURN(
      a.alpha, GetFiniteFloat(attrs, "leaky_relu", "alpha", a.alpha, false));
  return a;
}

AttrMap LeakyReluAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("alpha", alpha);
  return attrs;
}

const std::vector<AttrSpec>& ClipAttrs::Specs() {
  static const auto* specs = [] {
    const AttrMap d = ClipAttrs().ToAttrMap();
    return new std::vector<AttrSpec>{
        {"min", AttrType::kFloat, DefaultOf(d, "min"),
         "not NaN; -inf: no lower bound"},
        {"max", AttrType::kFloat, DefaultOf(d, "max"),
         "not NaN; +inf: no upper bound; wins over min when smaller"},
    };
  }();
  return *specs;
}

absl::StatusOr<ClipAttrs> ClipAttrs::FromAttrMap(const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(ops_internal::CheckAttrSpecs(Specs(), attrs, "clip"));
  ClipAttrs a;
  SY_ASSIGN_OR_RETURN(a.min, GetFiniteFloat(attrs, "clip", "min", a.min, true));
  SY_ASSIGN_OR_RETURN(a.max, GetFiniteFloat(attrs, "clip", "max", a.max, true));
  return a;
}

AttrMap ClipAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("min", min);
  attrs.Set("max", max);
  return attrs;
}

const std::vector<AttrSpec>& CastAttrs::Specs() {
  static const auto* specs = [] {
    const AttrMap d = CastAttrs().ToAttrMap();
    return new std::vector<AttrSpec>{
        {"to", AttrType::kString, DefaultOf(d, "to"),
         "a dtype name: float32, float16, bfloat16, float64, int64, int32, "
         "int8, uint8 or bool"},
    };
  }();
  return *specs;
}

absl::StatusOr<CastAttrs> CastAttrs::FromAttrMap(const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(ops_internal::CheckAttrSpecs(Specs(), attrs, "cast"));
  CastAttrs a;
  if (!attrs.Has("to")) return a;
  SY_ASSIGN_OR_RETURN(std::string name, attrs.GetString("to"));
  absl::StatusOr<DType> to = ParseDType(name);
  if (!to.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'to' of cast: ", to.status().message()));
  }
  a.to = *to;
  return a;
}

AttrMap CastAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("to", DTypeName(to));
  return attrs;
}

}  // namespace switchyard
