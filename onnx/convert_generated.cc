// ONNX ops whose output depends only on shapes and scalar sizes, never on
// tensor data: EyeLike and the window functions (HannWindow,
// HammingWindow, BlackmanWindow). The output is made on the host at import
// as a constant; a window's size computed at run time is read first (a
// staged run's request for its contents), like a Reshape's shape.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"
#include "onnx/onnx_tensor.h"

namespace switchyard {
namespace onnx_import {
namespace {

// The most elements such a constant may have (64 MiB of float32): beyond
// it the request is refused before anything is allocated.
constexpr int64_t kMaxGeneratedElements = int64_t{1} << 24;

absl::Status CheckGeneratedSize(int64_t elements, const std::string& what) {
  if (elements > kMaxGeneratedElements) {
    return absl::ResourceExhaustedError(absl::StrCat(
        what, " would have ", elements, " elements; Switchyard makes it on the "
        "host at import and allows at most ", kMaxGeneratedElements));
  }
  return absl::OkStatus();
}

// The dtype of attribute `name` (an ONNX TensorProto.DataType), or `fallback`
// when absent.
absl::StatusOr<DType> DTypeAttr(NodeContext& ctx, const std::string& name,
                                DType fallback) {
  if (!ctx.HasAttr(name)) return fallback;
  SY_ASSIGN_OR_RETURN(int64_t onnx_type, ctx.Int(name, 0));
  return DTypeFromOnnx(static_cast<int32_t>(onnx_type));
}

// EyeLike: a 2-D tensor of the input's shape, 1 on diagonal k, else 0.
absl::Status ConvertEyeLike(NodeContext& ctx) {
  const Shape& x = ctx.InShape(0);
  SY_ASSIGN_OR_RETURN(DType dtype, DTypeAttr(ctx, "dtype", ctx.Type(ctx.In(0)).dtype));
  SY_ASSIGN_OR_RETURN(int64_t k, ctx.Int("k", 0));
  if (x.rank() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("the input must be 2-D, got ", x.ToString()));
  }
  const int64_t rows = x.dim(0), cols = x.dim(1);
  SY_RETURN_IF_ERROR(CheckGeneratedSize(x.num_elements(), "EyeLike's output"));
  std::vector<char> bytes(static_cast<size_t>(x.num_elements()) * DTypeSize(dtype), 0);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t c = r + k;
    if (c >= 0 && c < cols) SetElementFromDouble(bytes.data(), dtype, r * cols + c, 1.0);
  }
  return ctx.SetOutput(0, ctx.Constant(HostArray(x, dtype, std::move(bytes))));
}

// A window of `size` points: coefficients a0, a1, a2 of
// a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N the size when periodic,
// else size - 1 (ONNX's definitions of the three windows).
absl::Status Window(NodeContext& ctx, double a0, double a1, double a2) {
  SY_ASSIGN_OR_RETURN(int64_t periodic, ctx.Int("periodic", 1));
  SY_ASSIGN_OR_RETURN(DType dtype, DTypeAttr(ctx, "output_datatype", DType::kFloat32));
  SY_ASSIGN_OR_RETURN(double given, ctx.ConstScalar(0, "size"));
  if (!(given >= 0) || given != std::floor(given)) {
    return absl::InvalidArgumentError(
        absl::StrCat("size must be a whole number >= 0, got ", given));
  }
  SY_RETURN_IF_ERROR(CheckGeneratedSize(
      given > static_cast<double>(kMaxGeneratedElements) ? kMaxGeneratedElements + 1
                                                          : static_cast<int64_t>(given),
      absl::StrCat(ctx.op_type(), "'s output")));
  const int64_t size = static_cast<int64_t>(given);
  const double n_total = periodic != 0 ? size : size - 1;
  std::vector<char> bytes(static_cast<size_t>(size) * DTypeSize(dtype));
  for (int64_t n = 0; n < size; ++n) {
    const double t = 2 * M_PI * n / n_total;
    const double w = a0 - a1 * std::cos(t) + a2 * std::cos(2 * t);
    // A symmetric window of one point is [1], as numpy's (N = 0 would
    // divide by zero).
    SetElementFromDouble(bytes.data(), dtype, n, n_total > 0 ? w : 1.0);
  }
  return ctx.SetOutput(0, ctx.Constant(HostArray(Shape({size}), dtype, std::move(bytes))));
}

absl::Status ConvertHannWindow(NodeContext& ctx) { return Window(ctx, 0.5, 0.5, 0.0); }
absl::Status ConvertHammingWindow(NodeContext& ctx) {
  return Window(ctx, 25.0 / 46.0, 21.0 / 46.0, 0.0);
}
absl::Status ConvertBlackmanWindow(NodeContext& ctx) { return Window(ctx, 0.42, 0.5, 0.08); }

SY_REGISTER_ONNX_CONVERTER("EyeLike", ConvertEyeLike);
SY_REGISTER_ONNX_CONVERTER("HannWindow", ConvertHannWindow);
SY_REGISTER_ONNX_CONVERTER("HammingWindow", ConvertHammingWindow);
SY_REGISTER_ONNX_CONVERTER("BlackmanWindow", ConvertBlackmanWindow);

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
