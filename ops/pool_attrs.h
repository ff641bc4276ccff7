#ifndef SWITCHYARD_OPS_POOL_ATTRS_H_
#define SWITCHYARD_OPS_POOL_ATTRS_H_

// The attributes of the pooling ops as typed structs: the one place that
// converts them to and from the attribute map, and whose defaults are the
// op schemas'. Layers, the functional API and every backend's kernels use
// them.
//
//   MaxPool2dAttrs p;
//   p.kernel_h = p.kernel_w = 2;           // stride left {0, 0}: the kernel
//   AttrMap a = p.ToAttrMap();             // kernel_size=[2, 2], stride=[]
//   absl::StatusOr<MaxPool2dAttrs> q = MaxPool2dAttrs::FromAttrMap(a);
//   q->stride_h == 2  // PyTorch's default stride is the kernel size

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attributes.h"
#include "core/op_def.h"

namespace switchyard {

struct MaxPool2dAttrs {
  // "kernel_size", required, each >= 1 (0 here until set).
  int64_t kernel_h = 0, kernel_w = 0;
  // "stride", each >= 1; the attribute's default is [], meaning the kernel
  // size (PyTorch's stride=None), which {0, 0} here stands for. FromAttrMap
  // always gives the stride itself.
  int64_t stride_h = 0, stride_w = 0;
  int64_t pad_h = 0, pad_w = 0;            // "padding", <= kernel / 2
  int64_t dilation_h = 1, dilation_w = 1;  // "dilation", each >= 1
  bool ceil_mode = false;                  // "ceil_mode"

  // A square window, as torch.nn.MaxPool2d(kernel, stride).
  static MaxPool2dAttrs Square(int64_t kernel, int64_t stride);

  // The attribute part of max_pool2d's schema; each default is this
  // struct's.
  static const std::vector<AttrSpec>& Specs();
  // InvalidArgument naming the attribute for a wrong type, a list that is
  // not exactly 2 values, a value out of range (including PyTorch's "pad
  // should be at most half of kernel size"), or an unknown attribute name.
  static absl::StatusOr<MaxPool2dAttrs> FromAttrMap(const AttrMap& attrs);
  // Every attribute; stride {0, 0} becomes [].
  AttrMap ToAttrMap() const;
};

struct AdaptiveAvgPool2dAttrs {
  // "output_size", required, each >= 1 (0 here until set).
  int64_t output_h = 0, output_w = 0;

  static const std::vector<AttrSpec>& Specs();
  static absl::StatusOr<AdaptiveAvgPool2dAttrs> FromAttrMap(
      const AttrMap& attrs);
  AttrMap ToAttrMap() const;
};

// avg_pool2d: ONNX AveragePool (opsets 11 to 18) over NCHW, with padding
// that may differ on each side (ONNX's pads [top, left, bottom, right]).
//
//   AvgPool2dAttrs p;
//   p.kernel_h = p.kernel_w = 3;
//   p.stride_h = p.stride_w = 2;
//   p.pad_bottom = p.pad_right = 1;        // ONNX pads [0, 0, 1, 1]
//   p.ceil_mode = true;
struct AvgPool2dAttrs {
  // "kernel_size", required, each >= 1 (0 here until set).
  int64_t kernel_h = 0, kernel_w = 0;
  // "stride", each >= 1; [] (the attribute's default, {0, 0} here) means
  // the kernel size, as in max_pool2d. FromAttrMap gives the stride itself.
  int64_t stride_h = 0, stride_w = 0;
  // "padding" [top, left, bottom, right], each >= 0 and < the kernel size
  // in its dimension (ONNX Runtime's rule): every window then holds at least
  // one input element.
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  bool ceil_mode = false;  // "ceil_mode"
  // "count_include_pad": divide by the window's size within the padded
  // input (true) or by its number of input elements (false, ONNX's
  // default).
  bool count_include_pad = false;

  static const std::vector<AttrSpec>& Specs();
  // InvalidArgument naming the attribute for a wrong type, a kernel_size or
  // stride that is not 2 positive values, a padding that is not 4 values in
  // [0, kernel), or an unknown attribute name.
  static absl::StatusOr<AvgPool2dAttrs> FromAttrMap(const AttrMap& attrs);
  // Every attribute; stride {0, 0} becomes [].
  AttrMap ToAttrMap() const;
};

// The names kernels have always called; the same as FromAttrMap.
inline absl::StatusOr<MaxPool2dAttrs> ParseMaxPool2dAttrs(
    const AttrMap& attrs) {
  return MaxPool2dAttrs::FromAttrMap(attrs);
}
inline absl::StatusOr<AdaptiveAvgPool2dAttrs> ParseAdaptiveAvgPool2dAttrs(
    const AttrMap& attrs) {
  return AdaptiveAvgPool2dAttrs::FromAttrMap(attrs);
}

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_POOL_ATTRS_H_
