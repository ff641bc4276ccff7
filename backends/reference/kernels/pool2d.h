#ifndef SWITCHYARD_BACKENDS_REFERENCE_KERNELS_POOL2D_H_
#define SWITCHYARD_BACKENDS_REFERENCE_KERNELS_POOL2D_H_

// The walk the reference's float32 NCHW pools share: every output cell of
// every [N*C] plane, one at a time, from a function of the cell that is
// each op's definition written out.
//
//   ForEachPooledCell(*inputs[0], output,
//                     [&](const float* plane, int64_t h, int64_t w,
//                         int64_t oh, int64_t ow) -> float { ... });

#include <cstdint>

#include "core/tensor.h"

namespace switchyard {
namespace reference {

// output[p, oh, ow] = cell(input plane p, H, W, oh, ow) for every plane p
// and output cell (oh, ow).
template <typename Cell>
void ForEachPooledCell(const Tensor& input, Tensor& output, Cell cell) {
  const Shape& in_shape = input.shape();
  const int64_t planes = in_shape.dim(0) * in_shape.dim(1);
  const int64_t h = in_shape.dim(2), w = in_shape.dim(3);
  const int64_t ho = output.shape().dim(2), wo = output.shape().dim(3);
  const float* x = input.data<float>();
  float* y = output.data<float>();
  for (int64_t p = 0; p < planes; ++p) {
    const float* plane = x + p * h * w;
    for (int64_t oh = 0; oh < ho; ++oh) {
      for (int64_t ow = 0; ow < wo; ++ow) {
        y[(p * ho + oh) * wo + ow] = cell(plane, h, w, oh, ow);
      }
    }
  }
}

}  // namespace reference
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_REFERENCE_KERNELS_POOL2D_H_
