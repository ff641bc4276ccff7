#ifndef SWITCHYARD_BACKENDS_REFERENCE_KERNELS_BROADCAST_OFFSET_H_
#define SWITCHYARD_BACKENDS_REFERENCE_KERNELS_BROADCAST_OFFSET_H_

// Where output element `i` (row-major over `shape`) reads an operand whose
// ops/broadcast.h BroadcastStrides are `strides`: the element's multi-index
// dotted with them (a broadcast dim has stride 0). Shared by the reference
// kernels of binary ops, which walk the output one element at a time.

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace switchyard {
namespace reference {

inline int64_t BroadcastOffset(int64_t i, const Shape& shape,
                               const std::vector<int64_t>& strides) {
  int64_t offset = 0;
  for (int d = shape.rank() - 1; d >= 0; --d) {
    offset += (i % shape.dim(d)) * strides[d];
    i /= shape.dim(d);
  }
  return offset;
}

}  // namespace reference
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_REFERENCE_KERNELS_BROADCAST_OFFSET_H_
