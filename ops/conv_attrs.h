#ifndef SWITCHYARD_OPS_CONV_ATTRS_H_
#define SWITCHYARD_OPS_CONV_ATTRS_H_

// The attributes of a conv2d node as a typed struct: the one place that
// converts them to and from the attribute map, and whose defaults are the
// op schema's. Layers (models/conv2d.h), the functional API, the fuzzer and
// every backend's kernel use it.
//
//   Conv2dAttrs c;                        // PyTorch's defaults
//   c.pad_h = c.pad_w = 1;
//   graph.AddNode("conv2d", "features.0", {x, w, b}, c.ToAttrMap());
//   ...
//   absl::StatusOr<Conv2dAttrs> a = Conv2dAttrs::FromAttrMap(node.attrs);
//   a->stride_h == 1; a->pad_w == 1; a->groups == 1

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attributes.h"
#include "core/op_def.h"

namespace switchyard {

struct Conv2dAttrs {
  int64_t stride_h = 1, stride_w = 1;      // "stride", each >= 1
  int64_t pad_h = 0, pad_w = 0;            // "padding", each >= 0
  int64_t dilation_h = 1, dilation_w = 1;  // "dilation", each >= 1
  int64_t groups = 1;                      // "groups", >= 1

  // The attribute part of conv2d's schema; each default is this struct's.
  static const std::vector<AttrSpec>& Specs();
  // InvalidArgument naming the attribute for a wrong type, a list that is
  // not exactly 2 values, a value out of range, or an unknown attribute
  // name. Absent attributes take the defaults above.
  static absl::StatusOr<Conv2dAttrs> FromAttrMap(const AttrMap& attrs);
  // Every attribute, defaults included.
  AttrMap ToAttrMap() const;
};

// The name kernels have always called; the same as Conv2dAttrs::FromAttrMap.
inline absl::StatusOr<Conv2dAttrs> ParseConv2dAttrs(const AttrMap& attrs) {
  return Conv2dAttrs::FromAttrMap(attrs);
}

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_CONV_ATTRS_H_
