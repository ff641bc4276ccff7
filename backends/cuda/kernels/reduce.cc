// reduce_sum, reduce_mean, reduce_max, reduce_min, reduce_prod in float32
// (kernels/reduce.cu): the passes of ops/reduce_geometry.h, each a launch;
// the intermediate results go to scratch the kernel allocates once (two
// buffers, ping-pong). The mean divides on its last pass. Nothing to reduce: a device-to-device copy.
// A pass with few outputs and a long reduced length runs in two stages
// (reduce_plan.h) through a third scratch buffer of partial results.
//
// The scratch belongs to the kernel and is reused on every Run: safe because
// ExecutablePlan::Run serialises runs of a plan (run_mu_) and a device has
// one stream, so no two launches of this kernel overlap.

#include <algorithm>
#include <vector>

#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/reduce.cuh"
#include "backends/cuda/reduce_plan.h"
#include "ops/reduce_attrs.h"
#include "ops/reduce_geometry.h"

namespace switchyard {
namespace cuda {
namespace {

class ReduceKernel : public Kernel {
 public:
  ReduceKernel(CudaDevice& device, kernels::ReduceKind kind, float divisor,
               std::vector<ReducePass> passes, std::vector<ReduceSplit> splits,
               std::shared_ptr<Buffer> scratch[2],
               std::shared_ptr<Buffer> partial)
      : device_(device),
        kind_(kind),
        divisor_(divisor),
        passes_(std::move(passes)),
        splits_(std::move(splits)),
        scratch_{scratch[0], scratch[1]},
        partial_(std::move(partial)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    SY_RETURN_IF_ERROR(device_.Activate());
    const float* src = inputs[0]->data<float>();
    float* dst = outputs[0]->data<float>();
    if (passes_.empty()) {
      const size_t bytes = outputs[0]->size_bytes();
      if (bytes == 0) return absl::OkStatus();
      SY_CUDA_RETURN_IF_ERROR(
          cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice,
                          device_.stream()),
          device_.name());
      return absl::OkStatus();
    }
    for (size_t i = 0; i < passes_.size(); ++i) {
      const ReducePass& p = passes_[i];
      const bool last = i + 1 == passes_.size();
      const ReduceSplit& split = splits_[i];
      float* to = last ? dst : static_cast<float*>(scratch_[i % 2]->data());
      float* partial =
          split.two_stage() ? static_cast<float*>(partial_->data()) : nullptr;
      SY_CUDA_RETURN_IF_ERROR(
          kernels::LaunchReducePass(kind_, src, to, p.outer, p.n, p.inner,
                                    last ? divisor_ : 1.0f, split.chunks,
                                    split.chunk_length, partial,
                                    device_.stream()),
          device_.name());
      src = to;
    }
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  kernels::ReduceKind kind_;
  float divisor_;
  std::vector<ReducePass> passes_;
  std::vector<ReduceSplit> splits_;  // one per pass
  std::shared_ptr<Buffer> scratch_[2];
  std::shared_ptr<Buffer> partial_;  // null when no pass has two stages
};

template <kernels::ReduceKind kKind, bool kMean>
absl::StatusOr<std::unique_ptr<Kernel>> MakeReduce(const Node& node,
                                                   const Graph& graph,
                                                   CudaDevice& device) {
  SY_ASSIGN_OR_RETURN(ReduceAttrs attrs,
                      ReduceAttrs::FromAttrMap(node.attrs, node.op));
  const Shape& in = *graph.value(node.inputs[0]).shape;
  SY_ASSIGN_OR_RETURN(std::vector<bool> reduced, ReducedAxes(attrs.axes, in));
  std::vector<ReducePass> passes = ReducePasses(in, reduced);
  // Scratch for every pass but the last, alternating between two buffers.
  size_t bytes[2] = {0, 0};
  for (size_t i = 0; i + 1 < passes.size(); ++i) {
    bytes[i % 2] = std::max(
        bytes[i % 2],
        static_cast<size_t>(passes[i].outer * passes[i].inner) * sizeof(float));
  }
  std::shared_ptr<Buffer> scratch[2];
  for (int i = 0; i < 2; ++i) {
    if (bytes[i] > 0) {
      SY_ASSIGN_OR_RETURN(scratch[i], device.Allocate(bytes[i]));
    }
  }
  // The partial results of two-stage passes; passes run one after another,
  // so one buffer of the largest serves them all.
  std::vector<ReduceSplit> splits;
  int64_t partial_elements = 0;
  for (const ReducePass& p : passes) {
    splits.push_back(PlanReduceSplit(p.outer, p.n, p.inner));
    partial_elements = std::max(
        partial_elements, PartialElements(p.outer, splits.back(), p.inner));
  }
  std::shared_ptr<Buffer> partial;
  if (partial_elements > 0) {
    SY_ASSIGN_OR_RETURN(partial,
                        device.Allocate(static_cast<size_t>(partial_elements) *
                                        sizeof(float)));
  }
  const float divisor =
      kMean ? static_cast<float>(ReducedCount(in, reduced)) : 1.0f;
  return std::make_unique<ReduceKernel>(device, kKind, divisor,
                                        std::move(passes), std::move(splits),
                                        scratch, std::move(partial));
}

SY_REGISTER_KERNEL(CudaKernels(), "reduce_sum", DType::kFloat32,
                   &MakeReduce<kernels::ReduceKind::kSum, false>);
SY_REGISTER_KERNEL(CudaKernels(), "reduce_mean", DType::kFloat32,
                   &MakeReduce<kernels::ReduceKind::kSum, true>);
SY_REGISTER_KERNEL(CudaKernels(), "reduce_max", DType::kFloat32,
                   &MakeReduce<kernels::ReduceKind::kMax, false>);
SY_REGISTER_KERNEL(CudaKernels(), "reduce_min", DType::kFloat32,
                   &MakeReduce<kernels::ReduceKind::kMin, false>);
SY_REGISTER_KERNEL(CudaKernels(), "reduce_prod", DType::kFloat32,
                   &MakeReduce<kernels::ReduceKind::kProd, false>);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
