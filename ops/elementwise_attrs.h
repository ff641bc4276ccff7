#ifndef SWITCHYARD_OPS_ELEMENTWISE_ATTRS_H_
#define SWITCHYARD_OPS_ELEMENTWISE_ATTRS_H_

// The attributes of the elementwise ops that have any (hard_sigmoid,
// leaky_relu, clip, cast) as typed structs: the one place that converts them
// to and from the attribute map, and whose defaults are the op schemas'
// (ONNX's). Kernels read them through FromAttrMap.
//
//   ClipAttrs c;                 // min -inf, max +inf: no bound
//   c.max = 6.0;                 // relu6 with c.min = 0
//   graph.AddNode("clip", "relu6", {x}, c.ToAttrMap());
//   absl::StatusOr<CastAttrs> cast = CastAttrs::FromAttrMap(node.attrs);
//   DType to = cast->to;

#include <limits>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attributes.h"
#include "core/dtype.h"
#include "core/op_def.h"

namespace switchyard {

// hard_sigmoid: max(0, min(1, alpha * x + beta)), as ONNX HardSigmoid.
struct HardSigmoidAttrs {
  double alpha = 0.2;  // "alpha", finite
  double beta = 0.5;   // "beta", finite

  static const std::vector<AttrSpec>& Specs();
  static absl::StatusOr<HardSigmoidAttrs> FromAttrMap(const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

// leaky_relu: x < 0 ? alpha * x : x, as ONNX LeakyRelu.
struct LeakyReluAttrs {
  double alpha = 0.01;  // "alpha", finite

  static const std::vector<AttrSpec>& Specs();
  static absl::StatusOr<LeakyReluAttrs> FromAttrMap(const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

// clip: min(max(x, min), max), as ONNX Clip with constant bounds: when
// min > max every element is max; NaN stays NaN. For integer tensors the
// bounds are rounded inward (min up, max down) to integers.
struct ClipAttrs {
  double min = -std::numeric_limits<double>::infinity();  // "min", not NaN
  double max = std::numeric_limits<double>::infinity();   // "max", not NaN

  static const std::vector<AttrSpec>& Specs();
  static absl::StatusOr<ClipAttrs> FromAttrMap(const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

// cast: each element converted to dtype `to`, as ONNX Cast:
// - floating -> integer truncates toward zero and saturates at the target's
//   range; NaN becomes 0 (C++ leaves both undefined);
// - integer -> narrower integer wraps modulo 2^bits (two's complement, as
//   numpy and ONNX Runtime);
// - anything -> bool: nonzero (NaN included) is true; bool -> number: 0 or 1;
// - to a floating dtype: rounded to nearest even, overflow to +-inf.
struct CastAttrs {
  // "to", spelled as DTypeName prints it (ParseDType's aliases accepted).
  // ONNX requires it; the importer always sets it. Default float32.
  DType to = DType::kFloat32;

  static const std::vector<AttrSpec>& Specs();
  static absl::StatusOr<CastAttrs> FromAttrMap(const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_ELEMENTWISE_ATTRS_H_
