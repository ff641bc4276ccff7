// gemm and matmul, each one launch of the tiled kernel (gemm.cu).
// gemm: op(a) and op(b) as strides and c's broadcast as steps
// (ops/matmul_geometry.h GemmBiasStepsOf); beta == 0 leaves c unread, as
// BLAS does. matmul (numpy.matmul): every output matrix in the one launch,
// each operand's broadcast batch as steps (ops/matmul_geometry.h).

#include "absl/strings/str_cat.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/gemm.cuh"
#include "ops/gemm_attrs.h"
#include "ops/matmul_geometry.h"

namespace switchyard {
namespace cuda {
namespace {

// Runs LaunchGemm with c read only when read_c.
class GemmKernel : public Kernel {
 public:
  GemmKernel(CudaDevice& device, kernels::GemmParams params, bool read_c)
      : device_(device), params_(params), read_c_(read_c) {}
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchGemm(inputs[0]->data<float>(), inputs[1]->data<float>(),
                            read_c_ ? inputs[2]->data<float>() : nullptr,
                            outputs[0]->data<float>(), params_,
                            device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  kernels::GemmParams params_;
  bool read_c_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeGemm(const Node& node,
                                                 const Graph& graph,
                                                 CudaDevice& device) {
  SY_ASSIGN_OR_RETURN(GemmAttrs g, GemmAttrs::FromAttrMap(node.attrs));
  const Shape& a = *graph.value(node.inputs[0]).shape;
  const Shape& out = *graph.value(node.outputs[0]).shape;
  kernels::GemmParams p;
  p.m = out.dim(0);
  p.n = out.dim(1);
  p.k = a.dim(g.trans_a ? 0 : 1);
  // op(a)[i, t]: a [M, K] at i * K + t, or a [K, M] at t * M + i.
  p.a_row = g.trans_a ? 1 : p.k;
  p.a_col = g.trans_a ? p.m : 1;
  // op(b)[t, j]: b [K, N] at t * N + j, or b [N, K] at j * K + t.
  p.b_row = g.trans_b ? 1 : p.n;
  p.b_col = g.trans_b ? p.k : 1;
  p.alpha = static_cast<float>(g.alpha);
  p.beta = static_cast<float>(g.beta);
  const bool read_c = node.inputs.size() > 2 && g.beta != 0.0;
  if (read_c) {
    SY_ASSIGN_OR_RETURN(
        GemmBiasSteps steps,
        GemmBiasStepsOf(*graph.value(node.inputs[2]).shape, p.m, p.n));
    p.c_row = steps.row_step;
    p.c_col = steps.col_step;
  }
  return std::make_unique<GemmKernel>(device, p, read_c);
}

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
  return std::make_unique<GemmKernel>(device, p, /*read_c=*/false);
}

SY_REGISTER_KERNEL(CudaKernels(), "gemm", DType::kFloat32, &MakeGemm);
SY_REGISTER_KERNEL(CudaKernels(), "matmul", DType::kFloat32, &MakeMatmul);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
