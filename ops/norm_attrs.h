#ifndef SWITCHYARD_OPS_NORM_ATTRS_H_
#define SWITCHYARD_OPS_NORM_ATTRS_H_

// The attributes of the normalization ops as typed structs: the one place
// that converts them to and from the attribute map, and whose defaults are
// the op schemas'. Layers, the functional API and kernels use them.
//
//   BatchNormAttrs b;                      // epsilon 1e-5, PyTorch's
//   absl::StatusOr<BatchNormAttrs> a = BatchNormAttrs::FromAttrMap(node.attrs);
//   const double eps = a->epsilon;

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attributes.h"
#include "ops/attr_fields.h"

namespace switchyard {

// batch_norm at inference, as torch.nn.functional.batch_norm(training=False).
struct BatchNormAttrs {
  SY_ATTR_STRUCT(BatchNormAttrs);
  static constexpr const char* kOp = "batch_norm";
  double epsilon = 1e-5;

  static void DeclareFields(AttrFields<BatchNormAttrs>& f) {
    // A zero epsilon divides by zero for a channel of zero variance.
    f.Field("epsilon", &BatchNormAttrs::epsilon)
        .Check([](double e) { return e > 0 && std::isfinite(e); },
               "> 0 and finite", " (PyTorch's default is 1e-5)")
        .Doc("added to the variance");
  }
};

// layer_norm, as ONNX LayerNormalization (opset 17, the Y output): each
// slice input[i0, ..., i(axis-1), :, ..., :] is normalized to mean 0 and
// variance 1 (biased), then scaled and shifted elementwise.
struct LayerNormAttrs {
  SY_ATTR_STRUCT(LayerNormAttrs);
  static constexpr const char* kOp = "layer_norm";
  // Checked against the input's rank in shape inference.
  int64_t axis = -1;
  double epsilon = 1e-5;

  static void DeclareFields(AttrFields<LayerNormAttrs>& f) {
    f.Field("axis", &LayerNormAttrs::axis)
        .Doc("the first normalized dimension (negative from the end)");
    // Zero is allowed (ONNX allows it; a constant slice then divides by 0).
    f.Field("epsilon", &LayerNormAttrs::epsilon)
        .Check([](double e) { return e >= 0 && std::isfinite(e); },
               ">= 0 and finite", " (ONNX's default is 1e-5)")
        .Doc("added to the variance");
  }
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_NORM_ATTRS_H_
