#ifndef SWITCHYARD_OPS_CONV_TRANSPOSE_ATTRS_H_
#define SWITCHYARD_OPS_CONV_TRANSPOSE_ATTRS_H_

// The attributes of conv_transpose2d (ONNX ConvTranspose, PyTorch's
// ConvTranspose2d): the gradient of conv2d with respect to its input, as
// upsampling layers use it (Mask R-CNN's mask head, FCN-style decoders).
//
//   ConvTranspose2dAttrs a;
//   a.stride_h = a.stride_w = 2;     // a 2x2 kernel of stride 2 doubles H, W
//   graph.AddNode("conv_transpose2d", "mask_head.0", {x, w, b}, a.ToAttrMap());

#include <cstdint>

#include "ops/attr_fields.h"

namespace switchyard {

struct ConvTranspose2dAttrs {
  SY_ATTR_STRUCT(ConvTranspose2dAttrs);
  static constexpr const char* kOp = "conv_transpose2d";
  int64_t stride_h = 1, stride_w = 1;
  // Rows and columns removed from each side of the full output.
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int64_t dilation_h = 1, dilation_w = 1;
  // Rows and columns added at the bottom and right (below the stride).
  int64_t output_padding_h = 0, output_padding_w = 0;
  int64_t groups = 1;

  static void DeclareFields(AttrFields<ConvTranspose2dAttrs>& f) {
    using A = ConvTranspose2dAttrs;
    f.Ints("stride", {&A::stride_h, &A::stride_w}).Window(1);
    f.Ints("padding", {&A::pad_top, &A::pad_left, &A::pad_bottom, &A::pad_right})
        .Window(0)
        .Doc("removed from the output's top, left, bottom and right");
    f.Ints("dilation", {&A::dilation_h, &A::dilation_w}).Window(1);
    f.Ints("output_padding", {&A::output_padding_h, &A::output_padding_w})
        .Window(0)
        .Doc("added to the output's bottom and right; less than the stride or the dilation");
    f.Field("groups", &A::groups).AtLeast(1).Doc("dividing the input and output channels");
  }
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_CONV_TRANSPOSE_ATTRS_H_
