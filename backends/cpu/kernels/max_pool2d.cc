// MaxPool2d over NCHW planes (pool2d.h walks them). Windows wholly inside
// the input take a branch-free path; padded positions never win.

#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/pool2d.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"
#include "ops/pool_attrs.h"

namespace switchyard {
namespace cpu {
namespace {

class MaxPool2dKernel : public Pool2dKernel {
 public:
  MaxPool2dKernel(MaxPool2dAttrs attrs, const CpuDevice& device)
      : Pool2dKernel(device), attrs_(attrs) {}

 protected:
  void PoolPlane(const float* plane, int64_t h, int64_t w, float* result,
                 int64_t ho, int64_t wo) const override {
    const MaxPool2dAttrs& a = attrs_;
    for (int64_t oh = 0; oh < ho; ++oh) {
      const int64_t h0 = oh * a.stride_h - a.pad_h;
      const bool rows_inside = h0 >= 0 && h0 + (a.kernel_h - 1) * a.dilation_h < h;
      for (int64_t ow = 0; ow < wo; ++ow) {
        const int64_t w0 = ow * a.stride_w - a.pad_w;
        const bool inside =
            rows_inside && w0 >= 0 && w0 + (a.kernel_w - 1) * a.dilation_w < w;
        float best = -std::numeric_limits<float>::infinity();
        bool nan = false;
        if (inside && a.kernel_h == 2 && a.kernel_w == 2 && a.dilation_h == 1 &&
            a.dilation_w == 1) {
          // VGG's 2x2 pool: no bounds checks, no loops.
          const float* r0 = plane + h0 * w + w0;
          const float* r1 = r0 + w;
          best = Max(Max(r0[0], r0[1]), Max(r1[0], r1[1]));
          nan = IsNan(r0[0]) | IsNan(r0[1]) | IsNan(r1[0]) | IsNan(r1[1]);
        } else if (inside) {
          for (int64_t i = 0; i < a.kernel_h; ++i) {
            const float* row = plane + (h0 + i * a.dilation_h) * w + w0;
            for (int64_t j = 0; j < a.kernel_w; ++j) {
              const float v = row[j * a.dilation_w];
              best = Max(best, v);
              nan |= IsNan(v);
            }
          }
        } else {
          // A window over the padding: padded positions never win.
          for (int64_t i = 0; i < a.kernel_h; ++i) {
            const int64_t ih = h0 + i * a.dilation_h;
            if (ih < 0 || ih >= h) continue;
            for (int64_t j = 0; j < a.kernel_w; ++j) {
              const int64_t iw = w0 + j * a.dilation_w;
              if (iw < 0 || iw >= w) continue;
              best = Max(best, plane[ih * w + iw]);
              nan |= IsNan(plane[ih * w + iw]);
            }
          }
        }
        result[oh * wo + ow] = nan ? std::numeric_limits<float>::quiet_NaN() : best;
      }
    }
  }

  // Branch-free on random data (a compare and select, maxss), with NaN
  // tracked on the side: PyTorch's max pooling propagates NaN.
  static float Max(float a, float b) { return a > b ? a : b; }
  static bool IsNan(float v) { return v != v; }

 private:
  MaxPool2dAttrs attrs_;
};

SY_REGISTER_KERNEL(
    CpuKernels(), "max_pool2d", DType::kFloat32,
    &MakeKernelWithAttrs<MaxPool2dKernel, MaxPool2dAttrs, CpuDevice>);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
