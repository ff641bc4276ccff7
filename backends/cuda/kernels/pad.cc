// Pad (constant, reflect, edge; negative pads crop): one thread per output
// element (pad.cu), which finds its input element per dim by the mode's
// ops/pad_geometry.h function, or writes the fill.

#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/pad.cuh"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

class PadKernel : public Kernel {
 public:
  PadKernel(CudaDevice& device, PadAttrs attrs)
      : device_(device), attrs_(std::move(attrs)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& in = *inputs[0];
    Tensor& out = *outputs[0];
    if (out.num_elements() == 0) return absl::OkStatus();
    const int rank = in.shape().rank();
    if (rank > kernels::kMaxShapeRank) {
      return absl::UnimplementedError(absl::StrCat(
          "pad on ", device_.name(), " takes at most ", kernels::kMaxShapeRank,
          " dims, got input ", in.shape().ToString(), "; run it on the CPU"));
    }
    kernels::PadParams params;
    params.rank = rank;
    params.mode = static_cast<int>(attrs_.mode);
    for (int d = 0; d < rank; ++d) {
      params.out_dims[d] = out.shape().dim(d);
      params.in_dims[d] = in.shape().dim(d);
      params.begins[d] = attrs_.pads[d];
    }
    // The fill as the dtype's bytes (C++ conversion of the value).
    char fill[8] = {};
    SetElementFromDouble(fill, in.dtype(), 0, attrs_.value);
    std::memcpy(&params.fill, fill, sizeof(params.fill));
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchPad(out.data<void>(), in.data<void>(),
                           DTypeSize(in.dtype()), params, device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  PadAttrs attrs_;
};

[[maybe_unused]] const bool kRegistered =
    RegisterEveryDType("pad", &MakeWithAttrs<PadAttrs, PadKernel>);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
