// cast among float32, float16, int32 and int64 on the GPU
// (device code: cast.cu); registered by input dtype, `supports`
// refuses other output dtypes (--placement=auto runs those on the CPU).

#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "backends/cuda/kernels/cast.cuh"
#include "backends/cuda/kernels/cuda_kernel.h"

namespace switchyard {
namespace cuda {
namespace {

using kernels::CastType;

std::optional<CastType> CastTypeOf(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return CastType::kFloat32;
    case DType::kFloat16: return CastType::kFloat16;
    case DType::kInt32: return CastType::kInt32;
    case DType::kInt64: return CastType::kInt64;
    default: return std::nullopt;
  }
}

absl::Status Supports(const Node& node, const Graph& graph) {
  const DType to = graph.value(node.outputs[0]).dtype;
  if (!CastTypeOf(to)) {
    return absl::UnimplementedError(absl::StrCat(
        "CUDA casts only to float32, float16, int32 and int64, not ",
        DTypeName(to)));
  }
  return absl::OkStatus();
}

class CastKernel : public Kernel {
 public:
  CastKernel(CudaDevice& device, CastType from, CastType to)
      : device_(device), from_(from), to_(to) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchCast(inputs[0]->data<void>(), from_,
                            outputs[0]->data<void>(), to_,
                            outputs[0]->num_elements(), device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  CastType from_, to_;
};

template <DType kFrom>
absl::StatusOr<std::unique_ptr<Kernel>> MakeCast(const Node& node,
                                                 const Graph& graph,
                                                 CudaDevice& device) {
  SY_RETURN_IF_ERROR(Supports(node, graph));
  return std::make_unique<CastKernel>(
      device, *CastTypeOf(kFrom), *CastTypeOf(graph.value(node.outputs[0]).dtype));
}

template <DType... kFroms>
bool RegisterCasts() {
  return (CudaKernels().Register("cast", kFroms, &Supports, &MakeCast<kFroms>) &
          ...);
}

[[maybe_unused]] const bool kRegistered =
    RegisterCasts<DType::kFloat32, DType::kFloat16, DType::kInt32,
                  DType::kInt64>();

}  // namespace
}  // namespace cuda
}  // namespace switchyard
