#ifndef SWITCHYARD_OPS_CONV_TRANSPOSE_GEOMETRY_H_
#define SWITCHYARD_OPS_CONV_TRANSPOSE_GEOMETRY_H_

// The output size of conv_transpose2d along one axis, and which input
// element a kernel tap reads for an output element (the "gather" view the
// CUDA device code takes: output o reads input i through tap k when
// o + pad = i * stride + k * dilation). Inline SY_HOST_DEVICE, no absl:
// nvcc compiles this header.

#include <cstdint>

#include "ops/host_device.h"

namespace switchyard {

// (in - 1) * stride - pad_begin - pad_end + dilation * (kernel - 1) +
// output_padding + 1; the op checks the operands keep it in int64 and >= 1.
SY_HOST_DEVICE inline int64_t ConvTransposeOutputLength(int64_t in, int64_t kernel,
                                                        int64_t stride, int64_t pad_begin,
                                                        int64_t pad_end, int64_t dilation,
                                                        int64_t output_padding) {
  return (in - 1) * stride - pad_begin - pad_end + dilation * (kernel - 1) + output_padding +
         1;
}

// The input index that tap `k` reads for output `o`, or -1 when none (the
// tap falls between inputs, or outside them).
SY_HOST_DEVICE inline int64_t ConvTransposeSource(int64_t o, int64_t k, int64_t in,
                                                  int64_t stride, int64_t pad_begin,
                                                  int64_t dilation) {
  const int64_t offset = o + pad_begin - k * dilation;
  if (offset < 0 || offset % stride != 0) return -1;
  const int64_t i = offset / stride;
  return i < in ? i : -1;
}

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_CONV_TRANSPOSE_GEOMETRY_H_
