// AvgPool2d over NCHW planes (ONNX AveragePool; ops/avg_pool2d.cc). Each
// window's rows and columns in the input and its divisor depend only on the
// output row or column, so they are computed once per kernel
// (ops/pool_geometry.h AvgPoolSpan) and AvgPoolWindowsKernel (pool2d.h)
// sums them.

#include <memory>
#include <utility>
#include <vector>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/pool2d.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"
#include "ops/pool_attrs.h"
#include "ops/pool_geometry.h"

namespace switchyard {
namespace cpu {
namespace {

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
  // An empty output is never run (the executor skips nodes whose outputs
  // are all empty), and its other dims may be huge ([0, C, 2^28, W]): no
  // spans then.
  if (out.num_elements() == 0) {
    return std::make_unique<AvgPoolWindowsKernel>(std::move(rows), std::move(cols), device);
  }
  for (int64_t i = 0; i < out.dim(2); ++i) {
    rows.push_back(AvgPoolSpan(i, in.dim(2), a.kernel_h, a.stride_h, a.pad_top,
                               a.pad_bottom, a.count_include_pad));
  }
  for (int64_t j = 0; j < out.dim(3); ++j) {
    cols.push_back(AvgPoolSpan(j, in.dim(3), a.kernel_w, a.stride_w, a.pad_left,
                               a.pad_right, a.count_include_pad));
  }
  return std::make_unique<AvgPoolWindowsKernel>(std::move(rows),
                                                std::move(cols), device);
}

SY_REGISTER_KERNEL(CpuKernels(), "avg_pool2d", DType::kFloat32, &MakeAvgPool2d);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
