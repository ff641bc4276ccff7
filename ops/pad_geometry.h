#ifndef SWITCHYARD_OPS_PAD_GEOMETRY_H_
#define SWITCHYARD_OPS_PAD_GEOMETRY_H_

// Which input element an output element of pad copies, one function per
// mode, shared by the cpu kernel (through ops/shape_geometry.h
// PadSourceIndex) and the CUDA device code (backends/cuda/kernels/pad.cu),
// so that both read the same elements. Inline SY_HOST_DEVICE and free of
// absl, std::vector and Status: nvcc compiles this header.
//
//   ReflectPadSource(/*out=*/0, /*begin=*/2, /*n=*/4) == 2   // [2 1 | 0 1 2 3]
//   EdgePadSource(5, 0, 4) == 3; ConstantPadSource(5, 0, 4) == -1
//
// Each takes output index `out` of one dim of input length n, padded with
// `begin` before, and returns the input index it copies, or -1 for the
// constant fill. Inside [0, n) (out - begin) every mode copies the same
// element; n >= 1 for edge and reflect.

#include <cstdint>

#include "ops/host_device.h"

namespace switchyard {

// The fill outside the input.
SY_HOST_DEVICE inline int64_t ConstantPadSource(int64_t out, int64_t begin,
                                                int64_t n) {
  const int64_t i = out - begin;
  return i >= 0 && i < n ? i : -1;
}

// The nearest end element outside the input.
SY_HOST_DEVICE inline int64_t EdgePadSource(int64_t out, int64_t begin,
                                            int64_t n) {
  const int64_t i = out - begin;
  if (i >= 0 && i < n) return i;
  return i < 0 ? 0 : n - 1;
}

// numpy's mirror about the end elements (repeated when the pad is longer
// than the dim; a dim of 1 repeats its element).
SY_HOST_DEVICE inline int64_t ReflectPadSource(int64_t out, int64_t begin,
                                               int64_t n) {
  const int64_t i = out - begin;
  if (i >= 0 && i < n) return i;
  if (n == 1) return 0;
  const int64_t period = 2 * (n - 1);
  int64_t r = i % period;
  if (r < 0) r += period;
  return r < n ? r : period - r;
}

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_PAD_GEOMETRY_H_
