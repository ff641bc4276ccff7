// GridSample (opsets 16 and 20: input [N, C, H, W], grid [N, H_out, W_out, 2]
// of (x, y) in [-1, 1]; opset 20's modes are linear and cubic, 16's bilinear
// and bicubic) composed of elementwise ops and gather_elements, so
// every backend runs it. Semantics as PyTorch's grid_sample, which ONNX's
// follows:
//   - a grid value becomes a pixel coordinate: (g + 1) / 2 * (size - 1)
//     with align_corners, else ((g + 1) * size - 1) / 2;
//   - nearest rounds half to even; bilinear weighs the 4 pixels around the
//     point; bicubic the 16 around it with the cubic convolution kernel of
//     A = -0.75;
//   - padding_mode zeros reads 0 outside the image; border clamps and
//     reflection mirrors the coordinate (bilinear and nearest: the point;
//     bicubic: each of its 16 pixels).
// Each pixel read is one gather_elements over the input flattened to
// [N, C, H * W]. Indices are clamped into the image before the cast to
// integers (a NaN or infinite grid value reads a border pixel, and zeros
// mode masks it), so no grid value can index outside the input.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"

namespace switchyard {
namespace onnx_import {
namespace {

enum class Padding { kZeros, kBorder, kReflection };

class GridSampler {
 public:
  GridSampler(NodeContext& ctx, DType dtype, const Shape& x, const Shape& grid,
              Padding padding, bool align_corners)
      : ctx_(ctx), dtype_(dtype), n_(x.dim(0)), c_(x.dim(1)), h_(x.dim(2)),
        w_(x.dim(3)), out_h_(grid.dim(1)), out_w_(grid.dim(2)), padding_(padding),
        align_corners_(align_corners) {}

  absl::Status Init(Val input) {
    SY_ASSIGN_OR_RETURN(flat_input_, Reshape(ctx_, input, {n_, c_, h_ * w_}));
    return absl::OkStatus();
  }

  Val Const(double v) { return Scalar(ctx_, v, dtype_); }
  absl::StatusOr<Val> Op(const char* op, std::vector<Val> operands,
                         const AttrMap& attrs = AttrMap()) {
    return ctx_.EmitOne(op, std::move(operands), attrs);
  }

  // Grid values along one axis as pixel coordinates of an axis of `size`.
  absl::StatusOr<Val> Unnormalize(Val g, int64_t size) {
    SY_ASSIGN_OR_RETURN(Val plus_one, Op("add", {g, Const(1)}));
    if (align_corners_) {
      return Op("mul", {plus_one, Const(0.5 * static_cast<double>(size - 1))});
    }
    SY_ASSIGN_OR_RETURN(Val scaled, Op("mul", {plus_one, Const(static_cast<double>(size))}));
    SY_ASSIGN_OR_RETURN(Val shifted, Op("sub", {scaled, Const(1)}));
    return Op("mul", {shifted, Const(0.5)});
  }

  absl::StatusOr<Val> Clip(Val v, double low, double high) {
    SY_ASSIGN_OR_RETURN(Val above, Op("max", {v, Const(low)}));
    return Op("min", {above, Const(high)});
  }

  // The coordinate mirrored into the image: about [0, size - 1] with
  // align_corners, else about [-0.5, size - 0.5]; then clipped into it.
  absl::StatusOr<Val> Reflect(Val v, int64_t size) {
    const double low = align_corners_ ? 0.0 : -0.5;
    const double span = align_corners_ ? static_cast<double>(size - 1)
                                       : static_cast<double>(size);
    if (span <= 0) return Clip(v, 0, static_cast<double>(size - 1));
    SY_ASSIGN_OR_RETURN(Val from_low, Op("sub", {v, Const(low)}));
    SY_ASSIGN_OR_RETURN(Val distance, Op("abs", {from_low}));
    SY_ASSIGN_OR_RETURN(Val extra, Op("mod", {distance, Const(span)},
                                      Attrs({{"fmod", int64_t{1}}})));
    SY_ASSIGN_OR_RETURN(Val spans, Op("div", {distance, Const(span)}));
    SY_ASSIGN_OR_RETURN(Val flips, Op("floor", {spans}));
    SY_ASSIGN_OR_RETURN(Val odd, Op("mod", {flips, Const(2)}, Attrs({{"fmod", int64_t{1}}})));
    SY_ASSIGN_OR_RETURN(Val is_even, Op("equal", {odd, Const(0)}));
    SY_ASSIGN_OR_RETURN(Val forward, Op("add", {extra, Const(low)}));
    SY_ASSIGN_OR_RETURN(Val back_extra, Op("sub", {Const(span), extra}));
    SY_ASSIGN_OR_RETURN(Val backward, Op("add", {back_extra, Const(low)}));
    SY_ASSIGN_OR_RETURN(Val mirrored, Op("where", {is_even, forward, backward}));
    return Clip(mirrored, 0, static_cast<double>(size - 1));
  }

  // border and reflection move a coordinate into the image; zeros keeps it.
  absl::StatusOr<Val> Pad(Val v, int64_t size) {
    switch (padding_) {
      case Padding::kZeros: return v;
      case Padding::kBorder: return Clip(v, 0, static_cast<double>(size - 1));
      case Padding::kReflection: return Reflect(v, size);
    }
    return v;
  }

  // The pixels at whole coordinates (ix, iy) [N, H_out, W_out], times
  // `weight` (same shape; none for 1), as [N, C, H_out, W_out]. Outside the
  // image (only zeros mode gets there) they are 0, chosen rather than
  // multiplied, so that an infinite pixel read at the clamped index cannot
  // make a NaN.
  absl::StatusOr<Val> Read(Val ix, Val iy, std::optional<Val> weight) {
    // NaN (x != x) becomes -1: outside, so masked, and clamped below.
    SY_ASSIGN_OR_RETURN(ix, NanToMinusOne(ix));
    SY_ASSIGN_OR_RETURN(iy, NanToMinusOne(iy));
    SY_ASSIGN_OR_RETURN(Val cx, Clip(ix, 0, static_cast<double>(w_ - 1)));
    SY_ASSIGN_OR_RETURN(Val cy, Clip(iy, 0, static_cast<double>(h_ - 1)));
    SY_ASSIGN_OR_RETURN(Val row, Op("mul", {cy, Const(static_cast<double>(w_))}));
    SY_ASSIGN_OR_RETURN(Val flat, Op("add", {row, cx}));
    SY_ASSIGN_OR_RETURN(Val index, Op("cast", {flat}, Attrs({{"to", std::string("int64")}})));
    SY_ASSIGN_OR_RETURN(index, Reshape(ctx_, index, {n_, 1, out_h_ * out_w_}));
    SY_ASSIGN_OR_RETURN(index, Op("expand", {index},
                                  Attrs({{"shape", std::vector<int64_t>{n_, c_,
                                                                        out_h_ * out_w_}}})));
    SY_ASSIGN_OR_RETURN(Val values, Op("gather_elements", {flat_input_, index},
                                       Attrs({{"axis", int64_t{2}}})));
    SY_ASSIGN_OR_RETURN(values, Reshape(ctx_, values, {n_, c_, out_h_, out_w_}));
    if (weight.has_value()) {
      SY_ASSIGN_OR_RETURN(Val w4, Reshape(ctx_, *weight, {n_, 1, out_h_, out_w_}));
      SY_ASSIGN_OR_RETURN(values, Op("mul", {values, w4}));
    }
    if (padding_ != Padding::kZeros) return values;
    SY_ASSIGN_OR_RETURN(Val inside, Inside(ix, iy));
    SY_ASSIGN_OR_RETURN(inside, Reshape(ctx_, inside, {n_, 1, out_h_, out_w_}));
    return Op("where", {inside, values, Const(0)});
  }

  absl::StatusOr<Val> NanToMinusOne(Val v) {
    SY_ASSIGN_OR_RETURN(Val is_number, Op("equal", {v, v}));
    return Op("where", {is_number, v, Const(-1)});
  }

  absl::StatusOr<Val> Inside(Val ix, Val iy) {
    Val inside;
    bool first = true;
    for (auto [v, size] : {std::pair<Val, int64_t>{ix, w_}, {iy, h_}}) {
      SY_ASSIGN_OR_RETURN(Val low, Op("greater_equal", {v, Const(0)}));
      SY_ASSIGN_OR_RETURN(Val high, Op("less_equal", {v, Const(static_cast<double>(size - 1))}));
      SY_ASSIGN_OR_RETURN(Val both, Op("logical_and", {low, high}));
      if (first) {
        inside = both;
        first = false;
      } else {
        SY_ASSIGN_OR_RETURN(inside, Op("logical_and", {inside, both}));
      }
    }
    return inside;
  }

  absl::StatusOr<Val> Sum(const std::vector<Val>& terms) {
    Val total = terms[0];
    for (size_t i = 1; i < terms.size(); ++i) {
      SY_ASSIGN_OR_RETURN(total, Op("add", {total, terms[i]}));
    }
    return total;
  }

  absl::StatusOr<Val> Nearest(Val x, Val y) {
    SY_ASSIGN_OR_RETURN(x, Pad(x, w_));
    SY_ASSIGN_OR_RETURN(y, Pad(y, h_));
    SY_ASSIGN_OR_RETURN(Val ix, Op("round", {x}));
    SY_ASSIGN_OR_RETURN(Val iy, Op("round", {y}));
    return Read(ix, iy, std::nullopt);
  }

  absl::StatusOr<Val> Bilinear(Val x, Val y) {
    SY_ASSIGN_OR_RETURN(x, Pad(x, w_));
    SY_ASSIGN_OR_RETURN(y, Pad(y, h_));
    SY_ASSIGN_OR_RETURN(Val x0, Op("floor", {x}));
    SY_ASSIGN_OR_RETURN(Val y0, Op("floor", {y}));
    SY_ASSIGN_OR_RETURN(Val x1, Op("add", {x0, Const(1)}));
    SY_ASSIGN_OR_RETURN(Val y1, Op("add", {y0, Const(1)}));
    SY_ASSIGN_OR_RETURN(Val wx1, Op("sub", {x, x0}));
    SY_ASSIGN_OR_RETURN(Val wy1, Op("sub", {y, y0}));
    SY_ASSIGN_OR_RETURN(Val wx0, Op("sub", {Const(1), wx1}));
    SY_ASSIGN_OR_RETURN(Val wy0, Op("sub", {Const(1), wy1}));
    std::vector<Val> terms;
    for (auto [iy, wy] : {std::pair<Val, Val>{y0, wy0}, {y1, wy1}}) {
      for (auto [ix, wx] : {std::pair<Val, Val>{x0, wx0}, {x1, wx1}}) {
        SY_ASSIGN_OR_RETURN(Val weight, Op("mul", {wx, wy}));
        SY_ASSIGN_OR_RETURN(Val term, Read(ix, iy, weight));
        terms.push_back(term);
      }
    }
    return Sum(terms);
  }

  // The cubic convolution kernel's 4 weights for a fraction t in [0, 1)
  // (pixels at -1, 0, 1, 2 from floor), A = -0.75.
  absl::StatusOr<std::vector<Val>> CubicWeights(Val t) {
    constexpr double a = -0.75;
    // Far pixels (distance d in [1, 2]): ((a d - 5a) d + 8a) d - 4a.
    auto far = [&](Val d) -> absl::StatusOr<Val> {
      SY_ASSIGN_OR_RETURN(Val v, Op("mul", {d, Const(a)}));
      SY_ASSIGN_OR_RETURN(v, Op("sub", {v, Const(5 * a)}));
      SY_ASSIGN_OR_RETURN(v, Op("mul", {v, d}));
      SY_ASSIGN_OR_RETURN(v, Op("add", {v, Const(8 * a)}));
      SY_ASSIGN_OR_RETURN(v, Op("mul", {v, d}));
      return Op("sub", {v, Const(4 * a)});
    };
    // Near pixels (distance d in [0, 1]): ((a + 2) d - (a + 3)) d d + 1.
    auto near = [&](Val d) -> absl::StatusOr<Val> {
      SY_ASSIGN_OR_RETURN(Val v, Op("mul", {d, Const(a + 2)}));
      SY_ASSIGN_OR_RETURN(v, Op("sub", {v, Const(a + 3)}));
      SY_ASSIGN_OR_RETURN(v, Op("mul", {v, d}));
      SY_ASSIGN_OR_RETURN(v, Op("mul", {v, d}));
      return Op("add", {v, Const(1)});
    };
    SY_ASSIGN_OR_RETURN(Val t_plus_1, Op("add", {t, Const(1)}));
    SY_ASSIGN_OR_RETURN(Val one_minus_t, Op("sub", {Const(1), t}));
    SY_ASSIGN_OR_RETURN(Val two_minus_t, Op("sub", {Const(2), t}));
    std::vector<Val> w(4);
    SY_ASSIGN_OR_RETURN(w[0], far(t_plus_1));
    SY_ASSIGN_OR_RETURN(w[1], near(t));
    SY_ASSIGN_OR_RETURN(w[2], near(one_minus_t));
    SY_ASSIGN_OR_RETURN(w[3], far(two_minus_t));
    return w;
  }

  absl::StatusOr<Val> Bicubic(Val x, Val y) {
    SY_ASSIGN_OR_RETURN(Val fx, Op("floor", {x}));
    SY_ASSIGN_OR_RETURN(Val fy, Op("floor", {y}));
    SY_ASSIGN_OR_RETURN(Val tx, Op("sub", {x, fx}));
    SY_ASSIGN_OR_RETURN(Val ty, Op("sub", {y, fy}));
    SY_ASSIGN_OR_RETURN(std::vector<Val> wx, CubicWeights(tx));
    SY_ASSIGN_OR_RETURN(std::vector<Val> wy, CubicWeights(ty));
    std::vector<Val> terms;
    for (int j = 0; j < 4; ++j) {
      SY_ASSIGN_OR_RETURN(Val iy, Op("add", {fy, Const(j - 1)}));
      SY_ASSIGN_OR_RETURN(iy, Pad(iy, h_));
      for (int i = 0; i < 4; ++i) {
        SY_ASSIGN_OR_RETURN(Val ix, Op("add", {fx, Const(i - 1)}));
        SY_ASSIGN_OR_RETURN(ix, Pad(ix, w_));
        SY_ASSIGN_OR_RETURN(Val weight, Op("mul", {wx[i], wy[j]}));
        SY_ASSIGN_OR_RETURN(Val term, Read(ix, iy, weight));
        terms.push_back(term);
      }
    }
    return Sum(terms);
  }

 private:
  NodeContext& ctx_;
  DType dtype_;
  int64_t n_, c_, h_, w_, out_h_, out_w_;
  Padding padding_;
  bool align_corners_;
  Val flat_input_;
};

absl::Status ConvertGridSample(NodeContext& ctx) {
  const Shape x = ctx.InShape(0);
  const Shape grid = ctx.InShape(1);
  const DType dtype = ctx.Type(ctx.In(0)).dtype;
  // GridSample-20 renamed bilinear and bicubic to linear and cubic.
  const bool renamed = ctx.opset() >= 20;
  const std::string linear = renamed ? "linear" : "bilinear";
  const std::string cubic = renamed ? "cubic" : "bicubic";
  SY_ASSIGN_OR_RETURN(std::string mode, ctx.String("mode", linear));
  SY_ASSIGN_OR_RETURN(std::string padding_mode, ctx.String("padding_mode", "zeros"));
  SY_ASSIGN_OR_RETURN(int64_t align_corners, ctx.Int("align_corners", 0));
  if (x.rank() != 4) {
    return absl::UnimplementedError(absl::StrCat(
        "only 4-D GridSample (input [N, C, H, W], grid [N, H_out, W_out, 2]) is "
        "supported; got input ", x.ToString(),
        renamed ? " (GridSample-20's volumetric and other N-D forms are not)" : ""));
  }
  if (grid.rank() != 4 || grid.dim(0) != x.dim(0) || grid.dim(3) != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the grid must be [N, H_out, W_out, 2] with the input's N = ", x.dim(0), "; got ",
        grid.ToString()));
  }
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64) {
    return absl::UnimplementedError(absl::StrCat(
        "GridSample samples float32 and float64 inputs; got ", DTypeName(dtype)));
  }
  if (ctx.Type(ctx.In(1)).dtype != dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the grid is ", DTypeName(ctx.Type(ctx.In(1)).dtype), " but the input is ",
        DTypeName(dtype), "; cast one to the other"));
  }
  Padding padding;
  if (padding_mode == "zeros") {
    padding = Padding::kZeros;
  } else if (padding_mode == "border") {
    padding = Padding::kBorder;
  } else if (padding_mode == "reflection") {
    padding = Padding::kReflection;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown padding_mode '", padding_mode, "' (zeros, border or reflection)"));
  }
  if (mode != linear && mode != "nearest" && mode != cubic) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown mode '", mode, "' for GridSample-", renamed ? 20 : 16, " (", linear,
        ", nearest or ", cubic, renamed ? "; opset 20 renamed bilinear and bicubic" :
                                          "; linear and cubic are opset 20's names", ")"));
  }
  if (x.num_elements() == 0 || grid.num_elements() == 0) {
    // Nothing to read (an empty image) or to write: zeros of the output's shape.
    SY_ASSIGN_OR_RETURN(Val y, ctx.EmitOne("expand", {Scalar(ctx, 0, dtype)},
                                           Attrs({{"shape", std::vector<int64_t>{
                                               x.dim(0), x.dim(1), grid.dim(1), grid.dim(2)}}})));
    return ctx.SetOutput(0, y);
  }
  GridSampler sampler(ctx, dtype, x, grid, padding, align_corners != 0);
  SY_RETURN_IF_ERROR(sampler.Init(ctx.In(0)));
  auto axis = [&](int64_t k) {
    return ctx.EmitOne("slice", {ctx.In(1)},
                       Attrs({{"starts", std::vector<int64_t>{k}},
                              {"ends", std::vector<int64_t>{k + 1}},
                              {"axes", std::vector<int64_t>{3}}}));
  };
  SY_ASSIGN_OR_RETURN(Val gx, axis(0));
  SY_ASSIGN_OR_RETURN(Val gy, axis(1));
  SY_ASSIGN_OR_RETURN(gx, Reshape(ctx, gx, {grid.dim(0), grid.dim(1), grid.dim(2)}));
  SY_ASSIGN_OR_RETURN(gy, Reshape(ctx, gy, {grid.dim(0), grid.dim(1), grid.dim(2)}));
  SY_ASSIGN_OR_RETURN(Val px, sampler.Unnormalize(gx, x.dim(3)));
  SY_ASSIGN_OR_RETURN(Val py, sampler.Unnormalize(gy, x.dim(2)));
  absl::StatusOr<Val> y = mode == "nearest" ? sampler.Nearest(px, py)
                          : mode == cubic    ? sampler.Bicubic(px, py)
                                             : sampler.Bilinear(px, py);
  if (!y.ok()) return y.status();
  return ctx.SetOutput(0, *y);
}

SY_REGISTER_ONNX_CONVERTER("GridSample", ConvertGridSample);

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
