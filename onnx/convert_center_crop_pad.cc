// ONNX CenterCropPad (opset 18): each listed axis cropped or zero-padded to
// its target size, centred, as one pad op (a negative pad removes
// elements). Both directions put the odd element at the end: a crop starts
// at floor((dim - size) / 2), a pad adds floor((size - dim) / 2) in front.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"

namespace switchyard {
namespace onnx_import {
namespace {

// The most elements the output may have (a padded size comes from the
// model's data, so it is bounded before anything is allocated).
constexpr int64_t kMaxOutputElements = int64_t{1} << 28;

absl::Status ConvertCenterCropPad(NodeContext& ctx) {
  const Shape x = ctx.InShape(0);
  const int rank = x.rank();
  std::vector<int64_t> all_axes;
  for (int d = 0; d < rank; ++d) all_axes.push_back(d);
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.Ints("axes", all_axes));
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ctx.ConstInts(1, "shape"));
  if (sizes.size() != axes.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape has ", sizes.size(), " values but there are ", axes.size(),
        " axes (", absl::StrJoin(axes, ", "),
        "); give one target size per axis (all of the input's axes when axes is absent)"));
  }
  std::set<int64_t> seen;
  for (int64_t& a : axes) {
    SY_ASSIGN_OR_RETURN(a, NormalizeAxis(a, rank, "axes"));
    if (!seen.insert(a).second) {
      return absl::InvalidArgumentError(absl::StrCat("axis ", a, " is listed twice in axes"));
    }
  }
  std::vector<int64_t> out = x.dims();
  for (size_t i = 0; i < axes.size(); ++i) {
    if (sizes[i] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape value ", i, " (axis ", axes[i], ") is ", sizes[i],
          "; target sizes must be >= 0"));
    }
    if (sizes[i] > kMaxOutputElements) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape value ", i, " (axis ", axes[i], ") is ", sizes[i],
          "; at most 2^28 per axis is supported"));
    }
    out[axes[i]] = sizes[i];
  }
  int64_t elements = 1;
  for (int64_t d : out) {
    if (d == 0) {
      elements = 0;
      break;
    }
    if (elements > kMaxOutputElements / d) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the output would have more than 2^28 elements (",
          Shape(out).ToString(), "); shape is too large"));
    }
    elements *= d;
  }
  // pads: every axis's begin, then every axis's end; negative crops.
  std::vector<int64_t> pads(2 * rank, 0);
  for (int d = 0; d < rank; ++d) {
    const int64_t diff = out[d] - x.dim(d);
    const int64_t magnitude = diff < 0 ? -diff : diff;
    const int64_t front = magnitude / 2;
    const int64_t back = magnitude - front;
    pads[d] = diff < 0 ? -front : front;
    pads[rank + d] = diff < 0 ? -back : back;
  }
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "pad", {ctx.In(0)},
                                Attrs({{"pads", pads},
                                       {"mode", std::string("constant")},
                                       {"value", 0.0}})));
  return ctx.SetOutput(0, y);
}

}  // namespace

SY_REGISTER_ONNX_CONVERTER("CenterCropPad", ConvertCenterCropPad, 2);

}  // namespace onnx_import
}  // namespace switchyard
