// Where (where.cu): one thread per output element, each operand read
// through its broadcast strides (ops/broadcast.h BroadcastLayout, dims
// merged). Registered under bool, the condition's dtype (the registry keys
// by the first operand), for x and y of every dtype by element size.

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/where.cuh"
#include "ops/broadcast.h"

namespace switchyard {
namespace cuda {
namespace {

class WhereKernel : public Kernel {
 public:
  explicit WhereKernel(CudaDevice& device) : device_(device) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    Tensor& out = *outputs[0];
    if (out.num_elements() == 0) return absl::OkStatus();
    const std::vector<Shape> shapes = {inputs[0]->shape(), inputs[1]->shape(),
                                       inputs[2]->shape()};
    const BroadcastLayout layout = BroadcastLayout::Make(shapes, out.shape());
    if (layout.rank() > kernels::kMaxShapeRank) {
      return absl::UnimplementedError(absl::StrCat(
          "where on ", device_.name(), " takes at most ",
          kernels::kMaxShapeRank, " dims once merged, got output ",
          out.shape().ToString(), "; run it on the CPU"));
    }
    kernels::WhereParams params;
    params.rank = layout.rank();
    for (int d = 0; d < layout.rank(); ++d) {
      params.dims[d] = layout.dims[d];
      for (int k = 0; k < 3; ++k) params.strides[k][d] = layout.strides[k][d];
    }
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchWhere(out.data<void>(), inputs[0]->data<uint8_t>(),
                             inputs[1]->data<void>(), inputs[2]->data<void>(),
                             DTypeSize(out.dtype()), params, device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
};

SY_REGISTER_KERNEL(CudaKernels(), "where", DType::kBool,
                   [](const Node&, const Graph&, CudaDevice& device)
                       -> absl::StatusOr<std::unique_ptr<Kernel>> {
                     return std::make_unique<WhereKernel>(device);
                   });

}  // namespace
}  // namespace cuda
}  // namespace switchyard
