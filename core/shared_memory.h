#ifndef SWITCHYARD_CORE_SHARED_MEMORY_H_
#define SWITCHYARD_CORE_SHARED_MEMORY_H_

#include <cstddef>
#include <memory>

#include "absl/status/statusor.h"
#include "core/backend.h"
#include "core/tensor.h"

namespace switchyard {

// Devices whose memory is the host's (BackendDevice::host_memory: cpu:0,
// dnnl:0, ref:0, a plugin's host device) can each read and write the
// other's buffers, so a tensor changes device among them without a copy:
// the same bytes under a Buffer of the new device, which keeps the old one
// alive. Auto placement between cpu:0 and dnnl:0 then costs a kernel where a
// fast backend lacks an op, not a copy of its operands, and a model's
// weights are held once when it moves to dnnl:0.
//
// The two tensors share memory, as torch's x.to() does on the same device:
// writing one changes the other. Core shares only what nothing writes after
// the move: parameters, constants, and values of a plan's run.
//
//   if (SharesMemory(x.backend_device(), dnnl)) y = *ShareWith(x, dnnl);
bool SharesMemory(const BackendDevice& from, const BackendDevice& to);

// `bytes` at `offset` of `source` as a buffer of `device` (source's own
// device, or one that shares its memory), keeping `source` alive; the
// caller checks that the range fits. A workspace's slots and shared
// tensors are such views.
std::shared_ptr<Buffer> ViewOf(std::shared_ptr<Buffer> source, BackendDevice& device,
                               size_t offset, size_t bytes);

// `tensor` as a tensor of `device` over the same bytes; FailedPrecondition
// unless SharesMemory(tensor's device, device).
absl::StatusOr<Tensor> ShareWith(const Tensor& tensor, BackendDevice& device);

// `tensor` on `device`: itself when already there, shared when the devices
// share memory, else a copy (Tensor::To).
absl::StatusOr<Tensor> MoveOrShare(const Tensor& tensor, BackendDevice& device);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_SHARED_MEMORY_H_
