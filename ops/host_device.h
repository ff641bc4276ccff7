#ifndef SWITCHYARD_OPS_HOST_DEVICE_H_
#define SWITCHYARD_OPS_HOST_DEVICE_H_

// SY_HOST_DEVICE marks a function that both the host compiler and nvcc
// compile, for index math and elementwise formulas shared by the CPU
// backends and CUDA device code (ops/*_geometry.h, ops/*_functors.h):
//
//   SY_HOST_DEVICE inline int64_t PooledSize(int64_t in, int64_t k, ...);
//
// Such a function uses only what device code has: no absl, no std::vector,
// no exceptions, no Status. Host-only wrappers stay in the .cc files.
#if defined(__CUDACC__)
#define SY_HOST_DEVICE __host__ __device__
#else
#define SY_HOST_DEVICE
#endif

#endif  // SWITCHYARD_OPS_HOST_DEVICE_H_
