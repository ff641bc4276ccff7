#include "core/shared_memory.h"

#include <memory>

#include "absl/strings/str_cat.h"

namespace switchyard {

bool SharesMemory(const BackendDevice& from, const BackendDevice& to) {
  return &from != &to && from.host_memory() && to.host_memory();
}

absl::StatusOr<Tensor> ShareWith(const Tensor& tensor, BackendDevice& device) {
  if (!tensor.defined()) {
    return absl::FailedPreconditionError("cannot share an undefined tensor");
  }
  if (!SharesMemory(tensor.backend_device(), device)) {
    return absl::FailedPreconditionError(absl::StrCat(
        tensor.device().ToString(), " and ", device.device().ToString(),
        " do not share memory: copy the tensor (Tensor::To)"));
  }
  std::shared_ptr<Buffer> source = tensor.buffer();
  auto shared = std::make_shared<Buffer>(device, device.device(), source->data(),
                                         source->size_bytes(), [source](void*) {});
  return Tensor(tensor.shape(), tensor.dtype(), std::move(shared));
}

absl::StatusOr<Tensor> MoveOrShare(const Tensor& tensor, BackendDevice& device) {
  if (tensor.defined() && SharesMemory(tensor.backend_device(), device)) {
    return ShareWith(tensor, device);
  }
  return tensor.To(device);
}

}  // namespace switchyard
