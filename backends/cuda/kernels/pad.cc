// Pad (constant, reflect, edge; negative pads crop): one thread per output
// element (pad.cu), which finds its input element per dim by the mode's
// ops/pad_geometry.h function, or writes the fill.

#include <cstring>
#include <memory>
#include <vector>

#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/pad.cuh"
#include "backends/cuda/kernels/view_rank.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

class PadKernel : public OneToOneAttrsKernel<PadAttrs> {
 public:
  using OneToOneAttrsKernel::OneToOneAttrsKernel;

 private:
  absl::Status RunOne(const Tensor& in, Tensor& out) override {
    SY_RETURN_IF_ERROR(CheckViewRank("pad", device(), in.shape()));
    const int rank = in.shape().rank();
    kernels::PadParams params;
    params.rank = rank;
    params.mode = static_cast<int>(attrs().mode);
    for (int d = 0; d < rank; ++d) {
      params.out_dims[d] = out.shape().dim(d);
      params.in_dims[d] = in.shape().dim(d);
      params.begins[d] = attrs().pads[d];
    }
    // The fill as the dtype's bytes (C++ conversion of the value).
    char fill[8] = {};
    SetElementFromDouble(fill, in.dtype(), 0, attrs().value);
    std::memcpy(&params.fill, fill, sizeof(params.fill));
    SY_RETURN_IF_ERROR(device().Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchPad(out.data<void>(), in.data<void>(),
                           DTypeSize(in.dtype()), params, device().stream()),
        device().name());
    return absl::OkStatus();
  }

};

[[maybe_unused]] const bool kRegistered =
    RegisterEveryDType("pad", &MakeWithAttrs<PadAttrs, PadKernel>);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
