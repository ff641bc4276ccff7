// RefKernel::Run, the checks every reference kernel makes, and the byte
// copy that Flatten and Dropout share.

#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "backends/reference/kernels/kernels.h"

namespace switchyard {
namespace reference {
namespace {

absl::Status CheckTensor(const Tensor* tensor, const char* role, size_t index,
                         const Device& device, DType dtype) {
  if (tensor == nullptr || !tensor->defined()) {
    return absl::InternalError(absl::StrCat(role, " ", index, " is undefined"));
  }
  if (tensor->dtype() != dtype) {
    return absl::InternalError(absl::StrCat(
        role, " ", index, " is ", DTypeName(tensor->dtype()),
        " but the reference kernel was built for ", DTypeName(dtype)));
  }
  if (tensor->device() != device) {
    return absl::InternalError(absl::StrCat(
        role, " ", index, " is on ", tensor->device().ToString(),
        " but the kernel runs on ", device.ToString(),
        "; only copy nodes may cross devices (a placement bug)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RefKernel::Run(absl::Span<const Tensor* const> inputs,
                            absl::Span<Tensor* const> outputs) {
  const int count = static_cast<int>(inputs.size());
  if (count < min_inputs_ || count > max_inputs_ || outputs.size() != 1) {
    return absl::InternalError(absl::StrCat(
        "reference kernel got ", count, " inputs and ", outputs.size(),
        " outputs; it takes ", min_inputs_, " to ", max_inputs_,
        " inputs and 1 output"));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    absl::Status status = CheckTensor(inputs[i], "input", i, device_, dtype_);
    if (!status.ok()) return status;
  }
  absl::Status status = CheckTensor(outputs[0], "output", 0, device_, dtype_);
  if (!status.ok()) return status;
  Compute(inputs, *outputs[0]);
  return absl::OkStatus();
}

void CopyElementsKernel::Compute(absl::Span<const Tensor* const> inputs,
                                 Tensor& output) {
  if (output.size_bytes() == 0) return;
  std::memcpy(output.data<void>(), inputs[0]->data<void>(),
              output.size_bytes());
}

absl::StatusOr<std::unique_ptr<Kernel>> MakeCopyElements(const Node& node,
                                                         const Graph& graph,
                                                         RefDevice& device) {
  return std::make_unique<CopyElementsKernel>(device, KernelDType(node, graph));
}

}  // namespace reference
}  // namespace switchyard
