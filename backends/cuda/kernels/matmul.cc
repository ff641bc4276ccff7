// matmul (numpy.matmul; kernels/gemm.cu): one launch of the tiled kernel
// over every output matrix, each operand's broadcast batch as steps
// (ops/matmul_geometry.h).

#include "absl/strings/str_cat.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/gemm.cuh"
#include "ops/matmul_geometry.h"

namespace switchyard {
namespace cuda {
namespace {

class MatmulKernel : public Kernel {
 public:
  MatmulKernel(CudaDevice& device, kernels::GemmParams params)
      : device_(device), params_(params) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchGemm(inputs[0]->data<float>(), inputs[1]->data<float>(),
                            nullptr, outputs[0]->data<float>(), params_,
                            device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  kernels::GemmParams params_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeMatmul(const Node& node,
                                                   const Graph& graph,
                                                   CudaDevice& device) {
  SY_ASSIGN_OR_RETURN(MatmulGeometry g,
                      MatmulGeometryOf(*graph.value(node.inputs[0]).shape,
                                       *graph.value(node.inputs[1]).shape));
  if (g.batch.size() > static_cast<size_t>(kernels::kMaxGemmBatchDims)) {
    return absl::UnimplementedError(
        absl::StrCat("matmul on ", device.name(), " takes at most ",
                     kernels::kMaxGemmBatchDims, " batch dimensions, got ",
                     g.batch.size(), " for output ", g.output.ToString()));
  }
  kernels::GemmParams p;
  p.m = g.m;
  p.n = g.n;
  p.k = g.k;
  p.a_row = g.k;
  p.a_col = 1;
  p.b_row = g.n;
  p.b_col = 1;
  p.alpha = 1.0f;
  p.beta = 0.0f;
  p.batch_rank = static_cast<int>(g.batch.size());
  for (size_t d = 0; d < g.batch.size(); ++d) {
    p.batch[d] = g.batch[d];
    p.a_step[d] = g.a_stride[d] * g.m * g.k;  // matrices to elements
    p.b_step[d] = g.b_stride[d] * g.k * g.n;
  }
  p.batch_count = g.batch_count;
  return std::make_unique<MatmulKernel>(device, p);
}

SY_REGISTER_KERNEL(CudaKernels(), "matmul", DType::kFloat32, &MakeMatmul);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
