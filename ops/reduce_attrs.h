#ifndef SWITCHYARD_OPS_REDUCE_ATTRS_H_
#define SWITCHYARD_OPS_REDUCE_ATTRS_H_

// The attributes of reduce_mean, reduce_sum, reduce_max, reduce_min and
// reduce_prod (ONNX ReduceMean/Sum/Max/Min/Prod with the axes as an
// attribute) as one typed struct: the one place that converts them to and
// from the attribute map, and whose defaults are the op schemas'. Checks that need the input's rank
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

// argmax and argmin (ONNX ArgMax, ArgMin): the index of the largest or
// smallest element along one axis.
//
//   ArgReduceAttrs a;
//   a.axis = -1;
//   a.select_last_index = true;  // ties: the last one
struct ArgReduceAttrs {
  SY_ATTR_STRUCT(ArgReduceAttrs);
  static constexpr const char* kOp = "argmax";
  int64_t axis = 0;  // ONNX's default; negative counts from the end
  bool keepdims = true;
  bool select_last_index = false;

  static void DeclareFields(AttrFields<ArgReduceAttrs>& f) {
    f.Field("axis", &ArgReduceAttrs::axis)
        .Doc("the dim searched (negative from the end)");
    f.Field("keepdims", &ArgReduceAttrs::keepdims)
        .Doc("keep the searched dim with length 1");
    f.Field("select_last_index", &ArgReduceAttrs::select_last_index)
        .Doc("on ties, the last index (else the first)");
  }
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_REDUCE_ATTRS_H_
