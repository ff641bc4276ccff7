// RefKernel::Run, the checks every reference kernel makes, and the
// element copy that Flatten and Dropout share.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "backends/reference/kernels/kernels.h"

namespace switchyard {
namespace reference {
namespace {

absl::Status CheckTensor(const Tensor* tensor, const char* role, size_t index,
                         const Device& device) {
  if (tensor == nullptr || !tensor->defined()) {
    return absl::InternalError(
        absl::StrCat(role, " ", index, " is undefined"));
  }
  if (tensor->dtype() != DType::kFloat32) {
    return absl::InternalError(absl::StrCat(
        role, " ", index, " is ", DTypeName(tensor->dtype()),
        "; the reference backend computes float32 only"));
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
    absl::Status status = CheckTensor(inputs[i], "input", i, device_);
    if (!status.ok()) return status;
  }
  absl::Status status = CheckTensor(outputs[0], "output", 0, device_);
  if (!status.ok()) return status;
  Compute(inputs, *outputs[0]);
  return absl::OkStatus();
}

void CopyElementsKernel::Compute(absl::Span<const Tensor* const> inputs,
                                 Tensor& output) {
  const float* in = inputs[0]->data<float>();
  std::copy(in, in + output.num_elements(), output.data<float>());
}

}  // namespace reference
}  // namespace switchyard
