// Resize (nearest, N-linear, N-cubic): one thread per output element
// (resize.cu), its taps from ops/resize_geometry.h, the same the cpu kernel
// precomputes.

#include <memory>

#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/resize.cuh"
#include "backends/cuda/kernels/view_rank.h"
#include "ops/resize_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

// float32, as the rest of the CUDA backend's arithmetic.
class ResizeKernel : public OneToOneAttrsKernel<ResizeAttrs> {
 public:
  using OneToOneAttrsKernel::OneToOneAttrsKernel;

 private:
  absl::Status RunOne(const Tensor& in, Tensor& out) override {
    SY_RETURN_IF_ERROR(CheckViewRank("resize", device(), in.shape()));
    const int rank = in.shape().rank();
    kernels::ResizeParams params;
    params.rank = rank;
    for (int d = 0; d < rank; ++d) params.axes[d] = attrs().Axis(in.shape(), d);
    SY_RETURN_IF_ERROR(device().Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchResize(out.data<float>(), in.data<float>(), params,
                              device().stream()),
        device().name());
    return absl::OkStatus();
  }
};

SY_REGISTER_KERNEL(CudaKernels(), "resize", DType::kFloat32,
                   &MakeWithAttrs<ResizeAttrs, ResizeKernel>);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
