#ifndef SWITCHYARD_OPS_GEMM_ATTRS_H_
#define SWITCHYARD_OPS_GEMM_ATTRS_H_

// The attributes of gemm (ONNX Gemm) as a typed struct: the one place that
// converts them to and from the attribute map, and whose defaults are the
// op schema's (ONNX's). matmul has no attributes.
//
//   GemmAttrs g;
//   g.trans_b = true;
//   g.beta = 0.5;
//   graph.AddNode("gemm", "", {a, b, c}, g.ToAttrMap());

#include <vector>

#include "absl/status/statusor.h"
#include "core/attributes.h"
#include "ops/attr_fields.h"

namespace switchyard {

// y = alpha * op(a) op(b) + beta * c, op(x) = x or its transpose.
struct GemmAttrs {
  SY_ATTR_STRUCT(GemmAttrs);
  static constexpr const char* kOp = "gemm";
  bool trans_a = false;  // a is stored [K, M]
  bool trans_b = false;  // b is stored [N, K]
  double alpha = 1.0;
  double beta = 1.0;  // 0 leaves c unread (as BLAS)

  static void DeclareFields(AttrFields<GemmAttrs>& f) {
    f.Field("trans_a", &GemmAttrs::trans_a).Doc("a is [K, M] and is used transposed");
    f.Field("trans_b", &GemmAttrs::trans_b).Doc("b is [N, K] and is used transposed");
    f.Field("alpha", &GemmAttrs::alpha).Finite().Doc("scales op(a) op(b)");
    f.Field("beta", &GemmAttrs::beta).Finite().Doc("scales c (0: c is not read)");
  }
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_GEMM_ATTRS_H_
