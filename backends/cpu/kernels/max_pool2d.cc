// MaxPool2d over NCHW planes; padded positions never win (they are skipped).

#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/cpu/cpu_kernel_registry.h"
#include "core/tensor.h"
#include "ops/pool_attrs.h"

namespace switchyard {
namespace cpu {
namespace {

class MaxPool2dKernel : public Kernel {
 public:
  MaxPool2dKernel(MaxPool2dAttrs attrs, std::shared_ptr<const CpuContext> context)
      : attrs_(attrs), context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Shape& in = inputs[0]->shape();
    const Shape& out = outputs[0]->shape();
    const int64_t planes = in.dim(0) * in.dim(1);
    const int64_t h = in.dim(2), w = in.dim(3), ho = out.dim(2), wo = out.dim(3);
    const float* src = inputs[0]->data<float>();
    float* dst = outputs[0]->data<float>();
    context_->ParallelRange(planes, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const float* plane = src + p * h * w;
        float* result = dst + p * ho * wo;
        for (int64_t oh = 0; oh < ho; ++oh) {
          const int64_t h0 = oh * attrs_.stride_h - attrs_.pad_h;
          for (int64_t ow = 0; ow < wo; ++ow) {
            const int64_t w0 = ow * attrs_.stride_w - attrs_.pad_w;
            float best = -std::numeric_limits<float>::infinity();
            for (int64_t i = 0; i < attrs_.kernel_h; ++i) {
              const int64_t ih = h0 + i * attrs_.dilation_h;
              if (ih < 0 || ih >= h) continue;
              for (int64_t j = 0; j < attrs_.kernel_w; ++j) {
                const int64_t iw = w0 + j * attrs_.dilation_w;
                if (iw < 0 || iw >= w) continue;
                const float v = plane[ih * w + iw];
                // NaN propagates, as in PyTorch.
                if (v > best || std::isnan(v)) best = v;
                if (std::isnan(best)) break;
              }
            }
            result[oh * wo + ow] = best;
          }
        }
      }
    });
    return absl::OkStatus();
  }

 private:
  MaxPool2dAttrs attrs_;
  std::shared_ptr<const CpuContext> context_;
};

[[maybe_unused]] const bool kRegistered = RegisterCpuKernel(
    "max_pool2d", [](const Node& node, const Graph&,
                     std::shared_ptr<const CpuContext> context)
                      -> absl::StatusOr<std::unique_ptr<Kernel>> {
      absl::StatusOr<MaxPool2dAttrs> attrs = ParseMaxPool2dAttrs(node.attrs);
      if (!attrs.ok()) return attrs.status();
      return std::make_unique<MaxPool2dKernel>(*attrs, std::move(context));
    });

}  // namespace
}  // namespace cpu
}  // namespace switchyard
