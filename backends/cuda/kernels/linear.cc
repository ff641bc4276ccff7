// Linear: y = x W^T + b through cuBLASLt, the bias added in the matmul's
// epilogue (CUBLASLT_EPILOGUE_BIAS), so a Linear is one kernel.
//
// Row-major tensors seen as cuBLAS's column-major matrices: W [out, in] is a
// column-major in x out matrix, x [rows, in] is in x rows, y [rows, out] is
// out x rows. So D (out x rows) = transpose(A = W) * B (= x), and the bias,
// `out` values broadcast over D's columns, is exactly the BIAS epilogue's
// vector. Nothing is transposed in memory.
//
// The algorithm is chosen once, when the kernel is built, by cuBLASLt's
// heuristic (cublasLtMatmulAlgoGetHeuristic) for this exact shape, with up to
// kWorkspaceBytes of workspace.
//
// Math: CUBLAS_COMPUTE_32F (true FP32, TF32 off) unless TF32 is allowed
// (the backend option allow_tf32, or SWITCHYARD_CUDA_TF32=1), then
// CUBLAS_COMPUTE_32F_FAST_TF32.
//
// linear+relu: the same kernel with the ReLU in the epilogue too
// (CUBLASLT_EPILOGUE_RELU_BIAS, or CUBLASLT_EPILOGUE_RELU without a bias),
// for the partitions CudaDevice claims: one kernel writes the relu's output.

#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "backends/cuda/cuda_libraries.h"
#include "backends/cuda/kernels/bias_epilogue.cuh"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/relu.cuh"

namespace switchyard {
namespace cuda {
namespace {

// cuBLAS recommends 32 MiB on Hopper.
constexpr size_t kWorkspaceBytes = size_t{32} << 20;
// cuBLASLt's default minimum alignment assumption for A, B, C, D.
constexpr uintptr_t kAlignment = 256;

class LinearKernel : public Kernel {
 public:
  LinearKernel(CudaDevice& device, const CublasLtApi& api, int64_t rows, int64_t in,
               int64_t out, bool has_bias, bool relu)
      : device_(device),
        api_(api),
        rows_(rows),
        in_(in),
        out_(out),
        has_bias_(has_bias),
        relu_(relu) {}

  ~LinearKernel() override {
    if (preference_ != nullptr) api_.cublasLtMatmulPreferenceDestroy(preference_);
    for (cublasLtMatrixLayout_t layout : {a_, b_, c_}) {
      if (layout != nullptr) api_.cublasLtMatrixLayoutDestroy(layout);
    }
    if (desc_ != nullptr) api_.cublasLtMatmulDescDestroy(desc_);
  }

  absl::Status Build() {
    if (rows_ == 0 || out_ == 0 || in_ == 0) return absl::OkStatus();
    const std::string& where = device_.name();
    const cublasComputeType_t compute =
        device_.allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    SY_RETURN_IF_ERROR(Check(api_.cublasLtMatmulDescCreate(&desc_, compute, CUDA_R_32F),
                             "cublasLtMatmulDescCreate"));
    const cublasOperation_t transpose = CUBLAS_OP_T, keep = CUBLAS_OP_N;
    SY_RETURN_IF_ERROR(Check(
        api_.cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA,
                                            &transpose, sizeof(transpose)),
        "cublasLtMatmulDescSetAttribute(TRANSA)"));
    SY_RETURN_IF_ERROR(Check(
        api_.cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB,
                                            &keep, sizeof(keep)),
        "cublasLtMatmulDescSetAttribute(TRANSB)"));
    if (has_bias_ || relu_) {
      const cublasLtEpilogue_t epilogue =
          has_bias_ ? (relu_ ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS)
                    : CUBLASLT_EPILOGUE_RELU;
      SY_RETURN_IF_ERROR(Check(
          api_.cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                              &epilogue, sizeof(epilogue)),
          "cublasLtMatmulDescSetAttribute(EPILOGUE)"));
    }
    // Column-major views (see the top of this file).
    SY_RETURN_IF_ERROR(Check(api_.cublasLtMatrixLayoutCreate(&a_, CUDA_R_32F, in_, out_, in_),
                             "cublasLtMatrixLayoutCreate(weight)"));
    SY_RETURN_IF_ERROR(Check(api_.cublasLtMatrixLayoutCreate(&b_, CUDA_R_32F, in_, rows_, in_),
                             "cublasLtMatrixLayoutCreate(input)"));
    SY_RETURN_IF_ERROR(Check(api_.cublasLtMatrixLayoutCreate(&c_, CUDA_R_32F, out_, rows_, out_),
                             "cublasLtMatrixLayoutCreate(output)"));
    SY_RETURN_IF_ERROR(Check(api_.cublasLtMatmulPreferenceCreate(&preference_),
                             "cublasLtMatmulPreferenceCreate"));
    const uint64_t workspace = kWorkspaceBytes;
    SY_RETURN_IF_ERROR(Check(
        api_.cublasLtMatmulPreferenceSetAttribute(
            preference_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
            sizeof(workspace)),
        "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)"));

    absl::MutexLock lock(&device_.library_mutex());
    SY_ASSIGN_OR_RETURN(cublasLtHandle_t handle, device_.CublasLtHandle());
    cublasLtMatmulHeuristicResult_t result = {};
    int found = 0;
    SY_RETURN_IF_ERROR(Check(api_.cublasLtMatmulAlgoGetHeuristic(
                                 handle, desc_, a_, b_, c_, c_, preference_, 1,
                                 &result, &found),
                             "cublasLtMatmulAlgoGetHeuristic"));
    if (found == 0) {
      return absl::UnimplementedError(absl::StrCat(
          "cuBLASLt has no algorithm on ", where, " for a linear", relu_ ? "+relu" : "",
          " of ", rows_, " rows, ", in_, " -> ", out_, " features"));
    }
    algo_ = result.algo;
    workspace_bytes_ = result.workspaceSize;
    return absl::OkStatus();
  }

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    if (rows_ == 0 || out_ == 0) return absl::OkStatus();
    SY_RETURN_IF_ERROR(device_.Activate());
    const float* x = inputs[0]->data<float>();
    const float* w = inputs[1]->data<float>();
    const float* bias = has_bias_ ? inputs[2]->data<float>() : nullptr;
    float* y = outputs[0]->data<float>();
    if (in_ == 0) {  // no features: the bias (or zeros) in every row
      SY_CUDA_RETURN_IF_ERROR(
          kernels::LaunchFillRows(bias, y, rows_, out_, device_.stream()),
          device_.name());
      if (relu_) {
        SY_CUDA_RETURN_IF_ERROR(kernels::LaunchRelu(y, y, rows_ * out_, device_.stream()),
                                device_.name());
      }
      return absl::OkStatus();
    }
    for (const void* p : {static_cast<const void*>(x), static_cast<const void*>(w),
                          static_cast<const void*>(y)}) {
      if (reinterpret_cast<uintptr_t>(p) % kAlignment != 0) {
        return absl::FailedPreconditionError(absl::StrCat(
            "linear on ", device_.name(), ": operand at ",
            absl::Hex(reinterpret_cast<uintptr_t>(p)),
            " is not 256-byte aligned (buffers from the allocator are)"));
      }
    }
    absl::MutexLock lock(&device_.library_mutex());
    SY_ASSIGN_OR_RETURN(cublasLtHandle_t handle, device_.CublasLtHandle());
    SY_ASSIGN_OR_RETURN(void* workspace, device_.Workspace(workspace_bytes_));
    if (has_bias_) {
      SY_RETURN_IF_ERROR(Check(
          api_.cublasLtMatmulDescSetAttribute(
              desc_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)),
          "cublasLtMatmulDescSetAttribute(BIAS_POINTER)"));
    }
    const float alpha = 1.0f, beta = 0.0f;
    return Check(api_.cublasLtMatmul(handle, desc_, &alpha, w, a_, x, b_, &beta, y,
                                     c_, y, c_, &algo_, workspace,
                                     workspace_bytes_, device_.stream()),
                 "cublasLtMatmul");
  }

 private:
  absl::Status Check(cublasStatus_t status, const char* call) const {
    return CublasLtCheck(api_, status, call, device_.name());
  }

  CudaDevice& device_;
  const CublasLtApi& api_;
  const int64_t rows_, in_, out_;
  const bool has_bias_;
  const bool relu_;  // the ReLU in the epilogue (linear+relu)
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  cublasLtMatmulPreference_t preference_ = nullptr;
  cublasLtMatmulAlgo_t algo_ = {};
  size_t workspace_bytes_ = 0;
};

absl::Status SupportsLinear(const Node& node, const Graph& graph) {
  absl::StatusOr<const CublasLtApi*> api = LoadCublasLt();
  if (!api.ok()) {
    return absl::UnimplementedError(absl::StrCat(
        "linear needs cuBLASLt: ", api.status().message()));
  }
  return absl::OkStatus();
}

// The kernel of a linear node, with the ReLU in its epilogue or not.
absl::StatusOr<std::unique_ptr<Kernel>> MakeLinearKernel(const Node& node,
                                                         const Graph& graph,
                                                         CudaDevice& device, bool relu) {
  SY_ASSIGN_OR_RETURN(const CublasLtApi* api, LoadCublasLt());
  const Shape& in = *graph.value(node.inputs[0]).shape;
  const Shape& wt = *graph.value(node.inputs[1]).shape;
  const int64_t features_in = wt.dim(1);
  int64_t rows = 1;  // every dimension but the last
  for (int d = 0; d + 1 < in.rank(); ++d) rows *= in.dim(d);
  auto kernel = std::make_unique<LinearKernel>(device, *api, rows, features_in, wt.dim(0),
                                               node.inputs.size() > 2, relu);
  SY_RETURN_IF_ERROR(kernel->Build());
  return std::unique_ptr<Kernel>(std::move(kernel));
}

absl::StatusOr<std::unique_ptr<Kernel>> MakeLinear(const Node& node, const Graph& graph,
                                                   CudaDevice& device) {
  return MakeLinearKernel(node, graph, device, /*relu=*/false);
}

// `node` is the linear of a claimed linear+relu partition.
absl::StatusOr<std::unique_ptr<Kernel>> MakeLinearRelu(const Node& node,
                                                       const Graph& graph,
                                                       CudaDevice& device) {
  return MakeLinearKernel(node, graph, device, /*relu=*/true);
}

SY_REGISTER_KERNEL(CudaKernels(), "linear", DType::kFloat32, &SupportsLinear,
                   &MakeLinear);
SY_REGISTER_KERNEL(CudaFusedKernels(), "linear+relu", DType::kFloat32, &SupportsLinear,
                   &MakeLinearRelu);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
