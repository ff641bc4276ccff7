#ifndef SWITCHYARD_OPS_CONV_ATTRS_H_
#define SWITCHYARD_OPS_CONV_ATTRS_H_

// The attributes of a conv2d node, parsed and validated once for the op
// definition and for every backend's kernel.
//
//   AttrMap a;
//   a.Set("padding", std::vector<int64_t>{1, 1});
//   absl::StatusOr<Conv2dAttrs> c = ParseConv2dAttrs(a);
//   c->stride_h == 1; c->pad_w == 1; c->groups == 1

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/attributes.h"

namespace switchyard {

struct Conv2dAttrs {
  int64_t stride_h, stride_w;      // "stride", default [1, 1], each >= 1
  int64_t pad_h, pad_w;            // "padding", default [0, 0], each >= 0
  int64_t dilation_h, dilation_w;  // "dilation", default [1, 1], each >= 1
  int64_t groups;                  // "groups", default 1, >= 1
};

// InvalidArgument naming the attribute for a wrong type, a list that is not
// exactly 2 values, a value out of range, or an unknown attribute name.
absl::StatusOr<Conv2dAttrs> ParseConv2dAttrs(const AttrMap& attrs);

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_CONV_ATTRS_H_
