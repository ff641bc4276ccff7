// Softmax and LogSoftmax along one dimension (softmax.cu): one launch over
// the input as [outer, n, inner], n the wrapped dim's length, fixed when
// the kernel is made. Few long rows (inner == 1): two launches over fixed
// chunks of each row (reduce_plan.h), through chunk statistics in scratch
// the kernel owns (reused on every Run: runs of a plan are serialised and a
// device has one stream).

#include <cstdint>
#include <memory>
#include <utility>

#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/softmax.cuh"
#include "backends/cuda/reduce_plan.h"
#include "ops/softmax_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

using SoftmaxLauncher = cudaError_t (*)(const float*, float*, int64_t,
                                        int64_t, int64_t, int64_t, int64_t,
                                        float*, cudaStream_t);

template <SoftmaxLauncher Launch>
class SoftmaxKernel : public Kernel {
 public:
  SoftmaxKernel(CudaDevice& device, int64_t outer, int64_t n, int64_t inner,
                ReduceSplit split, std::shared_ptr<Buffer> partial)
      : device_(device),
        outer_(outer),
        n_(n),
        inner_(inner),
        split_(split),
        partial_(std::move(partial)) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        Launch(inputs[0]->data<float>(), outputs[0]->data<float>(), outer_, n_,
               inner_, split_.chunks, split_.chunk_length,
               partial_ ? static_cast<float*>(partial_->data()) : nullptr,
               device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  int64_t outer_, n_, inner_;
  ReduceSplit split_;
  std::shared_ptr<Buffer> partial_;  // null for one launch
};

template <SoftmaxLauncher Launch>
absl::StatusOr<std::unique_ptr<Kernel>> MakeSoftmax(const Node& node,
                                                    const Graph& graph,
                                                    CudaDevice& device) {
  SY_ASSIGN_OR_RETURN(SoftmaxAttrs attrs,
                      SoftmaxAttrs::FromAttrMap(node.attrs));
  const Shape& shape = *graph.value(node.inputs[0]).shape;
  const int rank = shape.rank();
  const int dim =
      static_cast<int>(attrs.dim < 0 ? attrs.dim + rank : attrs.dim);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < dim; ++d) outer *= shape.dim(d);
  for (int d = dim + 1; d < rank; ++d) inner *= shape.dim(d);
  const int64_t n = shape.dim(dim);
  // Only rows split: a column softmax keeps one thread per column.
  const ReduceSplit split =
      inner == 1 ? PlanReduceSplit(outer, n, inner) : ReduceSplit{1, n};
  std::shared_ptr<Buffer> partial;
  if (split.two_stage()) {
    SY_ASSIGN_OR_RETURN(
        partial, device.Allocate(static_cast<size_t>(
                                     2 * PartialElements(outer, split, 1)) *
                                 sizeof(float)));
  }
  return std::make_unique<SoftmaxKernel<Launch>>(device, outer, n, inner,
                                                 split, std::move(partial));
}

SY_REGISTER_KERNEL(CudaKernels(), "softmax", DType::kFloat32,
                   &MakeSoftmax<&kernels::LaunchSoftmax>);
SY_REGISTER_KERNEL(CudaKernels(), "log_softmax", DType::kFloat32,
                   &MakeSoftmax<&kernels::LaunchLogSoftmax>);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
