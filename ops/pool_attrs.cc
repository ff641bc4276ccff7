#include "ops/pool_attrs.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace switchyard {

MaxPool2dAttrs MaxPool2dAttrs::Square(int64_t kernel, int64_t stride) {
  MaxPool2dAttrs a;
  a.kernel_h = a.kernel_w = kernel;
  a.stride_h = a.stride_w = stride;
  return a;
}

absl::Status MaxPool2dAttrs::Resolve(MaxPool2dAttrs& a) {
  if (a.stride_h == 0 && a.stride_w == 0) {
    a.stride_h = a.kernel_h;
    a.stride_w = a.kernel_w;
  }
  // PyTorch: "pad should be smaller than or equal to half of kernel size".
  // A window made only of padding would have no element to take the max of.
  if (a.pad_h > a.kernel_h / 2 || a.pad_w > a.kernel_w / 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'padding' [", a.pad_h, ", ", a.pad_w,
        "] must be at most half of 'kernel_size' [", a.kernel_h, ", ",
        a.kernel_w,
        "] in each dimension (pad <= kernel_size / 2, as in PyTorch)"));
  }
  return absl::OkStatus();
}

absl::Status AvgPool2dAttrs::Resolve(AvgPool2dAttrs& a) {
  if (a.stride_h == 0 && a.stride_w == 0) {
    a.stride_h = a.kernel_h;
    a.stride_w = a.kernel_w;
  }
  // A pad of a whole kernel or more would allow a window made only of
  // padding, with no element to average (ONNX Runtime rejects it too).
  const bool in_range = a.pad_top >= 0 && a.pad_left >= 0 &&
                        a.pad_bottom >= 0 && a.pad_right >= 0 &&
                        a.pad_top < a.kernel_h && a.pad_bottom < a.kernel_h &&
                        a.pad_left < a.kernel_w && a.pad_right < a.kernel_w;
  if (!in_range) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'padding' must have 4 values (top, left, bottom, right), "
        "each >= 0 and smaller than 'kernel_size' [",
        a.kernel_h, ", ", a.kernel_w, "] in its dimension, got [", a.pad_top,
        ", ", a.pad_left, ", ", a.pad_bottom, ", ", a.pad_right, "]"));
  }
  return absl::OkStatus();
}

}  // namespace switchyard
