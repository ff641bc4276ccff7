#ifndef SWITCHYARD_OPS_TRILU_ATTRS_H_
#define SWITCHYARD_OPS_TRILU_ATTRS_H_

// The attributes of trilu (ONNX Trilu, whose k is an optional input the
// importer reads at import time).
//
//   TriluAttrs a;
//   a.upper = false;  // keep the lower triangle
//   a.k = -1;         // below the main diagonal only
//   graph.AddNode("trilu", "", {x}, a.ToAttrMap());

#include <cstdint>

#include "ops/attr_fields.h"

namespace switchyard {

struct TriluAttrs {
  SY_ATTR_STRUCT(TriluAttrs);
  static constexpr const char* kOp = "trilu";
  bool upper = true;  // ONNX's defaults
  int64_t k = 0;

  static void DeclareFields(AttrFields<TriluAttrs>& f) {
    f.Field("upper", &TriluAttrs::upper)
        .Doc("keep the upper triangle (else the lower)");
    f.Field("k", &TriluAttrs::k)
        .Doc("the diagonal the triangle starts at (> 0 above the main one)");
  }
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_TRILU_ATTRS_H_
