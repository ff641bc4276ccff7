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

#include <cstdint>

namespace switchyard {

// Output length of a pooling window along one dimension, PyTorch's rule
// (aten pooling_output_shape): floor or, with ceil_mode, ceil of
// (in + 2*pad - dilation*(kernel-1) - 1) / stride, plus 1; with ceil_mode the
// last window must start inside the input or the left padding, never in the
// right padding alone.
int64_t PooledLength(int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                     int64_t dilation, bool ceil_mode);

// The same with padding `pad_begin` before the input and `pad_end` after it
// (ONNX's pads): span = in + pad_begin + pad_end - dilation*(kernel-1) - 1;
// with ceil_mode a window that would start at or after in + pad_begin (in
// the end padding alone) is dropped, as in PyTorch and ONNX's reference.
//   PooledLength(5, 2, 2, /*pad_begin=*/0, /*pad_end=*/1, 1, true) == 3
int64_t PooledLength(int64_t in, int64_t kernel, int64_t stride,
                     int64_t pad_begin, int64_t pad_end, int64_t dilation,
                     bool ceil_mode);

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
PoolSpan AvgPoolSpan(int64_t out, int64_t in, int64_t kernel, int64_t stride,
                     int64_t pad_begin, int64_t pad_end,
                     bool count_include_pad);

// Output length of a convolution along one dimension:
// floor((in + 2*pad - dilation*(kernel-1) - 1) / stride) + 1.
int64_t ConvOutputLength(int64_t in, int64_t kernel, int64_t stride,
                         int64_t pad, int64_t dilation);

// Adaptive average pooling: output index i of `out` averages input rows
// [AdaptiveStart, AdaptiveEnd), start = floor(i*in/out),
// end = ceil((i+1)*in/out). Windows may overlap; out >= 1.
int64_t AdaptiveStart(int64_t i, int64_t in, int64_t out);
int64_t AdaptiveEnd(int64_t i, int64_t in, int64_t out);

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_POOL_GEOMETRY_H_
