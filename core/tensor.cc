#include "core/tensor.h"

#include <cmath>
#include <cstdio>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace switchyard {
namespace {

// PyTorch's print options: summarize past 1000 elements, 3 edge items.
constexpr int64_t kSummaryThreshold = 1000;
constexpr int64_t kEdgeItems = 3;

std::string FormatValue(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char text[64];
  std::snprintf(text, sizeof(text), "%.4f", v);
  return text;
}

void FormatDim(const std::vector<float>& values, const Shape& shape, int dim,
               int64_t offset, bool summarize, int indent, std::string* out) {
  if (dim == shape.rank()) {
    out->append(FormatValue(values[offset]));
    return;
  }
  int64_t stride = 1;
  for (int d = dim + 1; d < shape.rank(); ++d) stride *= shape.dim(d);
  const int64_t n = shape.dim(dim);
  const bool cut = summarize && n > 2 * kEdgeItems;
  const bool last_dim = dim + 1 == shape.rank();
  out->append("[");
  for (int64_t i = 0; i < n; ++i) {
    if (cut && i == kEdgeItems) {
      out->append(last_dim ? "..., " : "...,\n" + std::string(indent + 1, ' '));
      i = n - kEdgeItems;
    }
    FormatDim(values, shape, dim + 1, offset + i * stride, summarize,
              indent + 1, out);
    if (i + 1 < n) {
      if (last_dim) {
        out->append(", ");
      } else {
        out->append(",");
        out->append(std::string(shape.rank() - dim - 1, '\n'));
        out->append(std::string(indent + 1, ' '));
      }
    }
  }
  out->append("]");
}

}  // namespace

absl::StatusOr<Tensor> Tensor::Empty(const Shape& shape, DType dtype,
                                     const Device& device,
                                     BackendRegistry& registry) {
  SY_ASSIGN_OR_RETURN(Shape checked,
                      Shape::Create(shape.dims(), DTypeSize(dtype)));
  SY_ASSIGN_OR_RETURN(BackendDevice * backend_device,
                      registry.GetDevice(device));
  SY_ASSIGN_OR_RETURN(
      std::shared_ptr<Buffer> buffer,
      backend_device->Allocate(checked.num_elements() * DTypeSize(dtype)));
  return Tensor(std::move(checked), dtype, std::move(buffer));
}

absl::StatusOr<Tensor> Tensor::FromVector(const Shape& shape,
                                          absl::Span<const float> values,
                                          const Device& device,
                                          BackendRegistry& registry) {
  if (static_cast<int64_t>(values.size()) != shape.num_elements()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape ", shape.ToString(), " holds ", shape.num_elements(),
        " elements but ", values.size(), " values were given"));
  }
  SY_ASSIGN_OR_RETURN(Tensor tensor,
                      Empty(shape, DType::kFloat32, device, registry));
  // Nothing to copy, and an empty span's data() may be null, which no
  // backend should have to expect.
  if (tensor.size_bytes() == 0) return tensor;
  SY_ASSIGN_OR_RETURN(BackendDevice * backend_device,
                      registry.GetDevice(device));
  SY_RETURN_IF_ERROR(backend_device->CopyFromHost(
      values.data(), *tensor.buffer(), tensor.size_bytes()));
  return tensor;
}

absl::Status CopyTensor(const Tensor& src, const Tensor& dst,
                        BackendRegistry& registry) {
  if (src.shape() != dst.shape() || src.dtype() != dst.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot copy a ", DTypeName(src.dtype()), src.shape().ToString(),
        " tensor into a ", DTypeName(dst.dtype()), dst.shape().ToString(),
        " tensor"));
  }
  const size_t bytes = src.size_bytes();
  if (bytes == 0) return absl::OkStatus();
  SY_ASSIGN_OR_RETURN(BackendDevice * from, registry.GetDevice(src.device()));
  SY_ASSIGN_OR_RETURN(BackendDevice * to, registry.GetDevice(dst.device()));
  absl::Status direct = from->CopyToDevice(*src.buffer(), *to, *dst.buffer(),
                                           bytes);
  if (direct.code() != absl::StatusCode::kUnimplemented) return direct;
  // Staged through host memory: works between any two backends.
  std::vector<char> staging(bytes);
  SY_RETURN_IF_ERROR(from->CopyToHost(*src.buffer(), staging.data(), bytes));
  SY_RETURN_IF_ERROR(from->Synchronize());
  SY_RETURN_IF_ERROR(to->CopyFromHost(staging.data(), *dst.buffer(), bytes));
  return to->Synchronize();
}

absl::StatusOr<Tensor> Tensor::To(const Device& device,
                                  BackendRegistry& registry) const {
  if (!defined()) {
    return absl::FailedPreconditionError("cannot move an undefined tensor");
  }
  if (device == this->device()) return *this;
  SY_ASSIGN_OR_RETURN(Tensor moved, Empty(shape_, dtype_, device, registry));
  SY_RETURN_IF_ERROR(CopyTensor(*this, moved, registry));
  return moved;
}

absl::StatusOr<std::vector<float>> Tensor::ToVector(
    BackendRegistry& registry) const {
  if (!defined()) {
    return absl::FailedPreconditionError("cannot read an undefined tensor");
  }
  std::vector<float> values(num_elements());
  if (values.empty()) return values;
  SY_ASSIGN_OR_RETURN(BackendDevice * backend_device,
                      registry.GetDevice(device()));
  SY_RETURN_IF_ERROR(
      backend_device->CopyToHost(*buffer_, values.data(), size_bytes()));
  SY_RETURN_IF_ERROR(backend_device->Synchronize());
  return values;
}

std::string Tensor::ToString(BackendRegistry& registry) const {
  if (!defined()) return "tensor(undefined)";
  absl::StatusOr<std::vector<float>> values = ToVector(registry);
  if (!values.ok()) {
    return absl::StrCat("tensor(<unreadable: ", values.status().message(),
                        ">, device='", device().ToString(), "')");
  }
  std::string out = "tensor(";
  if (num_elements() == 0) {
    absl::StrAppend(&out, "[], size=", shape_.ToString());
  } else {
    FormatDim(*values, shape_, 0, 0, num_elements() > kSummaryThreshold,
              /*indent=*/7, &out);
  }
  absl::StrAppend(&out, ", device='", device().ToString(), "')");
  return out;
}

}  // namespace switchyard
