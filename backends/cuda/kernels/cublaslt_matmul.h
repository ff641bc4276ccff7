#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_CUBLASLT_MATMUL_H_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_CUBLASLT_MATMUL_H_

// One float32 cublasLtMatmul set up once from an LtMatmulArgs
// (gemm_plan.h, which works out the layouts): the descriptors, the layouts
// and the algorithm cuBLASLt's heuristic picks for that exact shape, with up
// to 32 MiB of workspace. Then run any number of times, on one or more sets
// of pointers (a plan's calls), under the device's library mutex. Shared by
// linear, matmul and gemm.
//
// Math: CUBLAS_COMPUTE_32F (true FP32, TF32 off) unless the device allows
// TF32 (the backend option allow_tf32, or SWITCHYARD_CUDA_TF32=1), then
// CUBLAS_COMPUTE_32F_FAST_TF32.
//
//   CublasLtMatmul lt(device, api, "matmul [2, 3, 4] x [4, 5]");
//   SY_RETURN_IF_ERROR(lt.Build(plan.lt));  // Unimplemented: no algorithm
//   SY_RETURN_IF_ERROR(lt.Run({{a, b, nullptr, y}}, /*bias=*/nullptr));

#include <cstddef>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_libraries.h"
#include "backends/cuda/gemm_plan.h"

namespace switchyard {
namespace cuda {

class CublasLtMatmul {
 public:
  // `what` names the node in messages ("matmul of [2, 3, 4] and [4, 5]").
  CublasLtMatmul(CudaDevice& device, const CublasLtApi& api, std::string what)
      : device_(device), api_(api), what_(std::move(what)) {}
  ~CublasLtMatmul();
  CublasLtMatmul(const CublasLtMatmul&) = delete;
  CublasLtMatmul& operator=(const CublasLtMatmul&) = delete;

  // Creates the descriptors and asks the heuristic for an algorithm:
  // Unimplemented when it has none for this shape and alignment (callers
  // may then use another kernel), another error when a call fails.
  absl::Status Build(const LtMatmulArgs& args);

  // Pointers of one call, in cuBLASLt's terms: A, B, C (null: not read, the
  // args' beta must be 0) and D.
  struct Operands {
    const float* a = nullptr;
    const float* b = nullptr;
    const float* c = nullptr;
    float* d = nullptr;
  };
  // Queues each call on the device's stream, in order; `bias` is the BIAS
  // epilogue's vector (args.bias_epilogue). Takes the library mutex.
  absl::Status Run(absl::Span<const Operands> calls, const float* bias);

 private:
  absl::Status Check(cublasStatus_t status, const char* call) const;
  absl::Status MakeLayout(const LtLayout& layout, const char* which,
                          cublasLtMatrixLayout_t* out);

  CudaDevice& device_;
  const CublasLtApi& api_;
  const std::string what_;
  LtMatmulArgs args_;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, d_ = nullptr;
  cublasLtMatmulPreference_t preference_ = nullptr;
  cublasLtMatmulAlgo_t algo_ = {};
  size_t workspace_bytes_ = 0;
};

}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_CUBLASLT_MATMUL_H_
