#include "ops/tensor_attrs.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/op_util.h"

namespace switchyard {

using ops_internal::DefaultOf;

const std::vector<AttrSpec>& FlattenAttrs::Specs() {
  static const auto* specs = [] {
    const AttrMap d = FlattenAttrs().ToAttrMap();
    return new std::vector<AttrSpec>{
        {"start_dim", AttrType::kInt, DefaultOf(d, "start_dim"),
         "a dim of the input (negative from the end), not after end_dim"},
        {"end_dim", AttrType::kInt, DefaultOf(d, "end_dim"),
         "a dim of the input (negative from the end)"},
    };
  }();
  return *specs;
}

absl::StatusOr<FlattenAttrs> FlattenAttrs::FromAttrMap(const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(ops_internal::CheckAttrSpecs(Specs(), attrs, "flatten"));
  FlattenAttrs a;
  SY_ASSIGN_OR_RETURN(a.start_dim, attrs.GetInt("start_dim", a.start_dim));
  SY_ASSIGN_OR_RETURN(a.end_dim, attrs.GetInt("end_dim", a.end_dim));
  return a;
}

AttrMap FlattenAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("start_dim", start_dim);
  attrs.Set("end_dim", end_dim);
  return attrs;
}

const std::vector<AttrSpec>& SoftmaxAttrs::Specs() {
  static const auto* specs = new std::vector<AttrSpec>{
      {"dim", AttrType::kInt, std::nullopt,
       "a dim of the input (negative from the end)"},
  };
  return *specs;
}

absl::StatusOr<SoftmaxAttrs> SoftmaxAttrs::FromAttrMap(const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(ops_internal::CheckAttrSpecs(Specs(), attrs, "softmax"));
  SoftmaxAttrs a;
  SY_ASSIGN_OR_RETURN(a.dim, attrs.GetInt("dim"));
  return a;
}

AttrMap SoftmaxAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("dim", dim);
  return attrs;
}

const std::vector<AttrSpec>& DropoutAttrs::Specs() {
  static const auto* specs = [] {
    const AttrMap d = DropoutAttrs().ToAttrMap();
    return new std::vector<AttrSpec>{
        {"p", AttrType::kFloat, DefaultOf(d, "p"),
         "the drop probability, in [0, 1]; unused at inference"},
    };
  }();
  return *specs;
}

absl::StatusOr<DropoutAttrs> DropoutAttrs::FromAttrMap(const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(ops_internal::CheckAttrSpecs(Specs(), attrs, "dropout"));
  DropoutAttrs a;
  SY_ASSIGN_OR_RETURN(a.p, attrs.GetFloat("p", a.p));
  if (!(a.p >= 0.0 && a.p <= 1.0)) {  // also rejects NaN
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'p' must be a probability in [0, 1], got ", a.p));
  }
  return a;
}

AttrMap DropoutAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("p", p);
  return attrs;
}

}  // namespace switchyard
