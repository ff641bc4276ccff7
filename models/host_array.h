#ifndef SWITCHYARD_MODELS_HOST_ARRAY_H_
#define SWITCHYARD_MODELS_HOST_ARRAY_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/dtype.h"
#include "core/shape.h"

namespace switchyard {

// The most dimensions a tensor file reader accepts (and a writer writes).
// Every layer in the runtime works well within it; the limit keeps a corrupt
// header from asking for thousands of dimensions.
inline constexpr int kMaxTensorFileRank = 8;

// A dense array of any dtype in host memory, as read from or written to a
// weight or array file (.safetensors, .npy): the elements' little-endian
// bytes in C (row-major) order, `bytes.size() == shape.num_elements() *
// DTypeSize(dtype)`; the readers guarantee this, and the writers check it.
// float32, the common case, has a constructor from values and a typed view.
//
//   HostArray a(Shape({2, 3}), {1, 2, 3, 4, 5, 6});   // float32
//   a.values()[1 * 3 + 2] == 6                        // element [1, 2]
//   HostArray n = HostArray::Of<int64_t>(Shape(), {7});
//   n.dtype == DType::kInt64; n.ElementAsDouble(0) == 7
//
// `bytes` comes from operator new, so it is aligned for every dtype (16
// bytes on the platforms the runtime targets): the typed views are safe.
struct HostArray {
  HostArray() = default;
  // A float32 array.
  HostArray(Shape shape, std::vector<float> values);
  // An array of `dtype` from its raw bytes.
  HostArray(Shape shape, DType dtype, std::vector<char> bytes)
      : shape(std::move(shape)), dtype(dtype), bytes(std::move(bytes)) {}
  // An array of T's dtype (DTypeOf<T>) from its values.
  template <typename T>
  static HostArray Of(Shape shape, absl::Span<const T> values) {
    const char* begin = reinterpret_cast<const char*>(values.data());
    return HostArray(
        std::move(shape), DTypeOf<T>(),
        std::vector<char>(begin, begin + values.size() * sizeof(T)));
  }

  int64_t num_elements() const { return shape.num_elements(); }
  // Elements `bytes` holds (which the readers guarantee and the writers check
  // equals num_elements()).
  size_t stored_elements() const { return bytes.size() / DTypeSize(dtype); }

  // The values of a float32 array. Precondition: dtype == kFloat32 (checked
  // in debug builds); ToFloats() converts any dtype.
  absl::Span<const float> values() const;
  absl::Span<float> mutable_values();

  // Element `index` converted to double, and every element converted to
  // float (bool as 0/1, integers and float64 rounded as C++ converts).
  double ElementAsDouble(int64_t index) const;
  std::vector<float> ToFloats() const;

  Shape shape;
  DType dtype = DType::kFloat32;
  std::vector<char> bytes;
};

// OK when `array.bytes` holds exactly `shape`'s elements of its dtype, else
// InvalidArgument starting with `what`: "<what> has 5 values but shape [2, 3]
// has 6 elements (20 bytes of float32)". For writers.
absl::Status CheckArrayBytes(const HostArray& array, const Shape& shape,
                             absl::string_view what);

// An array of any dtype in host memory that something else owns, such as a
// tensor inside a memory-mapped weight file (MappedSafetensors):
// little-endian elements in C order, `size_bytes == shape.num_elements() *
// DTypeSize(dtype)`. `data` need not be aligned; read it with memcpy. Valid
// while its owner is.
struct HostArrayView {
  Shape shape;
  DType dtype = DType::kFloat32;
  const char* data = nullptr;
  size_t size_bytes = 0;
};

}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_HOST_ARRAY_H_
