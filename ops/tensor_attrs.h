#ifndef SWITCHYARD_OPS_TENSOR_ATTRS_H_
#define SWITCHYARD_OPS_TENSOR_ATTRS_H_

// The attributes of flatten, softmax and dropout as typed structs: the one
// place that converts them to and from the attribute map, and whose defaults
// are the op schemas'. Checks that need the input's rank (a dim in range)
// stay in the ops' shape inference.
//
//   FlattenAttrs f;                        // start_dim 1, end_dim -1
//   graph.AddNode("flatten", "", {x}, f.ToAttrMap());
//   absl::StatusOr<SoftmaxAttrs> s = SoftmaxAttrs::FromAttrMap(node.attrs);

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attributes.h"
#include "core/op_def.h"

namespace switchyard {

// flatten, as torch.flatten(input, start_dim, end_dim).
struct FlattenAttrs {
  int64_t start_dim = 1;  // "start_dim"; negative counts from the end
  int64_t end_dim = -1;   // "end_dim"; negative counts from the end

  static const std::vector<AttrSpec>& Specs();
  static absl::StatusOr<FlattenAttrs> FromAttrMap(const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

// softmax, as torch.nn.functional.softmax(input, dim).
struct SoftmaxAttrs {
  // "dim", required (0 here until set); negative counts from the end.
  int64_t dim = 0;

  static const std::vector<AttrSpec>& Specs();
  static absl::StatusOr<SoftmaxAttrs> FromAttrMap(const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

// dropout at inference, as torch.nn.functional.dropout(training=False).
struct DropoutAttrs {
  double p = 0.5;  // "p", the drop probability, in [0, 1]

  static const std::vector<AttrSpec>& Specs();
  // Also InvalidArgument for p outside [0, 1] (or NaN).
  static absl::StatusOr<DropoutAttrs> FromAttrMap(const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_TENSOR_ATTRS_H_
