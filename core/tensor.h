#ifndef SWITCHYARD_CORE_TENSOR_H_
#define SWITCHYARD_CORE_TENSOR_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/backend_registry.h"
#include "core/buffer.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/shape.h"

namespace switchyard {

// A dense, row-major tensor: shape, dtype and a buffer on one device. Copies
// of a Tensor share the buffer (like torch.Tensor handles); To() on another
// device makes a new buffer there.
//
//   absl::StatusOr<Tensor> x = Tensor::FromVector({2, 2}, {1, 2, 3, 4});
//   absl::StatusOr<Tensor> y = x->To(*Device::Parse("cuda:0"));
//   y->ToString() == "tensor([[1.0000, 2.0000],\n        [3.0000, 4.0000]], device='cuda:0')"
class Tensor {
 public:
  Tensor() = default;  // undefined: no buffer
  Tensor(Shape shape, DType dtype, std::shared_ptr<Buffer> buffer)
      : shape_(std::move(shape)), dtype_(dtype), buffer_(std::move(buffer)) {}

  // Uninitialized memory on `device`.
  static absl::StatusOr<Tensor> Empty(
      const Shape& shape, DType dtype, const Device& device,
      BackendRegistry& registry = BackendRegistry::Global());
  // Float32 values (C order) placed on `device`; InvalidArgument when the
  // count does not match the shape.
  static absl::StatusOr<Tensor> FromVector(
      const Shape& shape, absl::Span<const float> values,
      const Device& device = Device::Cpu(),
      BackendRegistry& registry = BackendRegistry::Global());

  bool defined() const { return buffer_ != nullptr; }
  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  // Only for a defined tensor.
  const Device& device() const { return buffer_->device(); }
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
  absl::StatusOr<Tensor> To(
      const Device& device,
      BackendRegistry& registry = BackendRegistry::Global()) const;

  // The values copied to host memory.
  absl::StatusOr<std::vector<float>> ToVector(
      BackendRegistry& registry = BackendRegistry::Global()) const;

  // Like PyTorch's repr: values (at most 6 per dimension shown past 1000
  // elements), then the device.
  std::string ToString(
      BackendRegistry& registry = BackendRegistry::Global()) const;

 private:
  Shape shape_;
  DType dtype_ = DType::kFloat32;
  std::shared_ptr<Buffer> buffer_;
};

// Copies the contents of `src` into `dst` (same shape and dtype), on
// whichever devices they live.
absl::Status CopyTensor(const Tensor& src, const Tensor& dst,
                        BackendRegistry& registry);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_TENSOR_H_
