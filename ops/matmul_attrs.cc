#include "ops/matmul_attrs.h"

#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/op_util.h"

namespace switchyard {

const std::vector<AttrSpec>& GemmAttrs::Specs() {
  static const auto* specs = [] {
    const AttrMap d = GemmAttrs().ToAttrMap();
    using ops_internal::DefaultOf;
    return new std::vector<AttrSpec>{
        {"trans_a", AttrType::kBool, DefaultOf(d, "trans_a"),
         "a is [K, M] and is used transposed"},
        {"trans_b", AttrType::kBool, DefaultOf(d, "trans_b"),
         "b is [N, K] and is used transposed"},
        {"alpha", AttrType::kFloat, DefaultOf(d, "alpha"),
         "finite; scales op(a) op(b)"},
        {"beta", AttrType::kFloat, DefaultOf(d, "beta"),
         "finite; scales c (0: c is not read)"},
    };
  }();
  return *specs;
}

absl::StatusOr<GemmAttrs> GemmAttrs::FromAttrMap(const AttrMap& attrs) {
  SY_RETURN_IF_ERROR(ops_internal::CheckAttrSpecs(Specs(), attrs, "gemm"));
  GemmAttrs g;
  SY_ASSIGN_OR_RETURN(g.trans_a, attrs.GetBool("trans_a", g.trans_a));
  SY_ASSIGN_OR_RETURN(g.trans_b, attrs.GetBool("trans_b", g.trans_b));
  SY_ASSIGN_OR_RETURN(g.alpha, attrs.GetFloat("alpha", g.alpha));
  SY_ASSIGN_OR_RETURN(g.beta, attrs.GetFloat("beta", g.beta));
  for (const auto& [name, value] :
       {std::pair<const char*, double>{"alpha", g.alpha}, {"beta", g.beta}}) {
    if (!std::isfinite(value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("attribute '", name, "' must be finite, got ", value));
    }
  }
  return g;
}

AttrMap GemmAttrs::ToAttrMap() const {
  AttrMap attrs;
  attrs.Set("trans_a", trans_a);
  attrs.Set("trans_b", trans_b);
  attrs.Set("alpha", alpha);
  attrs.Set("beta", beta);
  return attrs;
}

}  // namespace switchyard
