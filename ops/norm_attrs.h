#ifndef SWITCHYARD_OPS_NORM_ATTRS_H_
#define SWITCHYARD_OPS_NORM_ATTRS_H_

// The attributes of the normalization ops as typed structs: the one place
// that converts them to and from the attribute map, and whose defaults are
// the op schemas'. Layers, the functional API and kernels use them.
//
//   BatchNormAttrs b;                      // epsilon 1e-5, PyTorch's
//   absl::StatusOr<BatchNormAttrs> a = BatchNormAttrs::FromAttrMap(node.attrs);
//   const double eps = a->epsilon;

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

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_NORM_ATTRS_H_
