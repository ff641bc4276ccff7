#ifndef SWITCHYARD_OPS_SOFTMAX_ATTRS_H_
#define SWITCHYARD_OPS_SOFTMAX_ATTRS_H_

// The attributes of softmax and log_softmax as a typed struct
// (ops/attr_fields.h).
//
//   SoftmaxAttrs s;
//   s.dim = -1;
//   graph.AddNode("softmax", "probs", {logits}, s.ToAttrMap());

#include <cstdint>

#include "ops/attr_fields.h"

namespace switchyard {

// softmax and log_softmax, as torch.nn.functional.softmax(input, dim).
struct SoftmaxAttrs {
  SY_ATTR_STRUCT(SoftmaxAttrs);
  static constexpr const char* kOp = "softmax";
  int64_t dim = 0;  // required (0 here until set); negative from the end

  static void DeclareFields(AttrFields<SoftmaxAttrs>& f) {
    f.Field("dim", &SoftmaxAttrs::dim)
        .Required()
        .Doc("a dim of the input (negative from the end)");
  }
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_SOFTMAX_ATTRS_H_
