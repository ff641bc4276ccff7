#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_LOGICAL_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_LOGICAL_CUH_

// Launchers of logical.cu: the logical ops of ops/logical_functors.h on
// bool bytes, device pointers, geometry and a stream in, the launch's
// cudaError_t out; empty work launches nothing. logical.cu instantiates
// LaunchLogical for every op of SY_LOGICAL_BINARY_OPS.
//
//   LogicalParams p = ...;  // logical.cc fills it from ops/broadcast.h
//   cudaError_t e = LaunchLogical(logical::And{}, a, b, out, p, stream);

#include <cstdint>

#include "backends/cuda/kernels/shape_view.cuh"
#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// A broadcast view of `rank` merged dims: operand k of output element i is
// read at the sum of i's multi-index times strides[k] (0 where broadcast).
struct LogicalParams {
  int rank = 0;
  int64_t dims[kMaxShapeRank] = {};
  int64_t strides[2][kMaxShapeRank] = {};  // input, other
};

template <typename F>
cudaError_t LaunchLogical(F f, const uint8_t* a, const uint8_t* b, uint8_t* out,
                          const LogicalParams& params, cudaStream_t stream);

// out[i] = !in[i] over n elements.
cudaError_t LaunchLogicalNot(const uint8_t* in, uint8_t* out, int64_t n,
                             cudaStream_t stream);

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_LOGICAL_CUH_
