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
#include "ops/attr_fields.h"

namespace switchyard {

// hard_sigmoid: max(0, min(1, alpha * x + beta)), as ONNX HardSigmoid.
struct HardSigmoidAttrs {
  SY_ATTR_STRUCT(HardSigmoidAttrs);
  static constexpr const char* kOp = "hard_sigmoid";
  double alpha = 0.2;
  double beta = 0.5;

  static void DeclareFields(AttrFields<HardSigmoidAttrs>& f) {
    f.Field("alpha", &HardSigmoidAttrs::alpha).Finite().Doc("the slope");
    f.Field("beta", &HardSigmoidAttrs::beta).Finite().Doc("the value at 0");
  }
};

// leaky_relu: x < 0 ? alpha * x : x, as ONNX LeakyRelu.
struct LeakyReluAttrs {
  SY_ATTR_STRUCT(LeakyReluAttrs);
  static constexpr const char* kOp = "leaky_relu";
  double alpha = 0.01;

  static void DeclareFields(AttrFields<LeakyReluAttrs>& f) {
    f.Field("alpha", &LeakyReluAttrs::alpha).Finite().Doc("the slope below 0");
  }
};

// clip: min(max(x, min), max), as ONNX Clip with constant bounds: when
// min > max every element is max; NaN stays NaN. For integer tensors the
// bounds are rounded inward (min up, max down) to integers.
struct ClipAttrs {
  SY_ATTR_STRUCT(ClipAttrs);
  static constexpr const char* kOp = "clip";
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();

  static void DeclareFields(AttrFields<ClipAttrs>& f) {
    f.Field("min", &ClipAttrs::min).NotNaN().Doc("-inf: no lower bound");
    f.Field("max", &ClipAttrs::max)
        .NotNaN()
        .Doc("+inf: no upper bound; wins over min when smaller");
  }
};

// mod: the remainder of a / b, as ONNX Mod. fmod 0 gives the divisor's sign
// (Python's %, numpy.mod; ONNX allows it for integers only, here floating
// types follow numpy); fmod 1 gives the dividend's (C's fmod). Integer
// modulo by zero is a run-time error.
struct ModAttrs {
  SY_ATTR_STRUCT(ModAttrs);
  static constexpr const char* kOp = "mod";
  int64_t fmod = 0;

  static void DeclareFields(AttrFields<ModAttrs>& f) {
    f.Field("fmod", &ModAttrs::fmod)
        .Check([](int64_t v) { return v == 0 || v == 1; }, "0 or 1")
        .Doc("0: the result has the divisor's sign; 1: the dividend's");
  }
};

// cast: each element converted to dtype `to`, as ONNX Cast:
// - floating -> integer truncates toward zero and saturates at the target's
//   range; NaN becomes 0 (C++ leaves both undefined);
// - integer -> narrower integer wraps modulo 2^bits (two's complement, as
//   numpy and ONNX Runtime);
// - anything -> bool: nonzero (NaN included) is true; bool -> number: 0 or 1;
// - to a floating dtype: rounded to nearest even, overflow to +-inf;
// - to a float8 dtype: rounded to nearest even; out of range (infinity
//   too) becomes the largest finite value when `saturate`, else infinity
//   where the type has one and NaN where it has not (ONNX Cast-19);
// - to int4 or uint4: floating values round to nearest (ties to even, as
//   ONNX's int4 specification says) and, like integers, saturate to the
//   4-bit range (as ONNX Runtime does).
struct CastAttrs {
  SY_ATTR_STRUCT(CastAttrs);
  static constexpr const char* kOp = "cast";
  // ONNX requires it; the importer always sets it.
  DType to = DType::kFloat32;
  bool saturate = true;

  static void DeclareFields(AttrFields<CastAttrs>& f) {
    f.Field("to", &CastAttrs::to)
        .Doc("a dtype name (float32, float16, bfloat16, float64, int64, "
             "int32, int16, int8, int4, uint16, uint8, uint4, bool, "
             "float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz)");
    f.Field("saturate", &CastAttrs::saturate)
        .Doc("to a float8 dtype: out-of-range values become the largest "
             "finite value (true) or infinity/NaN (false)");
  }
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_ELEMENTWISE_ATTRS_H_
