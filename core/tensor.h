#ifndef SWITCHYARD_CORE_TENSOR_H_
#define SWITCHYARD_CORE_TENSOR_H_

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/backend.h"
#include "core/backend_registry.h"
#include "core/buffer.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/shape.h"

namespace switchyard {

// A dense, row-major tensor: shape, dtype and a buffer on one device. Copies
// of a Tensor share the buffer (like torch.Tensor handles); To() on another
// device makes a new buffer there. The buffer knows the device that owns
// it, so reading, copying and printing need no registry; making a tensor
// takes the BackendDevice, or a Device name and the registry to find it in.
//
//   BackendRegistry& r = BackendRegistry::Global();
//   absl::StatusOr<Tensor> x = Tensor::FromVector({2, 2}, {1, 2, 3, 4}, Device::Cpu(), r);
//   absl::StatusOr<Tensor> y = x->To(*Device::Parse("cuda:0"), r);
//   y->ToString() == "tensor([[1.0000, 2.0000],\n        [3.0000, 4.0000]], device='cuda:0')"
class Tensor {
 public:
  Tensor() = default;  // undefined: no buffer
  Tensor(Shape shape, DType dtype, std::shared_ptr<Buffer> buffer)
      : shape_(std::move(shape)), dtype_(dtype), buffer_(std::move(buffer)) {}

  // Uninitialized memory on `device`.
  static absl::StatusOr<Tensor> Empty(const Shape& shape, DType dtype,
                                      BackendDevice& device);
  static absl::StatusOr<Tensor> Empty(const Shape& shape, DType dtype,
                                      const Device& device,
                                      BackendRegistry& registry);
  // Host bytes (C order, `shape.num_elements() * DTypeSize(dtype)` of them)
  // copied to `device`.
  static absl::StatusOr<Tensor> FromBytes(const Shape& shape, DType dtype,
                                          const void* data, size_t size_bytes,
                                          BackendDevice& device);
  // Values of a C++ type (C order) on `device`; InvalidArgument when the
  // count does not match the shape.
  template <typename T>
  static absl::StatusOr<Tensor> FromValues(const Shape& shape,
                                           absl::Span<const T> values,
                                           BackendDevice& device) {
    return FromBytes(shape, DTypeOf<T>(), values.data(),
                     values.size() * sizeof(T), device);
  }
  // Float32 values (C order) on `device`.
  static absl::StatusOr<Tensor> FromVector(const Shape& shape,
                                           absl::Span<const float> values,
                                           BackendDevice& device);
  static absl::StatusOr<Tensor> FromVector(const Shape& shape,
                                           absl::Span<const float> values,
                                           const Device& device,
                                           BackendRegistry& registry);

  bool defined() const { return buffer_ != nullptr; }
  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  // Only for a defined tensor.
  const Device& device() const { return buffer_->device(); }
  BackendDevice& backend_device() const { return buffer_->owner(); }
  const std::shared_ptr<Buffer>& buffer() const { return buffer_; }
  int64_t num_elements() const { return shape_.num_elements(); }
  size_t size_bytes() const { return num_elements() * DTypeSize(dtype_); }
  // Address in the device's address space; only its backend may read it.
  template <typename T>
  T* data() const {
    return static_cast<T*>(buffer_->data());
  }

  // This tensor on `device`: itself when already there (no copy), else a
  // copy (direct between devices when the backend can, else via the host).
  absl::StatusOr<Tensor> To(BackendDevice& device) const;
  absl::StatusOr<Tensor> To(const Device& device,
                            BackendRegistry& registry) const;

  // The raw bytes copied to host memory.
  absl::StatusOr<std::vector<char>> ToBytes() const;
  // The values copied to host memory as `T`, which must be the dtype's own
  // C++ type (FailedPrecondition otherwise).
  template <typename T>
  absl::StatusOr<std::vector<T>> ToHost() const;
  // The values converted to float (from any dtype), for tests and printing.
  absl::StatusOr<std::vector<float>> ToVector() const;

  // Like PyTorch's repr: values (at most 6 per dimension shown past 1000
  // elements), the dtype unless float32, then the device.
  std::string ToString() const;

 private:
  Shape shape_;
  DType dtype_ = DType::kFloat32;
  std::shared_ptr<Buffer> buffer_;
};

// Copies the contents of `src` into `dst` (same shape and dtype), on
// whichever devices they live.
absl::Status CopyTensor(const Tensor& src, const Tensor& dst);

template <typename T>
absl::StatusOr<std::vector<T>> Tensor::ToHost() const {
  if (defined() && dtype_ != DTypeOf<T>()) {
    return absl::FailedPreconditionError(
        "ToHost<T>: T is not this tensor's dtype; use ToVector() to convert");
  }
  absl::StatusOr<std::vector<char>> bytes = ToBytes();
  if (!bytes.ok()) return bytes.status();
  std::vector<T> values(num_elements());
  if (!values.empty()) std::memcpy(values.data(), bytes->data(), bytes->size());
  return values;
}

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_TENSOR_H_
