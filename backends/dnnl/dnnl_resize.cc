// resize on oneDNN's resampling primitive (nearest, linear) over the spatial
// axes of an [N, C, ...] value, in the value's own layout: a detector's FPN
// upsamples blocked convolution outputs and adds them to others, and on the
// CPU backend each resize cut the backbone's partition in two, with a
// reorder and a copy either side.
//
// oneDNN has one coordinate rule, half-pixel: output o reads input
// (o + 0.5) * in / out - 0.5, rounded (nearest) or between its two
// neighbours (linear), an index past an end reading the end element. Which
// of ONNX's modes agree depends on the sizes (nearest asymmetric/floor
// agrees for whole-number upsampling, FPN's 2x; half_pixel linear always
// does), so the check compares both rules' taps at every output index of
// every resized axis instead of listing modes.

#include <cmath>
#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"
#include "ops/resize_attrs.h"
#include "ops/resize_geometry.h"

namespace switchyard {
namespace onednn {
namespace {

// Input index -> weight for one output index (taps on one index merged).
using Taps = std::map<int64_t, double>;

Taps NodeTaps(const ResizeAxis& axis, int64_t o) {
  int64_t index[kMaxResizeTaps];
  double weight[kMaxResizeTaps];
  Taps taps;
  const int n = ResizeTaps(axis, o, index, weight);
  for (int k = 0; k < n; ++k) {
    if (weight[k] != 0.0) taps[index[k]] += weight[k];
  }
  return taps;
}

int64_t Clamp(int64_t i, int64_t n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

// oneDNN's taps, or none when its float arithmetic could round either way
// (a nearest coordinate within 1e-4 of a half).
std::optional<Taps> OneDnnTaps(bool linear, int64_t in, int64_t out, int64_t o) {
  const double x = (static_cast<double>(o) + 0.5) * static_cast<double>(in) /
                       static_cast<double>(out) - 0.5;
  const double f = std::floor(x);
  const double t = x - f;
  const int64_t i = static_cast<int64_t>(f);
  Taps taps;
  if (!linear) {
    if (std::abs(t - 0.5) < 1e-4) return std::nullopt;
    taps[Clamp(t > 0.5 ? i + 1 : i, in)] = 1.0;
    return taps;
  }
  if (1.0 - t != 0.0) taps[Clamp(i, in)] += 1.0 - t;
  if (t != 0.0) taps[Clamp(i + 1, in)] += t;
  return taps;
}

bool SameTaps(const Taps& a, const Taps& b) {
  if (a.size() != b.size()) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
    if (i->first != j->first || std::abs(i->second - j->second) > 1e-6) {
      return false;
    }
  }
  return true;
}

// OK when oneDNN's resampling gives what `a` asks of `input`; else why not.
absl::Status CheckResizeAttrs(const ResizeAttrs& a, const Shape& input) {
  if (a.mode == ResizeMode::kCubic) {
    return absl::UnimplementedError("oneDNN resamples nearest or linear only, "
                                    "not cubic");
  }
  if (input.rank() < 3 || input.rank() > 5) {
    return absl::UnimplementedError(absl::StrCat(
        "oneDNN resamples [N, C, ...] values with 1 to 3 spatial axes, not rank ",
        input.rank()));
  }
  if (static_cast<int>(a.sizes.size()) != input.rank()) {
    return absl::UnimplementedError("its sizes do not match its input's rank");
  }
  for (int d = 0; d < 2; ++d) {
    if (!a.Axis(input, d).identity) {
      return absl::UnimplementedError(absl::StrCat(
          "it resizes axis ", d, "; oneDNN resamples the spatial axes (2 on) "
          "only"));
    }
  }
  const bool linear = a.mode == ResizeMode::kLinear;
  for (int d = 2; d < input.rank(); ++d) {
    const ResizeAxis axis = a.Axis(input, d);
    if (axis.identity) continue;
    for (int64_t o = 0; o < axis.out; ++o) {
      const std::optional<Taps> theirs = OneDnnTaps(linear, axis.in, axis.out, o);
      if (!theirs || !SameTaps(NodeTaps(axis, o), *theirs)) {
        return absl::UnimplementedError(absl::StrCat(
            "on axis ", d, " (", axis.in, " -> ", axis.out, ") output ", o,
            " reads other inputs than oneDNN's half-pixel ",
            linear ? "linear" : "nearest", " rule would"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckResize(const Node& node, const Graph&, const NodeShapes& shapes) {
  absl::StatusOr<ResizeAttrs> a = ResizeAttrs::FromAttrMap(node.attrs);
  if (!a.ok()) return Refuse(node, std::string(a.status().message()));
  const absl::Status supported = CheckResizeAttrs(*a, shapes.in[0]);
  if (!supported.ok()) return Refuse(node, std::string(supported.message()));
  return absl::OkStatus();
}

absl::Status LowerResize(PartitionBuilder& b, const FusionGroup&,
                         const Node& node, ValueId) {
  SY_ASSIGN_OR_RETURN(ResizeAttrs a, ResizeAttrs::FromAttrMap(node.attrs));
  SY_ASSIGN_OR_RETURN(MemRef s, b.Natural(node.inputs[0]));
  const dnnl::algorithm algorithm = a.mode == ResizeMode::kLinear
                                        ? dnnl::algorithm::resampling_linear
                                        : dnnl::algorithm::resampling_nearest;
  b.AddSourcePrimitive<dnnl::resampling_forward>(
      dnnl::resampling_forward::desc(
          dnnl::prop_kind::forward_inference, algorithm, s.md,
          dnnl::memory::desc(Dims(a.sizes.begin(), a.sizes.end()), kF32, Tag::any)),
      node, s);
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
