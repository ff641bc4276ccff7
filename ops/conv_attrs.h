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
#include "ops/attr_fields.h"

namespace switchyard {

struct Conv2dAttrs {
  SY_ATTR_STRUCT(Conv2dAttrs);
  static constexpr const char* kOp = "conv2d";
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;  // zeros on both sides
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t groups = 1;

  static void DeclareFields(AttrFields<Conv2dAttrs>& f) {
    using A = Conv2dAttrs;
    f.Ints("stride", {&A::stride_h, &A::stride_w}).Window(1);
    f.Ints("padding", {&A::pad_h, &A::pad_w})
        .Window(0)
        .Doc("zeros on both sides");
    f.Ints("dilation", {&A::dilation_h, &A::dilation_w}).Window(1);
    f.Field("groups", &A::groups)
        .AtLeast(1)
        .Doc("dividing the input and output channels");
  }
};

// The name kernels have always called; the same as Conv2dAttrs::FromAttrMap.
inline absl::StatusOr<Conv2dAttrs> ParseConv2dAttrs(const AttrMap& attrs) {
  return Conv2dAttrs::FromAttrMap(attrs);
}

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_CONV_ATTRS_H_
