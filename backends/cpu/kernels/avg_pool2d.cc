// AvgPool2d over NCHW planes, in parallel over planes (ONNX AveragePool;
// ops/avg_pool2d.cc). Each window's rows and columns in the input and its
// divisor depend only on the output row or column, so they are computed
// once per kernel (ops/pool_geometry.h AvgPoolSpan), leaving the inner
// loops a plain sum.

#include <vector>

#include "backends/cpu/cpu_device.h"
#include "core/tensor.h"
#include "ops/pool_attrs.h"
#include "ops/pool_geometry.h"

namespace switchyard {
namespace cpu {
namespace {

class AvgPool2dKernel : public Kernel {
 public:
  AvgPool2dKernel(std::vector<PoolSpan> rows, std::vector<PoolSpan> cols,
                  std::shared_ptr<const CpuContext> context)
      : rows_(std::move(rows)),
        cols_(std::move(cols)),
        context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Shape& in = inputs[0]->shape();
    const int64_t planes = in.dim(0) * in.dim(1);
    const int64_t h = in.dim(2), w = in.dim(3);
    const int64_t ho = static_cast<int64_t>(rows_.size());
    const int64_t wo = static_cast<int64_t>(cols_.size());
    const float* src = inputs[0]->data<float>();
    float* dst = outputs[0]->data<float>();
    context_->ParallelRange(planes, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const float* plane = src + p * h * w;
        float* out = dst + p * ho * wo;
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
    });
    return absl::OkStatus();
  }

 private:
  std::vector<PoolSpan> rows_, cols_;  // one per output row, column
  std::shared_ptr<const CpuContext> context_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeAvgPool2d(const Node& node,
                                                      const Graph& graph,
                                                      CpuDevice& device) {
  absl::StatusOr<AvgPool2dAttrs> attrs =
      AvgPool2dAttrs::FromAttrMap(node.attrs);
  if (!attrs.ok()) return attrs.status();
  const AvgPool2dAttrs& a = *attrs;
  const Shape& in = *graph.value(node.inputs[0]).shape;
  const Shape& out = *graph.value(node.outputs[0]).shape;
  std::vector<PoolSpan> rows, cols;
  for (int64_t i = 0; i < out.dim(2); ++i) {
    rows.push_back(AvgPoolSpan(i, in.dim(2), a.kernel_h, a.stride_h, a.pad_top,
                               a.pad_bottom, a.count_include_pad));
  }
  for (int64_t j = 0; j < out.dim(3); ++j) {
    cols.push_back(AvgPoolSpan(j, in.dim(3), a.kernel_w, a.stride_w, a.pad_left,
                               a.pad_right, a.count_include_pad));
  }
  return std::make_unique<AvgPool2dKernel>(std::move(rows), std::move(cols),
                                           device.context());
}

SY_REGISTER_KERNEL(CpuKernels(), "avg_pool2d", DType::kFloat32, &MakeAvgPool2d);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
