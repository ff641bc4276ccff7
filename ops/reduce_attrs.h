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
#include "core/op_def.h"

namespace switchyard {

struct ReduceAttrs {
  // "axes": the axes to reduce, negative counting from the end; [] (the
  // default) reduces every axis, as ONNX's default.
  std::vector<int64_t> axes;
  // "keepdims": keep each reduced axis with length 1 (ONNX's default).
  bool keepdims = true;

  static const std::vector<AttrSpec>& Specs();
  // InvalidArgument for a wrong type or an unknown attribute; `op` names
  // the op in messages.
  static absl::StatusOr<ReduceAttrs> FromAttrMap(
      const AttrMap& attrs, absl::string_view op = "reduce_mean");
  AttrMap ToAttrMap() const;
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_REDUCE_ATTRS_H_
