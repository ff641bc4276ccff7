// ONNX's neural-network ops: Conv, pooling, normalization, Gemm/MatMul,
// reductions, CumSum and softmax (ops/ nn family and the original ops).

#include <algorithm>
#include <limits>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/convert_volumetric.h"
#include "onnx/converter_registry.h"
#include "onnx/window_ops.h"
#include "ops/conv_transpose_attrs.h"
#include "ops/cumsum_attrs.h"
#include "ops/gemm_attrs.h"
#include "ops/nms_attrs.h"
#include "ops/pool_geometry.h"
#include "ops/norm_attrs.h"
#include "ops/reduce_attrs.h"
#include "ops/roi_align_attrs.h"

namespace switchyard {
namespace onnx_import {
namespace {

absl::Status ConvertConv(NodeContext& ctx) {
  const Shape x = ctx.InShape(0);
  const Shape weight = ctx.InShape(1);
  if (weight.rank() == 5) return ConvertConv3d(ctx);
  // 1-D runs as 2-D over [N, C, 1, L] with a [O, C/g, 1, k] weight.
  const bool one_d = weight.rank() == 3;
  if (weight.rank() != 4 && !one_d) {
    return absl::UnimplementedError(absl::StrCat(
        "only 1-D, 2-D and 3-D Conv are supported; the weight is ", weight.ToString()));
  }
  std::vector<int64_t> spatial(weight.dims().begin() + 2, weight.dims().end());
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, ctx.Ints("kernel_shape", spatial));
  if (kernel != spatial) {
    return absl::InvalidArgumentError("kernel_shape does not match the weight");
  }
  SY_ASSIGN_OR_RETURN(Window w, Read2dWindow(ctx, x, kernel, true));
  SY_ASSIGN_OR_RETURN(int64_t group, ctx.Int("group", 1));
  SY_ASSIGN_OR_RETURN(Val input, As4d(ctx, ctx.In(0)));
  Val filters = ctx.In(1);
  if (one_d) {
    SY_ASSIGN_OR_RETURN(filters,
                        Reshape(ctx, filters, {weight.dim(0), weight.dim(1), 1, weight.dim(2)}));
  }
  std::vector<int64_t> padding = w.pad_begin;
  if (!w.symmetric()) {
    SY_ASSIGN_OR_RETURN(input, PadSpatial(ctx, input, w, 0.0));
    padding = {0, 0};
  }
  std::vector<Val> operands = {input, filters};
  if (ctx.HasInput(2)) operands.push_back(ctx.In(2));
  SY_ASSIGN_OR_RETURN(
      Val y, ctx.EmitOne("conv2d", operands,
                         Attrs({{"stride", w.strides},
                                {"padding", padding},
                                {"dilation", w.dilations},
                                {"groups", group}})));
  SY_ASSIGN_OR_RETURN(y, BackToRank(ctx, y, x.rank()));
  return ctx.SetOutput(0, y);
}

absl::Status ConvertMaxPool(NodeContext& ctx) {
  if (ctx.InShape(0).rank() == 5) return ConvertPool3d(ctx, /*is_max=*/true);
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, ctx.Ints("kernel_shape"));
  SY_ASSIGN_OR_RETURN(Window w, Read2dWindow(ctx, ctx.InShape(0), kernel, true));
  SY_ASSIGN_OR_RETURN(int64_t ceil_mode, ctx.Int("ceil_mode", 0));
  SY_ASSIGN_OR_RETURN(int64_t storage_order, ctx.Int("storage_order", 0));
  if (storage_order != 0) {
    return absl::UnimplementedError("storage_order 1 (column major) is not supported");
  }
  SY_RETURN_IF_ERROR(RequireUnusedOutput(ctx, 1, "Indices"));
  const int rank = ctx.InShape(0).rank();
  SY_ASSIGN_OR_RETURN(Val input, As4d(ctx, ctx.In(0)));
  // Integer maxima are exact in float32 for 8-bit types: pool there.
  const DType dtype = ctx.Type(input).dtype;
  const bool via_float = dtype == DType::kUInt8 || dtype == DType::kInt8;
  if (via_float) {
    SY_ASSIGN_OR_RETURN(input, ctx.EmitOne("cast", {input}, Attrs({{"to", std::string("float32")}})));
  }
  SY_ASSIGN_OR_RETURN(Val y, EmitMaxPool2d(ctx, input, w, ceil_mode != 0));
  if (via_float) {
    SY_ASSIGN_OR_RETURN(y, ctx.EmitOne("cast", {y}, Attrs({{"to", DTypeName(dtype)}})));
  }
  SY_ASSIGN_OR_RETURN(y, BackToRank(ctx, y, rank));
  return ctx.SetOutput(0, y);
}

// A window of ones over one channel ([channels, 1, kh, kw]) in `dtype`.
Val OnesFilter(NodeContext& ctx, int64_t channels, const Window& w, DType dtype) {
  const Shape shape({channels, 1, w.kernel[0], w.kernel[1]});
  std::vector<char> bytes(static_cast<size_t>(shape.num_elements()) * DTypeSize(dtype));
  for (int64_t i = 0; i < shape.num_elements(); ++i) {
    SetElementFromDouble(bytes.data(), dtype, i, 1.0);
  }
  return ctx.Constant(HostArray(shape, dtype, std::move(bytes)));
}

// AveragePool-19 with dilations (avg_pool2d has none): the window sums are
// a depthwise conv2d with a dilated window of ones over the input padded
// with zeros (and, for ceil_mode, to the last window's end), divided by a
// conv2d of the same window over a mask of what each window counts: the
// input, or with count_include_pad the input and its declared pads.
absl::StatusOr<Val> DilatedAvgPool2d(NodeContext& ctx, Val x, const Window& w,
                                     bool ceil_mode, bool count_include_pad) {
  const Shape shape = ctx.Type(x).shape;
  const DType dtype = ctx.Type(x).dtype;
  std::vector<int64_t> extra(2), padded(2);
  for (int d = 0; d < 2; ++d) {
    const int64_t in = shape.dim(2 + d);
    const int64_t out = PooledLength(in, w.kernel[d], w.strides[d], w.pad_begin[d],
                                     w.pad_end[d], w.dilations[d], ceil_mode);
    if (out < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", shape.ToString(), " is too small for the pooling window on spatial "
          "axis ", d, ": kernel ", w.kernel[d], ", dilation ", w.dilations[d], ", stride ",
          w.strides[d], ", pads ", w.pad_begin[d], " and ", w.pad_end[d]));
    }
    const int64_t reach = (out - 1) * w.strides[d] + (w.kernel[d] - 1) * w.dilations[d] + 1;
    const int64_t declared = in + w.pad_begin[d] + w.pad_end[d];
    extra[d] = std::max<int64_t>(0, reach - declared);
    padded[d] = declared + extra[d];
  }
  // The padded input and the mask are materialized: bound them before
  // anything is allocated (pads and dilations may each be 2^30).
  constexpr double kMaxPaddedElements = double{int64_t{1} << 28};
  const double plane = static_cast<double>(padded[0]) * static_cast<double>(padded[1]);
  if (plane * static_cast<double>(shape.dim(0) * shape.dim(1)) > kMaxPaddedElements) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the dilated window pads ", shape.ToString(), " to ", padded[0], " x ", padded[1],
        " per channel, more than the ", kMaxPaddedElements,
        " elements Switchyard pads for one AveragePool; check its pads and dilations"));
  }
  Window all = w;
  all.pad_end = {w.pad_end[0] + extra[0], w.pad_end[1] + extra[1]};
  SY_ASSIGN_OR_RETURN(Val input, PadSpatial(ctx, x, all, 0.0));
  const AttrMap conv = Attrs({{"stride", w.strides},
                              {"padding", std::vector<int64_t>{0, 0}},
                              {"dilation", w.dilations},
                              {"groups", shape.dim(1)}});
  SY_ASSIGN_OR_RETURN(Val sums, ctx.EmitOne("conv2d", {input, OnesFilter(ctx, shape.dim(1), w, dtype)},
                                            conv));
  // The mask: 1 where a window counts an element, [1, 1, Hp, Wp].
  const Shape mask_shape({1, 1, padded[0], padded[1]});
  std::vector<char> mask(static_cast<size_t>(mask_shape.num_elements()) * DTypeSize(dtype));
  for (int64_t i = 0; i < padded[0]; ++i) {
    for (int64_t j = 0; j < padded[1]; ++j) {
      const auto counted = [&](int d, int64_t k) {
        const int64_t low = count_include_pad ? 0 : w.pad_begin[d];
        const int64_t high = count_include_pad ? padded[d] - extra[d]
                                               : w.pad_begin[d] + shape.dim(2 + d);
        return k >= low && k < high;
      };
      SetElementFromDouble(mask.data(), dtype, i * padded[1] + j,
                           counted(0, i) && counted(1, j) ? 1.0 : 0.0);
    }
  }
  const Val mask_value = ctx.Constant(HostArray(mask_shape, dtype, std::move(mask)));
  AttrMap one_channel = conv;
  one_channel.Set("groups", int64_t{1});
  SY_ASSIGN_OR_RETURN(Val counts, ctx.EmitOne("conv2d", {mask_value, OnesFilter(ctx, 1, w, dtype)},
                                              one_channel));
  return Op(ctx, "div", {sums, counts});
}

absl::Status ConvertAveragePool(NodeContext& ctx) {
  if (ctx.InShape(0).rank() == 5) return ConvertPool3d(ctx, /*is_max=*/false);
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, ctx.Ints("kernel_shape"));
  // Dilations came with AveragePool-19.
  SY_ASSIGN_OR_RETURN(Window w, Read2dWindow(ctx, ctx.InShape(0), kernel, ctx.opset() >= 19));
  SY_ASSIGN_OR_RETURN(int64_t ceil_mode, ctx.Int("ceil_mode", 0));
  SY_ASSIGN_OR_RETURN(int64_t count_include_pad, ctx.Int("count_include_pad", 0));
  SY_ASSIGN_OR_RETURN(Val input, As4d(ctx, ctx.In(0)));
  const bool dilated = w.dilations[0] != 1 || w.dilations[1] != 1;
  SY_ASSIGN_OR_RETURN(Val y, dilated ? DilatedAvgPool2d(ctx, input, w, ceil_mode != 0,
                                                        count_include_pad != 0)
                                     : EmitAvgPool2d(ctx, input, w, ceil_mode != 0,
                                                     count_include_pad != 0));
  SY_ASSIGN_OR_RETURN(y, BackToRank(ctx, y, ctx.InShape(0).rank()));
  return ctx.SetOutput(0, y);
}

std::vector<int64_t> SpatialAxes(int rank) {
  std::vector<int64_t> axes;
  for (int d = 2; d < rank; ++d) axes.push_back(d);
  return axes;
}

absl::Status ConvertGlobalAveragePool(NodeContext& ctx) {
  const Shape& x = ctx.InShape(0);
  if (x.rank() == 4) {
    return EmitUnary(ctx, "adaptive_avg_pool2d",
                     Attrs({{"output_size", std::vector<int64_t>{1, 1}}}));
  }
  return EmitUnary(ctx, "reduce_mean",
                   Attrs({{"axes", SpatialAxes(x.rank())}, {"keepdims", true}}));
}

absl::Status ConvertGlobalMaxPool(NodeContext& ctx) {
  return EmitUnary(ctx, "reduce_max",
                   Attrs({{"axes", SpatialAxes(ctx.InShape(0).rank())},
                          {"keepdims", true}}));
}

absl::Status Reduce(NodeContext& ctx, const char* op, int axes_input_opset) {
  std::vector<int64_t> axes;
  if (ctx.opset() < axes_input_opset) {
    SY_ASSIGN_OR_RETURN(axes, ctx.Ints("axes"));
  } else if (ctx.HasInput(1)) {
    SY_ASSIGN_OR_RETURN(axes, ctx.ConstInts(1, "axes"));
  }
  SY_ASSIGN_OR_RETURN(int64_t keepdims, ctx.Int("keepdims", 1));
  SY_ASSIGN_OR_RETURN(int64_t noop, ctx.Int("noop_with_empty_axes", 0));
  if (axes.empty() && noop != 0) return Alias(ctx);
  const int rank = ctx.InShape(0).rank();
  for (int64_t& a : axes) {
    SY_ASSIGN_OR_RETURN(a, NormalizeAxis(a, rank, "axis"));
  }
  const AttrMap attrs = Attrs({{"axes", axes}, {"keepdims", keepdims != 0}});
  const std::string name = op;
  if (ctx.Type(ctx.In(0)).dtype == DType::kBool &&
      (name == "reduce_max" || name == "reduce_min")) {
    // Opset 20's bool ReduceMax (any) and ReduceMin (all): exact on 0 and 1
    // as int32, which the reduce ops take.
    const AttrMap to_int = Attrs({{"to", std::string("int32")}});
    SY_ASSIGN_OR_RETURN(Val ints, Op(ctx, "cast", {ctx.In(0)}, to_int));
    SY_ASSIGN_OR_RETURN(Val r, Op(ctx, op, {ints}, attrs));
    SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "cast", {r}, Attrs({{"to", std::string("bool")}})));
    return ctx.SetOutput(0, y);
  }
  return EmitUnary(ctx, op, attrs);
}

// ReduceSum takes its axes as an input from opset 13, the others
// (ReduceProd too) from 18.
absl::Status ConvertReduceMean(NodeContext& ctx) { return Reduce(ctx, "reduce_mean", 18); }
absl::Status ConvertReduceSum(NodeContext& ctx) { return Reduce(ctx, "reduce_sum", 13); }
absl::Status ConvertReduceMax(NodeContext& ctx) { return Reduce(ctx, "reduce_max", 18); }
absl::Status ConvertReduceMin(NodeContext& ctx) { return Reduce(ctx, "reduce_min", 18); }
absl::Status ConvertReduceProd(NodeContext& ctx) { return Reduce(ctx, "reduce_prod", 18); }

// ArgMax, ArgMin: the attributes map one to one (ops/reduce_attrs.h).
absl::Status ArgReduce(NodeContext& ctx, const char* op) {
  SY_ASSIGN_OR_RETURN(ArgReduceAttrs a,
                      OnnxAttrs<ArgReduceAttrs>(ctx, {{"axis", "axis"},
                                                      {"keepdims", "keepdims"},
                                                      {"select_last_index",
                                                       "select_last_index"}}));
  return EmitUnary(ctx, op, a.ToAttrMap());
}
absl::Status ConvertArgMax(NodeContext& ctx) { return ArgReduce(ctx, "argmax"); }

// CumSum: the axis is a scalar input, needed at import (a constant, in
// practice).
absl::Status ConvertCumSum(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> axis, ctx.ConstInts(1, "axis"));
  if (axis.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis has ", axis.size(), " values; CumSum takes one"));
  }
  SY_ASSIGN_OR_RETURN(CumSumAttrs a, OnnxAttrs<CumSumAttrs>(
                                         ctx, {{"exclusive", "exclusive"}, {"reverse", "reverse"}},
                                         Attrs({{"axis", axis[0]}})));
  return EmitUnary(ctx, "cumsum", a.ToAttrMap());
}
absl::Status ConvertArgMin(NodeContext& ctx) { return ArgReduce(ctx, "argmin"); }

// Training mode normalises by the batch's own statistics (the mean and the
// population variance over every axis but the channels, as ONNX's
// reference) and blends them into the running ones it outputs:
// running = given * momentum + batch * (1 - momentum).
absl::Status BatchNormTraining(NodeContext& ctx, const BatchNormAttrs& bn) {
  const Shape x = ctx.InShape(0);
  const DType dtype = ctx.Type(ctx.In(0)).dtype;
  SY_ASSIGN_OR_RETURN(float momentum, ctx.Float("momentum", 0.9f));
  if (x.rank() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the input must be [N, C, ...] (rank >= 2), got ", x.ToString()));
  }
  std::vector<int64_t> axes = {0};
  for (int d = 2; d < x.rank(); ++d) axes.push_back(d);
  const AttrMap reduce = Attrs({{"axes", axes}, {"keepdims", true}});
  SY_ASSIGN_OR_RETURN(Val mean, ctx.EmitOne("reduce_mean", {ctx.In(0)}, reduce));
  SY_ASSIGN_OR_RETURN(Val centered, Op(ctx, "sub", {ctx.In(0), mean}));
  SY_ASSIGN_OR_RETURN(Val squares, Op(ctx, "mul", {centered, centered}));
  SY_ASSIGN_OR_RETURN(Val var, ctx.EmitOne("reduce_mean", {squares}, reduce));
  SY_ASSIGN_OR_RETURN(mean, Reshape(ctx, mean, {x.dim(1)}));
  SY_ASSIGN_OR_RETURN(var, Reshape(ctx, var, {x.dim(1)}));
  SY_ASSIGN_OR_RETURN(Val y, ctx.EmitOne("batch_norm",
                                         {ctx.In(0), ctx.In(1), ctx.In(2), mean, var},
                                         bn.ToAttrMap()));
  SY_RETURN_IF_ERROR(ctx.SetOutput(0, y));
  const Val keep = Scalar(ctx, momentum, dtype), blend = Scalar(ctx, 1.0 - momentum, dtype);
  for (auto [output, given, batch] : {std::tuple<int, int, Val>{1, 3, mean}, {2, 4, var}}) {
    if (output >= ctx.num_outputs()) break;
    if (!ctx.OutputUsed(output)) {
      SY_RETURN_IF_ERROR(SkipUnusedOutput(ctx, output));
      continue;
    }
    SY_ASSIGN_OR_RETURN(Val kept, Op(ctx, "mul", {ctx.In(given), keep}));
    SY_ASSIGN_OR_RETURN(Val added, Op(ctx, "mul", {batch, blend}));
    SY_ASSIGN_OR_RETURN(Val running, Op(ctx, "add", {kept, added}));
    SY_RETURN_IF_ERROR(ctx.SetOutput(output, running));
  }
  return absl::OkStatus();
}

absl::Status ConvertBatchNormalization(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(BatchNormAttrs bn,
                      OnnxAttrs<BatchNormAttrs>(ctx, {{"epsilon", "epsilon"}}));
  SY_ASSIGN_OR_RETURN(int64_t training, ctx.Int("training_mode", 0));
  if (training != 0) return BatchNormTraining(ctx, bn);
  ctx.Ignore("momentum");  // only training updates the statistics
  SY_RETURN_IF_ERROR(RequireUnusedOutput(ctx, 1, "running_mean"));
  SY_RETURN_IF_ERROR(RequireUnusedOutput(ctx, 2, "running_var"));
  SY_ASSIGN_OR_RETURN(
      Val y, ctx.EmitOne("batch_norm",
                         {ctx.In(0), ctx.In(1), ctx.In(2), ctx.In(3), ctx.In(4)},
                         bn.ToAttrMap()));
  return ctx.SetOutput(0, y);
}

absl::Status ConvertGemm(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(GemmAttrs g, OnnxAttrs<GemmAttrs>(ctx, {{"transA", "trans_a"},
                                                           {"transB", "trans_b"},
                                                           {"alpha", "alpha"},
                                                           {"beta", "beta"}}));
  const Shape& b = ctx.InShape(1);
  // The common case, a fully connected layer, is `linear`, which backends
  // fuse with a following relu.
  const bool plain_bias =
      !ctx.HasInput(2) ||
      (g.beta == 1.0 && ctx.InShape(2).rank() == 1 && b.rank() == 2 &&
       ctx.InShape(2).dim(0) == b.dim(0));
  if (!g.trans_a && g.trans_b && g.alpha == 1.0 && plain_bias &&
      ctx.InShape(0).rank() == 2) {
    std::vector<Val> operands = {ctx.In(0), ctx.In(1)};
    if (ctx.HasInput(2)) operands.push_back(ctx.In(2));
    SY_ASSIGN_OR_RETURN(Val y, ctx.EmitOne("linear", operands, AttrMap()));
    return ctx.SetOutput(0, y);
  }
  std::vector<Val> operands = {ctx.In(0), ctx.In(1)};
  if (ctx.HasInput(2)) operands.push_back(ctx.In(2));
  SY_ASSIGN_OR_RETURN(
      Val y, ctx.EmitOne("gemm", operands, g.ToAttrMap()));
  return ctx.SetOutput(0, y);
}

absl::Status ConvertMatMul(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(Val y, ctx.EmitOne("matmul", {ctx.In(0), ctx.In(1)}, AttrMap()));
  return ctx.SetOutput(0, y);
}

// Softmax and LogSoftmax: before opset 13 the input is seen as 2-D,
// [prod(dims before axis), prod(dims from axis)], and normalized per row.
absl::Status Softmax(NodeContext& ctx, const char* op) {
  const Shape& x = ctx.InShape(0);
  const bool old = ctx.opset() < 13;
  SY_ASSIGN_OR_RETURN(int64_t a, ctx.Int("axis", old ? 1 : -1));
  SY_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(a, std::max(x.rank(), 1), "axis"));
  if (!old || axis == x.rank() - 1) {
    return EmitUnary(ctx, op, Attrs({{"dim", axis}}));
  }
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < x.rank(); ++d) (d < axis ? outer : inner) *= x.dim(d);
  SY_ASSIGN_OR_RETURN(Val flat, Reshape(ctx, ctx.In(0), {outer, inner}));
  SY_ASSIGN_OR_RETURN(Val s, ctx.EmitOne(op, {flat}, Attrs({{"dim", int64_t{1}}})));
  SY_ASSIGN_OR_RETURN(Val y, Reshape(ctx, s, x.dims()));
  return ctx.SetOutput(0, y);
}

absl::Status ConvertSoftmax(NodeContext& ctx) { return Softmax(ctx, "softmax"); }
absl::Status ConvertLogSoftmax(NodeContext& ctx) { return Softmax(ctx, "log_softmax"); }

absl::Status ConvertLayerNormalization(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(LayerNormAttrs ln,
                      OnnxAttrs<LayerNormAttrs>(
                          ctx, {{"axis", "axis"}, {"epsilon", "epsilon"}}));
  const int64_t a = ln.axis;
  ctx.Ignore("stash_type");  // the kernels accumulate in float or wider
  std::vector<Val> operands = {ctx.In(0), ctx.In(1)};
  if (ctx.HasInput(2)) operands.push_back(ctx.In(2));
  SY_ASSIGN_OR_RETURN(
      Val y, ctx.EmitOne("layer_norm", operands, ln.ToAttrMap()));
  SY_RETURN_IF_ERROR(ctx.SetOutput(0, y));
  if (!ctx.OutputUsed(1) && !ctx.OutputUsed(2)) return absl::OkStatus();
  // The optional statistics, as ONNX defines them: Mean and 1 / sqrt(Var +
  // epsilon) over axis..rank-1, with those dimensions kept as 1.
  const int rank = ctx.InShape(0).rank();
  SY_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(a, rank, "axis"));
  std::vector<int64_t> axes;
  for (int64_t d = axis; d < rank; ++d) axes.push_back(d);
  const AttrMap reduce = Attrs({{"axes", axes}, {"keepdims", true}});
  SY_ASSIGN_OR_RETURN(Val mean, ctx.EmitOne("reduce_mean", {ctx.In(0)}, reduce));
  SY_ASSIGN_OR_RETURN(Val centered, ctx.EmitOne("sub", {ctx.In(0), mean}, AttrMap()));
  SY_ASSIGN_OR_RETURN(Val square, ctx.EmitOne("mul", {centered, centered}, AttrMap()));
  SY_ASSIGN_OR_RETURN(Val var, ctx.EmitOne("reduce_mean", {square}, reduce));
  const DType dtype = ctx.Type(ctx.In(0)).dtype;
  std::vector<char> eps_bytes(DTypeSize(dtype));
  SetElementFromDouble(eps_bytes.data(), dtype, 0, ln.epsilon);
  const Val eps = ctx.Constant(HostArray(Shape(), dtype, std::move(eps_bytes)));
  SY_ASSIGN_OR_RETURN(Val shifted, ctx.EmitOne("add", {var, eps}, AttrMap()));
  SY_ASSIGN_OR_RETURN(Val std_dev, ctx.EmitOne("sqrt", {shifted}, AttrMap()));
  SY_ASSIGN_OR_RETURN(Val inv, ctx.EmitOne("reciprocal", {std_dev}, AttrMap()));
  if (ctx.num_outputs() > 1) SY_RETURN_IF_ERROR(ctx.SetOutput(1, mean));
  if (ctx.num_outputs() > 2) SY_RETURN_IF_ERROR(ctx.SetOutput(2, inv));
  return absl::OkStatus();
}

// NonMaxSuppression's output has a data-dependent number of rows; the
// non_max_suppression op computes it padded to the largest size plus the
// count. In a staged run (OnnxModel::Run) the node runs on the host with
// this run's boxes and scores and gives exactly its rows, which later nodes
// may read. In a single static plan it may only be a graph output, padded
// (OnnxModel's padded outputs).
absl::Status ConvertNonMaxSuppression(NodeContext& ctx) {
  if (ctx.state().run_time_data_allowed) {
    SY_RETURN_IF_ERROR(ctx.RequireHostInputs());
  }
  // The struct's defaults are ONNX's for absent inputs too.
  SY_ASSIGN_OR_RETURN(NonMaxSuppressionAttrs a,
                      OnnxAttrs<NonMaxSuppressionAttrs>(
                          ctx, {{"center_point_box", "center_point_box"}}));
  if (ctx.HasInput(2)) {
    SY_ASSIGN_OR_RETURN(double max_boxes,
                        ctx.ConstScalar(2, "max_output_boxes_per_class"));
    // ONNX Runtime treats a negative count as 0; the op refuses negatives.
    // Counts beyond int64 (or NaN) would overflow the conversion: they mean
    // "all", so they become the largest double below 2^63.
    constexpr double kAllBoxes = 9.2e18;
    if (!(max_boxes < kAllBoxes)) max_boxes = kAllBoxes;
    a.max_output_boxes_per_class = static_cast<int64_t>(std::max(0.0, max_boxes));
  }
  if (ctx.HasInput(3)) {
    SY_ASSIGN_OR_RETURN(a.iou_threshold, ctx.ConstScalar(3, "iou_threshold"));
  }
  if (ctx.HasInput(4)) {
    SY_ASSIGN_OR_RETURN(a.score_threshold, ctx.ConstScalar(4, "score_threshold"));
  }
  const bool on_host = ctx.Host(ctx.In(0)) != nullptr && ctx.Host(ctx.In(1)) != nullptr;
  if (!on_host && ctx.state().IsReadByNodes(ctx.node().output(0))) {
    return absl::UnimplementedError(
        "selected_indices feeds other nodes; its row count is known only at run "
        "time, so a single static plan takes it only as a graph output "
        "(OnnxModel::Run, switchyard run, runs such models in segments)");
  }
  SY_ASSIGN_OR_RETURN(std::vector<Val> outs,
                      ctx.Emit("non_max_suppression", {ctx.In(0), ctx.In(1)},
                               a.ToAttrMap(), 2));
  const HostArray* padded = ctx.Host(outs[0]);
  const HostArray* count = ctx.Host(outs[1]);
  if (padded == nullptr || count == nullptr) {
    ctx.state().entry(outs[0]).valid_rows = outs[1];
    return ctx.SetOutput(0, outs[0]);
  }
  // Computed on the host: exactly the selected rows.
  const int64_t rows = static_cast<int64_t>(count->ElementAsDouble(0));
  if (padded->shape.rank() != 2 || rows < 0 || rows > padded->shape.dim(0)) {
    return absl::InternalError(absl::StrCat("non_max_suppression gave ", rows,
                                            " rows of ", padded->shape.ToString()));
  }
  const Shape shape({rows, padded->shape.dim(1)});
  std::vector<char> bytes(padded->bytes.begin(),
                          padded->bytes.begin() + shape.num_elements() * 8);
  return ctx.SetOutput(0, ctx.Constant(HostArray(shape, DType::kInt64, std::move(bytes))));
}

// RoiAlign (opsets 10 and 16): roi_align (ops/roi_align_attrs.h). Opset
// 10 has no coordinate_transformation_mode and behaves as opset 16's
// output_half_pixel (torchvision's aligned=False); 16 defaults to
// half_pixel. Float16 or double RoIs are cast to float32.
absl::Status ConvertRoiAlign(NodeContext& ctx) {
  RoiAlignAttrs a;
  SY_ASSIGN_OR_RETURN(a.output_height, ctx.Int("output_height", 1));
  SY_ASSIGN_OR_RETURN(a.output_width, ctx.Int("output_width", 1));
  SY_ASSIGN_OR_RETURN(a.sampling_ratio, ctx.Int("sampling_ratio", 0));
  SY_ASSIGN_OR_RETURN(float scale, ctx.Float("spatial_scale", 1.0f));
  a.spatial_scale = scale;
  SY_ASSIGN_OR_RETURN(std::string mode, ctx.String("mode", "avg"));
  if (mode != "avg" && mode != "max") {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute 'mode' is '", mode, "'; RoiAlign takes 'avg' or 'max'"));
  }
  a.mode = mode == "max" ? RoiPoolMode::kMax : RoiPoolMode::kAvg;
  SY_ASSIGN_OR_RETURN(std::string transform,
                      ctx.String("coordinate_transformation_mode",
                                 ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel"));
  if (transform != "half_pixel" && transform != "output_half_pixel") {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'coordinate_transformation_mode' is '", transform,
        "'; RoiAlign takes 'half_pixel' or 'output_half_pixel'"));
  }
  a.aligned = transform == "half_pixel";
  Val rois = ctx.In(1);
  if (ctx.Type(rois).dtype != DType::kFloat32) {
    SY_ASSIGN_OR_RETURN(rois, ctx.EmitOne("cast", {rois}, Attrs({{"to", "float32"}})));
  }
  SY_ASSIGN_OR_RETURN(Val y, ctx.EmitOne("roi_align", {ctx.In(0), rois, ctx.In(2)},
                                         a.ToAttrMap()));
  return ctx.SetOutput(0, y);
}

// ConvTranspose (1-D as 2-D over [N, C, 1, L], and 2-D): conv_transpose2d
// (ops/conv_transpose_attrs.h). ONNX's output_shape, when given, decides
// the pads (its total split by auto_pad: SAME_UPPER puts the smaller half
// first, anything else last, as ONNX's spec says), or, when it is larger
// than the full output, the output_padding (as ONNX Runtime);
// SAME_UPPER/LOWER without it aim at input * stride; explicit pads
// otherwise.
absl::Status ConvertConvTranspose(NodeContext& ctx) {
  const Shape& x = ctx.InShape(0);
  const Shape& weight = ctx.InShape(1);
  if ((x.rank() != 3 && x.rank() != 4) || weight.rank() != x.rank()) {
    return absl::UnimplementedError(absl::StrCat(
        "only 1-D and 2-D ConvTranspose (input [N, C, L] or [N, C, H, W]) are supported; got "
        "input ",
        x.ToString(), " and weight ", weight.ToString()));
  }
  const bool one_d = x.rank() == 3;
  const size_t n = one_d ? 1 : 2;
  auto read = [&](const char* name, int64_t fill, size_t count) {
    return ctx.Ints(name, std::vector<int64_t>(count, fill));
  };
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> strides, read("strides", 1, n));
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> dilations, read("dilations", 1, n));
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> output_padding, read("output_padding", 0, n));
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> pads, read("pads", 0, 2 * n));
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> output_shape, ctx.Ints("output_shape", {}));
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> kernel_shape, ctx.Ints("kernel_shape", {}));
  SY_ASSIGN_OR_RETURN(std::string auto_pad, ctx.String("auto_pad", "NOTSET"));
  SY_ASSIGN_OR_RETURN(int64_t group, ctx.Int("group", 1));
  if (strides.size() != n || dilations.size() != n || output_padding.size() != n ||
      pads.size() != 2 * n || (!output_shape.empty() && output_shape.size() != n)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "strides, dilations, output_padding and output_shape need ", n, " values and pads ",
        2 * n, " for a ", n, "-D ConvTranspose"));
  }
  std::vector<int64_t> kernel(weight.dims().begin() + 2, weight.dims().end());
  if (!kernel_shape.empty() && kernel_shape != kernel) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'kernel_shape' disagrees with weight ", weight.ToString()));
  }
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" &&
      auto_pad != "SAME_LOWER") {
    return absl::InvalidArgumentError(absl::StrCat("unknown auto_pad '", auto_pad, "'"));
  }
  // Before any arithmetic on them (the op checks them again).
  for (size_t d = 0; d < n; ++d) {
    const bool sane = strides[d] >= 1 && strides[d] <= kMaxAttrWindowValue &&
                      dilations[d] >= 1 && dilations[d] <= kMaxAttrWindowValue &&
                      output_padding[d] >= 0 && output_padding[d] <= kMaxAttrWindowValue &&
                      kernel[d] >= 1 && kernel[d] <= kMaxAttrWindowValue &&
                      x.dim(2 + d) <= kMaxAttrWindowValue &&
                      (output_shape.empty() ||
                       (output_shape[d] >= 1 && output_shape[d] <= kMaxAttrWindowValue));
    if (!sane) {
      return absl::InvalidArgumentError(absl::StrCat(
          "strides and dilations must be in [1, 2^30], output_padding, output_shape, the "
          "kernel and the input's spatial size in [0, 2^30]; spatial axis ", d, " has stride ",
          strides[d], ", dilation ", dilations[d], ", output_padding ", output_padding[d],
          ", kernel ", kernel[d], ", input ", x.dim(2 + d)));
    }
  }
  std::vector<int64_t> begin(n), end(n);
  for (size_t d = 0; d < n; ++d) {
    const int64_t in = x.dim(2 + d), span = (kernel[d] - 1) * dilations[d] + 1;
    const int64_t full = (in - 1) * strides[d] + span + output_padding[d];
    if (output_shape.empty() && auto_pad == "NOTSET") {
      begin[d] = pads[d];
      end[d] = pads[n + d];
      continue;
    }
    if (output_shape.empty() && auto_pad == "VALID") continue;
    // The rows (columns) to remove from `full` to get the asked size.
    const int64_t want = output_shape.empty() ? in * strides[d] : output_shape[d];
    const int64_t total = full - want;
    if (total < 0) {
      // Larger than it makes: the rest is added at the end, as
      // output_padding (which must stay below the stride or dilation).
      output_padding[d] -= total;
      continue;
    }
    const int64_t small = total / 2;
    begin[d] = auto_pad == "SAME_UPPER" ? small : total - small;
    end[d] = total - begin[d];
  }
  if (one_d) {
    strides.insert(strides.begin(), 1);
    dilations.insert(dilations.begin(), 1);
    output_padding.insert(output_padding.begin(), 0);
    begin.insert(begin.begin(), 0);
    end.insert(end.begin(), 0);
  }
  ConvTranspose2dAttrs a;
  a.stride_h = strides[0];
  a.stride_w = strides[1];
  a.dilation_h = dilations[0];
  a.dilation_w = dilations[1];
  a.output_padding_h = output_padding[0];
  a.output_padding_w = output_padding[1];
  a.pad_top = begin[0];
  a.pad_left = begin[1];
  a.pad_bottom = end[0];
  a.pad_right = end[1];
  a.groups = group;
  Val input = ctx.In(0), w = ctx.In(1);
  if (one_d) {
    SY_ASSIGN_OR_RETURN(input, Reshape(ctx, input, {x.dim(0), x.dim(1), 1, x.dim(2)}));
    SY_ASSIGN_OR_RETURN(w, Reshape(ctx, w, {weight.dim(0), weight.dim(1), 1, weight.dim(2)}));
  }
  std::vector<Val> operands = {input, w};
  if (ctx.HasInput(2)) operands.push_back(ctx.In(2));
  SY_ASSIGN_OR_RETURN(Val y, ctx.EmitOne("conv_transpose2d", operands, a.ToAttrMap()));
  if (one_d) {
    const Shape& ys = ctx.Type(y).shape;
    SY_ASSIGN_OR_RETURN(y, Reshape(ctx, y, {ys.dim(0), ys.dim(1), ys.dim(3)}));
  }
  return ctx.SetOutput(0, y);
}

SY_REGISTER_ONNX_CONVERTER("NonMaxSuppression", ConvertNonMaxSuppression, 2);
SY_REGISTER_ONNX_CONVERTER("ConvTranspose", ConvertConvTranspose, 2);
SY_REGISTER_ONNX_CONVERTER("RoiAlign", ConvertRoiAlign, 3);
SY_REGISTER_ONNX_CONVERTER("Conv", ConvertConv, 2);
SY_REGISTER_ONNX_CONVERTER("MaxPool", ConvertMaxPool);
SY_REGISTER_ONNX_CONVERTER("AveragePool", ConvertAveragePool);
SY_REGISTER_ONNX_CONVERTER("GlobalAveragePool", ConvertGlobalAveragePool);
SY_REGISTER_ONNX_CONVERTER("GlobalMaxPool", ConvertGlobalMaxPool);
SY_REGISTER_ONNX_CONVERTER("ReduceMean", ConvertReduceMean);
SY_REGISTER_ONNX_CONVERTER("ReduceSum", ConvertReduceSum);
SY_REGISTER_ONNX_CONVERTER("ReduceMax", ConvertReduceMax);
SY_REGISTER_ONNX_CONVERTER("ReduceMin", ConvertReduceMin);
SY_REGISTER_ONNX_CONVERTER("ReduceProd", ConvertReduceProd);
SY_REGISTER_ONNX_CONVERTER("ArgMax", ConvertArgMax);
SY_REGISTER_ONNX_CONVERTER("ArgMin", ConvertArgMin);
SY_REGISTER_ONNX_CONVERTER("CumSum", ConvertCumSum, 2);
SY_REGISTER_ONNX_CONVERTER("BatchNormalization", ConvertBatchNormalization, 5);
SY_REGISTER_ONNX_CONVERTER("Gemm", ConvertGemm, 2);
SY_REGISTER_ONNX_CONVERTER("MatMul", ConvertMatMul, 2);
SY_REGISTER_ONNX_CONVERTER("Softmax", ConvertSoftmax);
SY_REGISTER_ONNX_CONVERTER("LogSoftmax", ConvertLogSoftmax);
SY_REGISTER_ONNX_CONVERTER("LayerNormalization", ConvertLayerNormalization, 2);

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
