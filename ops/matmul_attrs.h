#ifndef SWITCHYARD_OPS_MATMUL_ATTRS_H_
#define SWITCHYARD_OPS_MATMUL_ATTRS_H_

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
#include "core/op_def.h"

namespace switchyard {

// y = alpha * op(a) op(b) + beta * c, op(x) = x or its transpose.
struct GemmAttrs {
  bool trans_a = false;  // "trans_a": a is stored [K, M]
  bool trans_b = false;  // "trans_b": b is stored [N, K]
  double alpha = 1.0;    // "alpha", finite
  double beta = 1.0;     // "beta", finite; 0 leaves c unread (as BLAS)

  static const std::vector<AttrSpec>& Specs();
  // InvalidArgument for a wrong type, an unknown attribute, or an alpha or
  // beta that is not finite.
  static absl::StatusOr<GemmAttrs> FromAttrMap(const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_MATMUL_ATTRS_H_
