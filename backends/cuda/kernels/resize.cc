// Resize (nearest, N-linear, N-cubic): one thread per output element
// (resize.cu), its taps from ops/resize_geometry.h, the same the cpu kernel
// precomputes.

#include <memory>

#include "absl/strings/str_cat.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/resize.cuh"
#include "ops/resize_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

template <typename T>
class ResizeKernel : public OneToOneAttrsKernel<ResizeAttrs> {
 public:
  using OneToOneAttrsKernel::OneToOneAttrsKernel;

 private:
  absl::Status RunOne(const Tensor& in, Tensor& out) override {
    const int rank = in.shape().rank();
    if (rank > kernels::kMaxShapeRank) {
      return absl::UnimplementedError(absl::StrCat(
          "resize on ", device().name(), " takes at most ",
          kernels::kMaxShapeRank, " dims, got input ", in.shape().ToString(),
          "; run it on the CPU"));
    }
    kernels::ResizeParams params;
    params.rank = rank;
    for (int d = 0; d < rank; ++d) params.axes[d] = attrs().Axis(in.shape(), d);
    SY_RETURN_IF_ERROR(device().Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchResize(out.data<T>(), in.data<T>(), params,
                              device().stream()),
        device().name());
    return absl::OkStatus();
  }
};

SY_REGISTER_KERNEL(CudaKernels(), "resize", DType::kFloat32,
                   &MakeWithAttrs<ResizeAttrs, ResizeKernel<float>>);
SY_REGISTER_KERNEL(CudaKernels(), "resize", DType::kFloat64,
                   &MakeWithAttrs<ResizeAttrs, ResizeKernel<double>>);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
