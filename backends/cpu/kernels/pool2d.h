#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_POOL2D_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_POOL2D_H_

// What the CPU's float32 NCHW pooling kernels share: the walk over the
// [N*C] planes, in parallel over planes (Pool2dKernel), and the mean over
// windows fixed when the kernel is built, which avg_pool2d and
// adaptive_avg_pool2d both are (AvgPoolWindowsKernel: only how the windows
// are drawn differs).
//
//   class MaxPool2dKernel : public Pool2dKernel {
//     void PoolPlane(const float* plane, int64_t h, int64_t w, float* out,
//                    int64_t ho, int64_t wo) const override { ... }
//   };

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "backends/cpu/cpu_device.h"
#include "core/backend.h"
#include "core/tensor.h"
#include "ops/pool_geometry.h"

namespace switchyard {
namespace cpu {

class Pool2dKernel : public Kernel {
 public:
  explicit Pool2dKernel(const CpuDevice& device)
      : context_(device.context()) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) final {
    const Shape& in = inputs[0]->shape();
    const Shape& out = outputs[0]->shape();
    const int64_t planes = in.dim(0) * in.dim(1);
    const int64_t h = in.dim(2), w = in.dim(3), ho = out.dim(2), wo = out.dim(3);
    const float* src = inputs[0]->data<float>();
    float* dst = outputs[0]->data<float>();
    context_->ParallelRange(planes, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        PoolPlane(src + p * h * w, h, w, dst + p * ho * wo, ho, wo);
      }
    });
    return absl::OkStatus();
  }

 protected:
  // One [h, w] input plane into its [ho, wo] output plane.
  virtual void PoolPlane(const float* plane, int64_t h, int64_t w,
                         float* out, int64_t ho, int64_t wo) const = 0;

 private:
  std::shared_ptr<const CpuContext> context_;
};

// Output cell (i, j) is the mean of the input's rows rows[i] and columns
// cols[j] (each a PoolSpan: [begin, end) and the divisor's extent).
class AvgPoolWindowsKernel : public Pool2dKernel {
 public:
  AvgPoolWindowsKernel(std::vector<PoolSpan> rows, std::vector<PoolSpan> cols,
                       const CpuDevice& device)
      : Pool2dKernel(device), rows_(std::move(rows)), cols_(std::move(cols)) {}

 protected:
  void PoolPlane(const float* plane, int64_t, int64_t w, float* out,
                 int64_t ho, int64_t wo) const override {
    for (int64_t oh = 0; oh < ho; ++oh) {
      const PoolSpan& r = rows_[oh];
      for (int64_t ow = 0; ow < wo; ++ow) {
        const PoolSpan& c = cols_[ow];
        float sum = 0;
        for (int64_t y = r.begin; y < r.end; ++y) {
          const float* row = plane + y * w;
          for (int64_t x = c.begin; x < c.end; ++x) sum += row[x];
        }
        out[oh * wo + ow] = sum / static_cast<float>(r.extent * c.extent);
      }
    }
  }

 private:
  std::vector<PoolSpan> rows_, cols_;  // one per output row, column
};

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_POOL2D_H_
