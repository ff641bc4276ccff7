#ifndef SWITCHYARD_OPS_FLATTEN_ATTRS_H_
#define SWITCHYARD_OPS_FLATTEN_ATTRS_H_

// The attributes of flatten as a typed struct (ops/attr_fields.h).
//
//   FlattenAttrs f;  // torch.flatten's defaults: start_dim 1, end_dim -1
//   graph.AddNode("flatten", "flatten", {x}, f.ToAttrMap());

#include <cstdint>

#include "ops/attr_fields.h"

namespace switchyard {

// flatten, as torch.flatten(input, start_dim, end_dim).
struct FlattenAttrs {
  SY_ATTR_STRUCT(FlattenAttrs);
  static constexpr const char* kOp = "flatten";
  int64_t start_dim = 1;  // negative counts from the end
  int64_t end_dim = -1;   // negative counts from the end

  static void DeclareFields(AttrFields<FlattenAttrs>& f) {
    f.Field("start_dim", &FlattenAttrs::start_dim)
        .Doc("a dim of the input (negative from the end), not after end_dim");
    f.Field("end_dim", &FlattenAttrs::end_dim)
        .Doc("a dim of the input (negative from the end)");
  }
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_FLATTEN_ATTRS_H_
