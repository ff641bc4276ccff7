// gemm and matmul through cuBLASLt where it can take them, else one launch
// of the tiled kernel (gemm.cu).
//
// cuBLASLt (gemm_plan.h works out the arguments from the shapes; tested
// without a GPU by gemm_plan_test): transposes as TRANSA/TRANSB, alpha and
// beta as they are; gemm's c read as cuBLASLt's C when it already is
// [M, N], else copied broadcast into y first and read back from there;
// matmul's batch as one strided batch (a broadcast operand with stride 0),
// a b shared by every batch entry folded into a's rows, and batch
// dimensions that no one stride per operand describes ([B, 1, M, K] x
// [1, C, K, N]) as a loop of calls.
//
// The tile kernel only for what cuBLASLt cannot take: k = 0 (the output is
// zeros, or beta * c), more than 2^31 - 1 matrices in one strided batch,
// a broadcast that needs more than kMaxLtCalls calls each too small to
// repay its host cost (gemm_plan.h), a shape and alignment for which
// cuBLASLt's heuristic has no algorithm, and a machine without cuBLASLt 13
// (matmul then runs as before, slowly, instead of failing).
//
// Tile kernel: op(a) and op(b) as strides and c's broadcast as steps
// (ops/matmul_geometry.h GemmBiasStepsOf); beta == 0 leaves c unread, as
// BLAS does; every output matrix of a matmul in the one launch, each
// operand's broadcast batch as steps.

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cuda/cuda_libraries.h"
#include "backends/cuda/gemm_plan.h"
#include "backends/cuda/kernels/cublaslt_matmul.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/gemm.cuh"
#include "backends/cuda/kernels/strided_copy.cuh"
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

// The cuBLASLt calls of a plan (route kCublasLt).
class LtGemmKernel : public Kernel {
 public:
  LtGemmKernel(CudaDevice& device, const CublasLtApi& api, GemmPlan plan, int64_t m,
               int64_t n, std::string what)
      : device_(device),
        plan_(std::move(plan)),
        m_(m),
        n_(n),
        matmul_(device, api, std::move(what)) {}

  absl::Status Build() { return matmul_.Build(plan_.lt); }

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    SY_RETURN_IF_ERROR(device_.Activate());
    const float* a = inputs[0]->data<float>();
    const float* b = inputs[1]->data<float>();
    float* y = outputs[0]->data<float>();
    const float* c = nullptr;
    if (plan_.c == GemmC::kInput) c = inputs[2]->data<float>();
    if (plan_.c == GemmC::kBroadcastIntoOutput) {
      // y = c broadcast to [M, N], then read back as C (cuBLASLt's C has no
      // broadcast).
      kernels::StridedCopyParams p;
      p.rank = 2;
      p.dims[0] = m_;
      p.dims[1] = n_;
      p.dst_strides[0] = n_;
      p.dst_strides[1] = 1;
      p.src_strides[0] = plan_.c_steps.row_step;
      p.src_strides[1] = plan_.c_steps.col_step;
      SY_CUDA_RETURN_IF_ERROR(
          kernels::LaunchStridedCopy(y, inputs[2]->data<float>(), sizeof(float), p,
                                     device_.stream()),
          device_.name());
      c = y;
    }
    std::vector<CublasLtMatmul::Operands> calls;
    calls.reserve(plan_.calls.size());
    for (const LtCall& call : plan_.calls) {
      // cuBLASLt's A is the node's b, its B the node's a (gemm_plan.h).
      calls.push_back({b + call.b, a + call.a, c != nullptr ? c + call.y : nullptr,
                       y + call.y});
    }
    return matmul_.Run(calls, /*bias=*/nullptr);
  }

 private:
  CudaDevice& device_;
  const GemmPlan plan_;
  const int64_t m_, n_;  // gemm's output, for c's broadcast
  CublasLtMatmul matmul_;
};

// The cuBLASLt kernel of `plan`, or null where the tile kernel is to run:
// the plan says so, cuBLASLt 13 is missing, or its heuristic has no
// algorithm for the shape.
absl::StatusOr<std::unique_ptr<Kernel>> MakeLtKernel(GemmPlan plan, int64_t m, int64_t n,
                                                     std::string what, CudaDevice& device) {
  if (plan.route != GemmRoute::kCublasLt) return nullptr;
  absl::StatusOr<const CublasLtApi*> api = LoadCublasLt();
  if (!api.ok()) return nullptr;
  auto kernel = std::make_unique<LtGemmKernel>(device, **api, std::move(plan), m, n,
                                               std::move(what));
  const absl::Status built = kernel->Build();
  if (absl::IsUnimplemented(built)) {
    // Unexpected for float32: said once, for the first GPU runs.
    static std::atomic<bool> said{false};
    if (!said.exchange(true)) {
      std::fprintf(stderr, "switchyard: %s; the tile kernel runs it instead\n",
                   std::string(built.message()).c_str());
    }
    return nullptr;
  }
  SY_RETURN_IF_ERROR(built);
  return std::unique_ptr<Kernel>(std::move(kernel));
}

absl::StatusOr<std::unique_ptr<Kernel>> MakeGemm(const Node& node,
                                                 const Graph& graph,
                                                 CudaDevice& device) {
  SY_ASSIGN_OR_RETURN(GemmAttrs g, GemmAttrs::FromAttrMap(node.attrs));
  const Shape& a = *graph.value(node.inputs[0]).shape;
  const Shape& b = *graph.value(node.inputs[1]).shape;
  const Shape& out = *graph.value(node.outputs[0]).shape;
  const Shape* c =
      node.inputs.size() > 2 ? &*graph.value(node.inputs[2]).shape : nullptr;
  SY_ASSIGN_OR_RETURN(GemmPlan plan, PlanGemm(a, b, c, g));
  SY_ASSIGN_OR_RETURN(
      std::unique_ptr<Kernel> lt,
      MakeLtKernel(std::move(plan), out.dim(0), out.dim(1),
                   absl::StrCat("gemm of ", a.ToString(), " and ", b.ToString()), device));
  if (lt != nullptr) return lt;
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
  const Shape& a = *graph.value(node.inputs[0]).shape;
  const Shape& b = *graph.value(node.inputs[1]).shape;
  SY_ASSIGN_OR_RETURN(GemmPlan plan, PlanMatmul(a, b));
  SY_ASSIGN_OR_RETURN(
      std::unique_ptr<Kernel> lt,
      MakeLtKernel(std::move(plan), 0, 0,
                   absl::StrCat("matmul of ", a.ToString(), " and ", b.ToString()), device));
  if (lt != nullptr) return lt;
  SY_ASSIGN_OR_RETURN(MatmulGeometry g, MatmulGeometryOf(a, b));
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
