// AdaptiveAvgPool2d: output cell (i, j) averages input rows
// [floor(i*H/OH), ceil((i+1)*H/OH)) and the same rule for columns
// (ops/pool_geometry.h AdaptiveStart, AdaptiveEnd), windows drawn once per
// kernel and averaged by AvgPoolWindowsKernel (pool2d.h).

#include <memory>
#include <vector>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/pool2d.h"
#include "core/kernel_registry.h"
#include "ops/pool_geometry.h"

namespace switchyard {
namespace cpu {
namespace {

// The windows of `out` outputs over `in` inputs along one dimension.
std::vector<PoolSpan> AdaptiveSpans(int64_t in, int64_t out) {
  std::vector<PoolSpan> spans;
  for (int64_t i = 0; i < out; ++i) {
    const int64_t begin = AdaptiveStart(i, in, out), end = AdaptiveEnd(i, in, out);
    spans.push_back({begin, end, end - begin});
  }
  return spans;
}

absl::StatusOr<std::unique_ptr<Kernel>> MakeAdaptiveAvgPool2d(
    const Node& node, const Graph& graph, CpuDevice& device) {
  const Shape& in = *graph.value(node.inputs[0]).shape;
  const Shape& out = *graph.value(node.outputs[0]).shape;
  return std::make_unique<AvgPoolWindowsKernel>(
      AdaptiveSpans(in.dim(2), out.dim(2)), AdaptiveSpans(in.dim(3), out.dim(3)),
      device);
}

SY_REGISTER_KERNEL(CpuKernels(), "adaptive_avg_pool2d", DType::kFloat32,
                   &MakeAdaptiveAvgPool2d);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
