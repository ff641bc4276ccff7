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
#include "ops/attr_fields.h"

namespace switchyard {

struct MaxPool2dAttrs {
  SY_ATTR_STRUCT(MaxPool2dAttrs);
  static constexpr const char* kOp = "max_pool2d";
  int64_t kernel_h = 0, kernel_w = 0;  // required (0 here until set)
  // The attribute's default is [], meaning the kernel size (PyTorch's
  // stride=None), which {0, 0} here stands for. FromAttrMap always gives the
  // stride itself.
  int64_t stride_h = 0, stride_w = 0;
  int64_t pad_h = 0, pad_w = 0;  // <= kernel / 2
  int64_t dilation_h = 1, dilation_w = 1;
  bool ceil_mode = false;

  // A square window, as torch.nn.MaxPool2d(kernel, stride).
  static MaxPool2dAttrs Square(int64_t kernel, int64_t stride);

  static void DeclareFields(AttrFields<MaxPool2dAttrs>& f) {
    using A = MaxPool2dAttrs;
    f.Ints("kernel_size", {&A::kernel_h, &A::kernel_w}).Window(1).Required();
    f.Ints("stride", {&A::stride_h, &A::stride_w})
        .Window(1)
        .EmptyMeansZeros()
        .Doc("[] for the kernel size");
    f.Ints("padding", {&A::pad_h, &A::pad_w})
        .Window(0)
        .Doc("each <= kernel_size / 2");
    f.Ints("dilation", {&A::dilation_h, &A::dilation_w}).Window(1);
    f.Field("ceil_mode", &A::ceil_mode)
        .Doc("ceil instead of floor for the output size");
    f.Finally(&A::Resolve);
  }
  // The stride of [] is the kernel; padding at most half the kernel.
  static absl::Status Resolve(MaxPool2dAttrs& a);
};

struct AdaptiveAvgPool2dAttrs {
  SY_ATTR_STRUCT(AdaptiveAvgPool2dAttrs);
  static constexpr const char* kOp = "adaptive_avg_pool2d";
  int64_t output_h = 0, output_w = 0;  // required (0 here until set)

  static void DeclareFields(AttrFields<AdaptiveAvgPool2dAttrs>& f) {
    using A = AdaptiveAvgPool2dAttrs;
    f.Ints("output_size", {&A::output_h, &A::output_w}).Window(1).Required();
  }
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
  SY_ATTR_STRUCT(AvgPool2dAttrs);
  static constexpr const char* kOp = "avg_pool2d";
  int64_t kernel_h = 0, kernel_w = 0;  // required (0 here until set)
  // [] (the attribute's default, {0, 0} here) means the kernel size, as in
  // max_pool2d. FromAttrMap gives the stride itself.
  int64_t stride_h = 0, stride_w = 0;
  // [top, left, bottom, right], each >= 0 and < the kernel size in its
  // dimension (ONNX Runtime's rule): every window then holds at least one
  // input element.
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  bool ceil_mode = false;
  // Divide by the window's size within the padded input (true) or by its
  // number of input elements (false, ONNX's default).
  bool count_include_pad = false;

  static void DeclareFields(AttrFields<AvgPool2dAttrs>& f) {
    using A = AvgPool2dAttrs;
    f.Ints("kernel_size", {&A::kernel_h, &A::kernel_w}).Window(1).Required();
    f.Ints("stride", {&A::stride_h, &A::stride_w})
        .Window(1)
        .EmptyMeansZeros()
        .Doc("[] for the kernel size");
    f.Ints("padding", {&A::pad_top, &A::pad_left, &A::pad_bottom, &A::pad_right})
        .Names("top, left, bottom, right")
        .Doc("each >= 0 and < kernel_size");
    f.Field("ceil_mode", &A::ceil_mode)
        .Doc("ceil instead of floor for the output size");
    f.Field("count_include_pad", &A::count_include_pad)
        .Doc("divide by the window size including padding");
    f.Finally(&A::Resolve);
  }
  // The stride of [] is the kernel; each pad smaller than the kernel.
  static absl::Status Resolve(AvgPool2dAttrs& a);
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
