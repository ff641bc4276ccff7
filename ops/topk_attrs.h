#ifndef SWITCHYARD_OPS_TOPK_ATTRS_H_
#define SWITCHYARD_OPS_TOPK_ATTRS_H_

// The attributes of topk (ops/topk.cc) as a typed struct. ONNX TopK's K is
// an input; here it is an attribute, since the output shape depends on it
// (the ONNX importer reads it, from data at run time if need be).
//
//   TopKAttrs a;
//   a.k = 5;
//   graph.AddNodeWithOutputs(TopKAttrs::kOp, "top5", {scores}, a.ToAttrMap(), 2);

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/attributes.h"
#include "ops/attr_fields.h"

namespace switchyard {

struct TopKAttrs {
  SY_ATTR_STRUCT(TopKAttrs);
  static constexpr const char* kOp = "topk";

  int64_t k = 0;
  int64_t axis = -1;
  bool largest = true;
  // The outputs are always sorted (best first); false only allows any order
  // (ONNX), which sorted order satisfies.
  bool sorted = true;

  static void DeclareFields(AttrFields<TopKAttrs>& f) {
    f.Field("k", &TopKAttrs::k).Required().AtLeast(0).Doc(
        "how many elements to keep along the axis");
    f.Field("axis", &TopKAttrs::axis).Doc("the axis; negative counts from the end");
    f.Field("largest", &TopKAttrs::largest).Doc("the largest (else the smallest)");
    f.Field("sorted", &TopKAttrs::sorted).Doc("outputs in order (always true here)");
  }
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_TOPK_ATTRS_H_
