#ifndef SWITCHYARD_OPS_GATHER_SCATTER_GEOMETRY_H_
#define SWITCHYARD_OPS_GATHER_SCATTER_GEOMETRY_H_

// What the kernels of gather_elements, gather_nd, scatter_elements and
// scatter_nd share: indices are data, so every one is checked before any
// element is read or written, and a bad one is this error, naming the op,
// the index's position in `indices`, its value and the dim it points along
// (the executor adds the node):
//
//   IndexOutOfRange("gather_elements", Shape({2, 3}), 5, 17, 1, 4)
//   // "gather_elements: indices[1, 2] = 17 is out of range for axis 1 of
//   //  size 4 (valid: -4 to 3)"

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/shape.h"

namespace switchyard {

absl::Status IndexOutOfRange(absl::string_view op, const Shape& indices,
                             int64_t position, int64_t value, int axis,
                             int64_t size);

// `value` in [-size, size) as an index in [0, size), or -1 when it is out
// of range (ONNX: negative indices count from the end).
inline int64_t WrapIndex(int64_t value, int64_t size) {
  if (value < -size || value >= size) return -1;
  return value < 0 ? value + size : value;
}

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_GATHER_SCATTER_GEOMETRY_H_
