#include "models/host_array.h"

#include <cassert>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace switchyard {

HostArray::HostArray(Shape shape, std::vector<float> values)
    : shape(std::move(shape)), dtype(DType::kFloat32) {
  bytes.resize(values.size() * sizeof(float));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
}

absl::Span<const float> HostArray::values() const {
  assert(dtype == DType::kFloat32);
  return absl::Span<const float>(reinterpret_cast<const float*>(bytes.data()),
                                 bytes.size() / sizeof(float));
}

absl::Span<float> HostArray::mutable_values() {
  assert(dtype == DType::kFloat32);
  return absl::Span<float>(reinterpret_cast<float*>(bytes.data()),
                           bytes.size() / sizeof(float));
}

double HostArray::ElementAsDouble(int64_t index) const {
  return ::switchyard::ElementAsDouble(bytes.data(), dtype, index);
}

std::vector<float> HostArray::ToFloats() const {
  std::vector<float> out(stored_elements());
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<float>(ElementAsDouble(static_cast<int64_t>(i)));
  }
  return out;
}

absl::Status CheckArrayBytes(const HostArray& array, const Shape& shape,
                             absl::string_view what) {
  const size_t element_size = DTypeSize(array.dtype);
  if (array.bytes.size() % element_size != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " has ", array.bytes.size(), " bytes, not a whole number of ",
        element_size, "-byte ", DTypeName(array.dtype), " values"));
  }
  if (array.stored_elements() != static_cast<uint64_t>(shape.num_elements())) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " has ", array.stored_elements(), " values but shape ",
        shape.ToString(), " has ", shape.num_elements(), " elements (",
        array.bytes.size(), " bytes of ", DTypeName(array.dtype), ")"));
  }
  return absl::OkStatus();
}

}  // namespace switchyard
