#include "backends/cuda/kernels/cublaslt_matmul.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace switchyard {
namespace cuda {
namespace {

// cuBLAS recommends 32 MiB on Hopper.
constexpr uint64_t kWorkspaceBytes = uint64_t{32} << 20;

}  // namespace

CublasLtMatmul::~CublasLtMatmul() {
  if (preference_ != nullptr) api_.cublasLtMatmulPreferenceDestroy(preference_);
  for (cublasLtMatrixLayout_t layout : {a_, b_, d_}) {
    if (layout != nullptr) api_.cublasLtMatrixLayoutDestroy(layout);
  }
  if (desc_ != nullptr) api_.cublasLtMatmulDescDestroy(desc_);
}

absl::Status CublasLtMatmul::Check(cublasStatus_t status, const char* call) const {
  return CublasLtCheck(api_, status, absl::StrCat(call, " for ", what_), device_.name());
}

absl::Status CublasLtMatmul::MakeLayout(const LtLayout& layout, const char* which,
                                        cublasLtMatrixLayout_t* out) {
  SY_RETURN_IF_ERROR(Check(
      api_.cublasLtMatrixLayoutCreate(out, CUDA_R_32F, static_cast<uint64_t>(layout.rows),
                                      static_cast<uint64_t>(layout.cols), layout.ld),
      which));
  if (layout.batch_count == 1) return absl::OkStatus();
  // gemm_plan.cc keeps batch_count within int32.
  const int32_t count = static_cast<int32_t>(layout.batch_count);
  const int64_t stride = layout.batch_stride;
  SY_RETURN_IF_ERROR(Check(
      api_.cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                            &count, sizeof(count)),
      "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)"));
  return Check(api_.cublasLtMatrixLayoutSetAttribute(
                   *out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                   sizeof(stride)),
               "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)");
}

absl::Status CublasLtMatmul::Build(const LtMatmulArgs& args) {
  args_ = args;
  const cublasComputeType_t compute =
      device_.allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  SY_RETURN_IF_ERROR(Check(api_.cublasLtMatmulDescCreate(&desc_, compute, CUDA_R_32F),
                           "cublasLtMatmulDescCreate"));
  const cublasOperation_t trans_a = args.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t trans_b = args.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  SY_RETURN_IF_ERROR(Check(
      api_.cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a,
                                          sizeof(trans_a)),
      "cublasLtMatmulDescSetAttribute(TRANSA)"));
  SY_RETURN_IF_ERROR(Check(
      api_.cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b,
                                          sizeof(trans_b)),
      "cublasLtMatmulDescSetAttribute(TRANSB)"));
  if (args.bias_epilogue) {
    // BIAS, never RELU_BIAS: cuBLASLt's ReLU turns NaN into 0 (gemm_plan.h).
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    SY_RETURN_IF_ERROR(Check(
        api_.cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                            &epilogue, sizeof(epilogue)),
        "cublasLtMatmulDescSetAttribute(EPILOGUE)"));
  }
  SY_RETURN_IF_ERROR(MakeLayout(args.a, "cublasLtMatrixLayoutCreate(A)", &a_));
  SY_RETURN_IF_ERROR(MakeLayout(args.b, "cublasLtMatrixLayoutCreate(B)", &b_));
  SY_RETURN_IF_ERROR(MakeLayout(args.d, "cublasLtMatrixLayoutCreate(D)", &d_));
  SY_RETURN_IF_ERROR(Check(api_.cublasLtMatmulPreferenceCreate(&preference_),
                           "cublasLtMatmulPreferenceCreate"));
  const uint64_t workspace = kWorkspaceBytes;
  SY_RETURN_IF_ERROR(Check(
      api_.cublasLtMatmulPreferenceSetAttribute(
          preference_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
          sizeof(workspace)),
      "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)"));
  // The pointers of a plan's later calls, and its batch strides, may be
  // less aligned than the 256 bytes cuBLASLt assumes unless told.
  const uint32_t alignment = static_cast<uint32_t>(args.alignment_bytes);
  for (cublasLtMatmulPreferenceAttributes_t attribute :
       {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES}) {
    SY_RETURN_IF_ERROR(Check(api_.cublasLtMatmulPreferenceSetAttribute(
                                 preference_, attribute, &alignment, sizeof(alignment)),
                             "cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT)"));
  }

  absl::MutexLock lock(&device_.library_mutex());
  SY_ASSIGN_OR_RETURN(cublasLtHandle_t handle, device_.CublasLtHandle());
  cublasLtMatmulHeuristicResult_t result = {};
  int found = 0;
  // C has D's layout (gemm_plan.h).
  SY_RETURN_IF_ERROR(Check(api_.cublasLtMatmulAlgoGetHeuristic(handle, desc_, a_, b_, d_,
                                                               d_, preference_, 1,
                                                               &result, &found),
                           "cublasLtMatmulAlgoGetHeuristic"));
  if (found == 0) {
    return absl::UnimplementedError(absl::StrCat(
        "cuBLASLt has no algorithm on ", device_.name(), " for ", what_, " (",
        args.alignment_bytes, "-byte aligned operands, batch of ", args.d.batch_count,
        ")"));
  }
  algo_ = result.algo;
  workspace_bytes_ = result.workspaceSize;
  return absl::OkStatus();
}

absl::Status CublasLtMatmul::Run(absl::Span<const Operands> calls, const float* bias) {
  const uintptr_t alignment = static_cast<uintptr_t>(args_.alignment_bytes);
  for (const Operands& call : calls) {
    for (const void* p : {static_cast<const void*>(call.a), static_cast<const void*>(call.b),
                          static_cast<const void*>(call.c), static_cast<const void*>(call.d)}) {
      if (p != nullptr && reinterpret_cast<uintptr_t>(p) % alignment != 0) {
        return absl::FailedPreconditionError(absl::StrCat(
            what_, " on ", device_.name(), ": operand at ",
            absl::Hex(reinterpret_cast<uintptr_t>(p)), " is not ", alignment,
            "-byte aligned as its cuBLASLt algorithm was chosen for (buffers from "
            "the allocator are 256-byte aligned)"));
      }
    }
  }
  absl::MutexLock lock(&device_.library_mutex());
  SY_ASSIGN_OR_RETURN(cublasLtHandle_t handle, device_.CublasLtHandle());
  SY_ASSIGN_OR_RETURN(void* workspace, device_.Workspace(workspace_bytes_));
  if (args_.bias_epilogue) {
    // Per run: the bias is an operand whose buffer may change between runs.
    SY_RETURN_IF_ERROR(Check(
        api_.cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                            &bias, sizeof(bias)),
        "cublasLtMatmulDescSetAttribute(BIAS_POINTER)"));
  }
  for (const Operands& call : calls) {
    // Without C, D stands in for it with beta 0 (cuBLASLt then reads none).
    const float alpha = args_.alpha;
    const float beta = call.c != nullptr ? args_.beta : 0.0f;
    const float* c = call.c != nullptr ? call.c : call.d;
    SY_RETURN_IF_ERROR(Check(
        api_.cublasLtMatmul(handle, desc_, &alpha, call.a, a_, call.b, b_, &beta, c, d_,
                            call.d, d_, &algo_, workspace, workspace_bytes_,
                            device_.stream()),
        "cublasLtMatmul"));
  }
  return absl::OkStatus();
}

}  // namespace cuda
}  // namespace switchyard
