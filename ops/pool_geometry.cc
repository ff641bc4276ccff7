#include "ops/pool_geometry.h"

namespace switchyard {
namespace {

// Division rounding toward negative infinity (C++ rounds toward zero); the
// numerators below go negative when the window does not fit.
int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

}  // namespace

int64_t PooledLength(int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                     int64_t dilation, bool ceil_mode) {
  return PooledLength(in, kernel, stride, pad, pad, dilation, ceil_mode);
}

int64_t PooledLength(int64_t in, int64_t kernel, int64_t stride,
                     int64_t pad_begin, int64_t pad_end, int64_t dilation,
                     bool ceil_mode) {
  const int64_t span = in + pad_begin + pad_end - dilation * (kernel - 1) - 1;
  int64_t out = FloorDiv(span + (ceil_mode ? stride - 1 : 0), stride) + 1;
  // A window that would start in the right padding is dropped.
  if (ceil_mode && (out - 1) * stride >= in + pad_begin) --out;
  return out;
}

PoolSpan AvgPoolSpan(int64_t out, int64_t in, int64_t kernel, int64_t stride,
                     int64_t pad_begin, int64_t pad_end,
                     bool count_include_pad) {
  const int64_t start = out * stride - pad_begin;
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

int64_t ConvOutputLength(int64_t in, int64_t kernel, int64_t stride,
                         int64_t pad, int64_t dilation) {
  return FloorDiv(in + 2 * pad - dilation * (kernel - 1) - 1, stride) + 1;
}

int64_t AdaptiveStart(int64_t i, int64_t in, int64_t out) {
  return (i * in) / out;
}

int64_t AdaptiveEnd(int64_t i, int64_t in, int64_t out) {
  return ((i + 1) * in + out - 1) / out;
}

}  // namespace switchyard
