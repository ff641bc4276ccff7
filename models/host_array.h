#ifndef SWITCHYARD_MODELS_HOST_ARRAY_H_
#define SWITCHYARD_MODELS_HOST_ARRAY_H_

#include <cstddef>
#include <vector>

#include "core/shape.h"

namespace switchyard {

// The most dimensions a tensor file reader accepts (and a writer writes).
// Every layer in the runtime works well within it; the limit keeps a corrupt
// header from asking for thousands of dimensions.
inline constexpr int kMaxTensorFileRank = 8;

// A dense float32 array in host memory, as read from or written to a weight
// or array file (.safetensors, .npy). Values are in C (row-major) order and
// `values.size() == shape.num_elements()`; the readers guarantee this, and the
// writers check it.
//
//   HostArray a{Shape({2, 3}), {1, 2, 3, 4, 5, 6}};
//   a.values[1 * 3 + 2] == 6  // element [1, 2]
struct HostArray {
  Shape shape;
  std::vector<float> values;
};

// A float32 array in host memory that something else owns, such as a tensor
// inside a memory-mapped weight file (MappedSafetensors): little-endian
// values in C order, `size_bytes == shape.num_elements() * 4`. `data` need
// not be aligned for float; read it with memcpy. Valid while its owner is.
struct HostArrayView {
  Shape shape;
  const char* data = nullptr;
  size_t size_bytes = 0;
};

}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_HOST_ARRAY_H_
