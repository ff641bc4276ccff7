#ifndef SWITCHYARD_OPS_POOL_ATTRS_H_
#define SWITCHYARD_OPS_POOL_ATTRS_H_

// The attributes of the pooling ops, parsed and validated once for the op
// definitions and for every backend's kernels.
//
//   AttrMap a;
//   a.Set("kernel_size", std::vector<int64_t>{2, 2});
//   absl::StatusOr<MaxPool2dAttrs> p = ParseMaxPool2dAttrs(a);
//   p->stride_h == 2  // PyTorch's default stride is the kernel size

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/attributes.h"

namespace switchyard {

struct MaxPool2dAttrs {
  int64_t kernel_h, kernel_w;      // "kernel_size", required, each >= 1
  int64_t stride_h, stride_w;      // "stride", default kernel_size, each >= 1
  int64_t pad_h, pad_w;            // "padding", default [0, 0], <= kernel/2
  int64_t dilation_h, dilation_w;  // "dilation", default [1, 1], each >= 1
  bool ceil_mode;                  // "ceil_mode", default false
};

// InvalidArgument naming the attribute for a wrong type, a list that is not
// exactly 2 values, a value out of range (including PyTorch's "pad should be
// at most half of kernel size"), or an unknown attribute name.
absl::StatusOr<MaxPool2dAttrs> ParseMaxPool2dAttrs(const AttrMap& attrs);

struct AdaptiveAvgPool2dAttrs {
  int64_t output_h, output_w;  // "output_size", required, each >= 1
};

absl::StatusOr<AdaptiveAvgPool2dAttrs> ParseAdaptiveAvgPool2dAttrs(
    const AttrMap& attrs);

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_POOL_ATTRS_H_
