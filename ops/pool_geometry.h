#ifndef SWITCHYARD_OPS_POOL_GEOMETRY_H_
#define SWITCHYARD_OPS_POOL_GEOMETRY_H_

// Sliding-window arithmetic shared by shape inference (ops/) and the conv and
// pooling kernels of every backend, so all of them agree with PyTorch on
// every edge case.
//
//   PooledLength(/*in=*/7, /*kernel=*/2, /*stride=*/2, /*pad=*/0,
//                /*dilation=*/1, /*ceil_mode=*/true) == 4
//   ConvOutputLength(224, 3, 1, 1, 1) == 224
//   AdaptiveStart(1, 7, 3) == 2; AdaptiveEnd(1, 7, 3) == 5   // rows [2, 5)
//
// Preconditions: kernel, stride and dilation >= 1, pad >= 0, in >= 0; the op
// definitions check them (and that the results are >= 1) before a kernel
// runs. The functions themselves do not validate: a result < 1 means the
// window does not fit.
//
// Every function is inline SY_HOST_DEVICE (ops/host_device.h): the CUDA
// pooling kernels (backends/cuda/kernels/pool2d.cu) call the same code on
// the device, so this header includes nothing nvcc cannot see.

#include <cstdint>

#include "ops/host_device.h"

namespace switchyard {

// Division rounding toward negative infinity (C++ rounds toward zero); the
// numerators of the lengths below go negative when the window does not fit.
SY_HOST_DEVICE inline int64_t PoolFloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Output length of a pooling window along one dimension with padding
// `pad_begin` before the input and `pad_end` after it (ONNX's pads), PyTorch's
// rule (aten pooling_output_shape): floor or, with ceil_mode, ceil of
// span / stride, plus 1, where span = in + pad_begin + pad_end -
// dilation*(kernel-1) - 1; with ceil_mode a window that would start at or
// after in + pad_begin (in the end padding alone) is dropped, as in PyTorch
// and ONNX's reference.
//   PooledLength(5, 2, 2, /*pad_begin=*/0, /*pad_end=*/1, 1, true) == 3
SY_HOST_DEVICE inline int64_t PooledLength(int64_t in, int64_t kernel,
                                           int64_t stride, int64_t pad_begin,
                                           int64_t pad_end, int64_t dilation,
                                           bool ceil_mode) {
  const int64_t span = in + pad_begin + pad_end - dilation * (kernel - 1) - 1;
  int64_t out = PoolFloorDiv(span + (ceil_mode ? stride - 1 : 0), stride) + 1;
  // A window that would start in the right padding is dropped.
  if (ceil_mode && (out - 1) * stride >= in + pad_begin) --out;
  return out;
}

// The same with `pad` on both sides.
SY_HOST_DEVICE inline int64_t PooledLength(int64_t in, int64_t kernel,
                                           int64_t stride, int64_t pad,
                                           int64_t dilation, bool ceil_mode) {
  return PooledLength(in, kernel, stride, pad, pad, dilation, ceil_mode);
}

// Where the window of output index `out` starts along one dimension, in
// input coordinates (negative inside the leading padding); its taps are
// start + t * dilation for t in [0, kernel).
SY_HOST_DEVICE inline int64_t PoolWindowStart(int64_t out, int64_t stride,
                                              int64_t pad_begin) {
  return out * stride - pad_begin;
}

// One average-pooling window along one dimension: the input rows
// [begin, end) it covers, and its divisor's extent. Output index `out`
// starts at out*stride - pad_begin. With count_include_pad the extent is
// the window clipped to the padded input [-pad_begin, in + pad_end) (a
// ceil_mode window past the end padding counts only up to it, as in PyTorch
// and ONNX Runtime); without, it is end - begin.
//   AvgPoolSpan(0, /*in=*/5, /*kernel=*/3, /*stride=*/2, 1, 1, true)
//       == {0, 2, 3}
struct PoolSpan {
  int64_t begin, end, extent;
};
SY_HOST_DEVICE inline PoolSpan AvgPoolSpan(int64_t out, int64_t in,
                                           int64_t kernel, int64_t stride,
                                           int64_t pad_begin, int64_t pad_end,
                                           bool count_include_pad) {
  const int64_t start = PoolWindowStart(out, stride, pad_begin);
  const int64_t stop = start + kernel;
  PoolSpan s;
  s.begin = start < 0 ? 0 : start;
  s.end = stop > in ? in : stop;
  if (count_include_pad) {
    s.extent = (stop > in + pad_end ? in + pad_end : stop) - start;
  } else {
    s.extent = s.end - s.begin;
  }
  return s;
}

// Output length of a convolution along one dimension:
// floor((in + 2*pad - dilation*(kernel-1) - 1) / stride) + 1.
SY_HOST_DEVICE inline int64_t ConvOutputLength(int64_t in, int64_t kernel,
                                               int64_t stride, int64_t pad,
                                               int64_t dilation) {
  return PoolFloorDiv(in + 2 * pad - dilation * (kernel - 1) - 1, stride) + 1;
}

// Adaptive average pooling: output index i of `out` averages input rows
// [AdaptiveStart, AdaptiveEnd), start = floor(i*in/out),
// end = ceil((i+1)*in/out). Windows may overlap; out >= 1.
SY_HOST_DEVICE inline int64_t AdaptiveStart(int64_t i, int64_t in,
                                            int64_t out) {
  return (i * in) / out;
}
SY_HOST_DEVICE inline int64_t AdaptiveEnd(int64_t i, int64_t in, int64_t out) {
  return ((i + 1) * in + out - 1) / out;
}

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_POOL_GEOMETRY_H_
