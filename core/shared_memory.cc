#include "core/shared_memory.h"

#include <memory>

#include "absl/strings/str_cat.h"

namespace switchyard {

std::shared_ptr<Buffer> ViewOf(std::shared_ptr<Buffer> source, BackendDevice& device,
                               size_t offset, size_t bytes) {
  void* data = static_cast<char*>(source->data()) + offset;
  return std::make_shared<Buffer>(device, device.device(), data, bytes,
                                  [source = std::move(source)](void*) {});
}

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
  return Tensor(tensor.shape(), tensor.dtype(),
                ViewOf(tensor.buffer(), device, 0, tensor.buffer()->size_bytes()));
}

absl::StatusOr<Tensor> MoveOrShare(const Tensor& tensor, BackendDevice& device) {
  if (tensor.defined() && SharesMemory(tensor.backend_device(), device)) {
    return ShareWith(tensor, device);
  }
  return tensor.To(device);
}

}  // namespace switchyard
