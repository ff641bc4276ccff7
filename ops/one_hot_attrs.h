#ifndef SWITCHYARD_OPS_ONE_HOT_ATTRS_H_
#define SWITCHYARD_OPS_ONE_HOT_ATTRS_H_

// The attributes of one_hot (ONNX OneHot, whose depth is an input the
// importer reads at import time: it sets the output's shape).
//
//   OneHotAttrs a;
//   a.depth = 10;
//   a.axis = -1;  // the new dim goes last
//   graph.AddNode("one_hot", "", {indices, values}, a.ToAttrMap());

#include <cstdint>

#include "ops/attr_fields.h"

namespace switchyard {

// The largest depth: far beyond any class count, and it keeps the output's
// element count clear of int64 overflow for any sane indices.
inline constexpr int64_t kMaxOneHotDepth = int64_t{1} << 31;

struct OneHotAttrs {
  SY_ATTR_STRUCT(OneHotAttrs);
  static constexpr const char* kOp = "one_hot";
  int64_t depth = 0;  // required
  int64_t axis = -1;  // ONNX's default: the new dim goes last

  static void DeclareFields(AttrFields<OneHotAttrs>& f) {
    f.Field("depth", &OneHotAttrs::depth)
        .Required()
        .InRange(1, kMaxOneHotDepth)
        .Doc("the number of classes: the new dim's length");
    f.Field("axis", &OneHotAttrs::axis)
        .Doc("where the new dim goes in the output (negative from the end)");
  }
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_ONE_HOT_ATTRS_H_
