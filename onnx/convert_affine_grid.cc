// AffineGrid (opset 20): the sampling grid of torch.nn.functional.affine_grid,
// each output point theta applied to its normalized coordinates.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"

namespace switchyard {
namespace onnx_import {
namespace {

// The base grid is a host constant of points * (dims + 1) values: at most
// this many points (64 MiB of float32 for a 3-D grid), and the output at
// most kMaxOutputElements, checked before anything is allocated.
constexpr int64_t kMaxGridPoints = int64_t{1} << 22;
constexpr int64_t kMaxOutputElements = int64_t{1} << 28;

// Coordinate i of `length` points spanning [-1, 1]: the end points are the
// corner pixels' centres (align_corners) or their outer edges. A single
// point with align_corners is 1, as ONNX Runtime gives (its linear spacing
// of one point is the end point).
double GridCoordinate(int64_t i, int64_t length, bool align_corners) {
  if (align_corners) {
    return length == 1 ? 1.0 : -1.0 + 2.0 * static_cast<double>(i) / (length - 1);
  }
  return (2.0 * static_cast<double>(i) + 1.0) / length - 1.0;
}

// The output: base [points, dims + 1] (each row x, y[, z], 1, x fastest)
// times theta^T [N, dims + 1, dims], reshaped to [N, (D,) H, W, dims].
absl::Status ConvertAffineGrid(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(int64_t align, ctx.Int("align_corners", 0));
  const Shape& theta = ctx.InShape(0);
  const DType t = ctx.Type(ctx.In(0)).dtype;
  if (!IsFloatingPoint(t)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "theta is ", DTypeName(t), "; AffineGrid takes a floating-point theta"));
  }
  if (theta.rank() != 3 || !((theta.dim(1) == 2 && theta.dim(2) == 3) ||
                             (theta.dim(1) == 3 && theta.dim(2) == 4))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "theta must be [N, 2, 3] (2-D) or [N, 3, 4] (3-D), got ", theta.ToString()));
  }
  const int64_t dims = theta.dim(1);
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> size, ctx.ConstInts(1, "size"));
  if (static_cast<int64_t>(size.size()) != dims + 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "size has ", size.size(), " values; theta ", theta.ToString(), " needs ", dims + 2,
        dims == 2 ? " ([N, C, H, W])" : " ([N, C, D, H, W])"));
  }
  int64_t points = 1;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] <= 0 || size[i] > kMaxGridPoints) {
      return absl::InvalidArgumentError(absl::StrCat(
          "size[", i, "] is ", size[i], "; every size must be in [1, ", kMaxGridPoints, "]"));
    }
    if (i >= 2) {
      points *= size[i];  // each factor <= 2^22 and the product checked: no overflow
      if (points > kMaxGridPoints) {
        return absl::InvalidArgumentError(absl::StrCat(
            "size ", Shape(size).ToString(), " asks for more than ", kMaxGridPoints,
            " grid points; Switchyard builds the base grid at import and allows at most that"));
      }
    }
  }
  if (size[0] != theta.dim(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "size[0] is ", size[0], " but theta ", theta.ToString(), " has ", theta.dim(0),
        " batch entries; they must agree"));
  }
  if (theta.dim(0) > kMaxOutputElements / (points * dims)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "size ", Shape(size).ToString(), " gives more than ", kMaxOutputElements,
        " output values"));
  }

  // Spatial sizes from slowest to fastest: (D,) H, W; row p's coordinates
  // are x (of W), y (of H)[, z (of D)], then 1.
  const std::vector<int64_t> spatial(size.begin() + 2, size.end());
  std::vector<char> bytes(static_cast<size_t>(points * (dims + 1)) * DTypeSize(t));
  for (int64_t p = 0; p < points; ++p) {
    int64_t rest = p;
    for (int64_t d = dims - 1; d >= 0; --d) {
      const int64_t len = spatial[d];
      const int64_t coord = dims - 1 - d;  // W gives x (0), H gives y (1), D gives z (2)
      SetElementFromDouble(bytes.data(), t, p * (dims + 1) + coord,
                           GridCoordinate(rest % len, len, align != 0));
      rest /= len;
    }
    SetElementFromDouble(bytes.data(), t, p * (dims + 1) + dims, 1.0);
  }
  const Val base = ctx.Constant(HostArray(Shape({points, dims + 1}), t, std::move(bytes)));
  SY_ASSIGN_OR_RETURN(Val theta_t, Op(ctx, "transpose", {ctx.In(0)},
                                      Attrs({{"perm", std::vector<int64_t>{0, 2, 1}}})));
  SY_ASSIGN_OR_RETURN(Val grid, Op(ctx, "matmul", {base, theta_t}));
  std::vector<int64_t> out = {theta.dim(0)};
  out.insert(out.end(), spatial.begin(), spatial.end());
  out.push_back(dims);
  SY_ASSIGN_OR_RETURN(grid, Reshape(ctx, grid, out));
  return ctx.SetOutput(0, grid);
}

SY_REGISTER_ONNX_CONVERTER("AffineGrid", ConvertAffineGrid, 2);

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
