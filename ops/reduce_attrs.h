#ifndef SWITCHYARD_OPS_REDUCE_ATTRS_H_
#define SWITCHYARD_OPS_REDUCE_ATTRS_H_

// The attributes of reduce_mean, reduce_sum, reduce_max and reduce_min (ONNX
// ReduceMean/Sum/Max/Min with the axes as an attribute) as one typed
// struct: the one place that converts them to and from the attribute map,
// and whose defaults are the op schemas'. Checks that need the input's rank
// (an axis in range, no axis twice) are in ops/reduce_geometry.h.
//
//   ReduceAttrs r;
//   r.axes = {-1};
//   r.keepdims = false;
//   graph.AddNode("reduce_mean", "", {x}, r.ToAttrMap());

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/attributes.h"
#include "ops/attr_fields.h"

namespace switchyard {

struct ReduceAttrs {
  SY_ATTR_STRUCT(ReduceAttrs);
  // Errors name the op FromAttrMap(attrs, op) is given; this one otherwise.
  static constexpr const char* kOp = "reduce";
  // The axes to reduce, negative counting from the end; [] (the default)
  // reduces every axis, as ONNX's default.
  std::vector<int64_t> axes;
  bool keepdims = true;  // ONNX's default

  static void DeclareFields(AttrFields<ReduceAttrs>& f) {
    f.Field("axes", &ReduceAttrs::axes)
        .Doc("distinct axes of the input (negative from the end); [] for all");
    f.Field("keepdims", &ReduceAttrs::keepdims)
        .Doc("keep each reduced axis with length 1");
  }
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_REDUCE_ATTRS_H_
