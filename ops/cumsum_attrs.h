#ifndef SWITCHYARD_OPS_CUMSUM_ATTRS_H_
#define SWITCHYARD_OPS_CUMSUM_ATTRS_H_

// The attributes of cumsum (ONNX CumSum, whose axis is an input the
// importer reads at import time).
//
//   CumSumAttrs a;
//   a.axis = -1;
//   a.exclusive = true;   // y[i] = x[0] + ... + x[i - 1]
//   graph.AddNode("cumsum", "", {x}, a.ToAttrMap());

#include <cstdint>

#include "ops/attr_fields.h"

namespace switchyard {

struct CumSumAttrs {
  SY_ATTR_STRUCT(CumSumAttrs);
  static constexpr const char* kOp = "cumsum";
  int64_t axis = 0;
  bool exclusive = false;  // ONNX's defaults
  bool reverse = false;

  static void DeclareFields(AttrFields<CumSumAttrs>& f) {
    f.Field("axis", &CumSumAttrs::axis)
        .Doc("the dim summed along (negative from the end)");
    f.Field("exclusive", &CumSumAttrs::exclusive)
        .Doc("each sum leaves out its own element");
    f.Field("reverse", &CumSumAttrs::reverse)
        .Doc("sum from the end of the dim towards its start");
  }
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_CUMSUM_ATTRS_H_
