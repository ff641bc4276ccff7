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
#include "core/op_def.h"

namespace switchyard {

// batch_norm at inference, as torch.nn.functional.batch_norm(training=False).
struct BatchNormAttrs {
  double epsilon = 1e-5;  // "epsilon", > 0 and finite

  static const std::vector<AttrSpec>& Specs();
  // InvalidArgument for a wrong type, an unknown attribute, or an epsilon
  // that is not positive and finite.
  static absl::StatusOr<BatchNormAttrs> FromAttrMap(const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

// layer_norm, as ONNX LayerNormalization (opset 17, the Y output): each
// slice input[i0, ..., i(axis-1), :, ..., :] is normalized to mean 0 and
// variance 1 (biased), then scaled and shifted elementwise.
struct LayerNormAttrs {
  // "axis": the first normalized dimension; negative counts from the end.
  // Checked against the input's rank in shape inference.
  int64_t axis = -1;
  double epsilon = 1e-5;  // "epsilon", >= 0 and finite (ONNX's default)

  static const std::vector<AttrSpec>& Specs();
  // InvalidArgument for a wrong type, an unknown attribute, or an epsilon
  // that is negative or not finite.
  static absl::StatusOr<LayerNormAttrs> FromAttrMap(const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_NORM_ATTRS_H_
