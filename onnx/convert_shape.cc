// ONNX's shape and data-movement ops. Shapes, axes, pads and slice bounds
// must be known at import (constants or computed from shapes): they become
// attributes of reshape, slice, pad, ... (ops/ shape family).

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"
#include "onnx/onnx_tensor.h"
#include "ops/shape_attrs.h"
#include "ops/topk_attrs.h"
#include "ops/trilu_attrs.h"

namespace switchyard {
namespace onnx_import {
namespace {

// Axes from an attribute (before `input_opset`) or from input 1.
absl::StatusOr<std::vector<int64_t>> AxesOf(NodeContext& ctx, int input_opset,
                                            bool* given) {
  if (ctx.opset() < input_opset) {
    *given = ctx.HasAttr("axes");
    return ctx.Ints("axes");
  }
  *given = ctx.HasInput(1);
  if (!*given) return std::vector<int64_t>();
  return ctx.ConstInts(1, "axes");
}

absl::Status ConvertReshape(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ctx.ConstInts(1, "shape"));
  SY_ASSIGN_OR_RETURN(int64_t allowzero, ctx.Int("allowzero", 0));
  const Shape& in = ctx.InShape(0);
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && allowzero == 0) {
      if (static_cast<int>(i) >= in.rank()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "shape entry ", i, " is 0 (copy the input's dimension) but the "
            "input ", in.ToString(), " has no dimension ", i));
      }
      shape[i] = in.dim(static_cast<int>(i));
    }
    if (shape[i] == -1) {
      if (infer >= 0) {
        return absl::InvalidArgumentError("shape has more than one -1");
      }
      infer = static_cast<int>(i);
      continue;
    }
    if (shape[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape entry ", i, " is ", shape[i]));
    }
    if (__builtin_mul_overflow(known, shape[i], &known)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape [", absl::StrJoin(shape, ", "),
          "] has more elements than an int64 counts"));
    }
  }
  if (infer >= 0) {
    if (known == 0 || in.num_elements() % known != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot reshape ", in.ToString(), " to [", absl::StrJoin(shape, ", "),
          "]"));
    }
    shape[infer] = in.num_elements() / known;
  }
  SY_ASSIGN_OR_RETURN(Val y, Reshape(ctx, ctx.In(0), shape));
  return ctx.SetOutput(0, y);
}

absl::Status ConvertFlatten(NodeContext& ctx) {
  const Shape& in = ctx.InShape(0);
  SY_ASSIGN_OR_RETURN(int64_t axis, ctx.Int("axis", 1));
  if (axis < 0) axis += in.rank();
  if (axis < 0 || axis > in.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "axis is out of range for input ", in.ToString()));
  }
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < in.rank(); ++d) (d < axis ? outer : inner) *= in.dim(d);
  SY_ASSIGN_OR_RETURN(Val y, Reshape(ctx, ctx.In(0), {outer, inner}));
  return ctx.SetOutput(0, y);
}

absl::Status ConvertSqueeze(NodeContext& ctx) {
  bool given = false;
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> axes, AxesOf(ctx, 13, &given));
  const Shape& in = ctx.InShape(0);
  std::vector<bool> drop(in.rank(), false);
  for (int64_t a : axes) {
    SY_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(a, in.rank(), "axis"));
    if (in.dim(static_cast<int>(axis)) != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot squeeze axis ", a, " of ", in.ToString(), ": its size is not 1"));
    }
    drop[axis] = true;
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < in.rank(); ++d) {
    if (given ? !drop[d] : in.dim(d) != 1) dims.push_back(in.dim(d));
  }
  SY_ASSIGN_OR_RETURN(Val y, Reshape(ctx, ctx.In(0), dims));
  return ctx.SetOutput(0, y);
}

absl::Status ConvertUnsqueeze(NodeContext& ctx) {
  bool given = false;
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> axes, AxesOf(ctx, 13, &given));
  const Shape& in = ctx.InShape(0);
  const int rank = in.rank() + static_cast<int>(axes.size());
  std::vector<bool> inserted(rank, false);
  for (int64_t a : axes) {
    SY_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(a, rank, "axis"));
    if (inserted[axis]) {
      return absl::InvalidArgumentError(absl::StrCat("axis ", a, " is repeated"));
    }
    inserted[axis] = true;
  }
  std::vector<int64_t> dims;
  int next = 0;
  for (int d = 0; d < rank; ++d) dims.push_back(inserted[d] ? 1 : in.dim(next++));
  SY_ASSIGN_OR_RETURN(Val y, Reshape(ctx, ctx.In(0), dims));
  return ctx.SetOutput(0, y);
}

absl::Status ConvertTranspose(NodeContext& ctx) {
  const int rank = ctx.InShape(0).rank();
  std::vector<int64_t> reversed(rank);
  for (int d = 0; d < rank; ++d) reversed[d] = rank - 1 - d;
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> perm, ctx.Ints("perm", reversed));
  return EmitUnary(ctx, "transpose", Attrs({{"perm", perm}}));
}

absl::Status ConvertConcat(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ConcatAttrs a, OnnxAttrs<ConcatAttrs>(ctx, {{"axis", "axis"}}));
  std::vector<Val> operands;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (ctx.HasInput(i)) operands.push_back(ctx.In(i));
  }
  SY_ASSIGN_OR_RETURN(Val y, ctx.EmitOne("concat", operands, a.ToAttrMap()));
  return ctx.SetOutput(0, y);
}

// Split: sizes from input 1 (an attribute before opset 13), or from
// opset 18's num_outputs (equal parts, the last smaller when the axis does
// not divide: ceil(length / n) each), or before 18 equal parts, one per
// output.
absl::Status ConvertSplit(NodeContext& ctx) {
  const Shape& in = ctx.InShape(0);
  SY_ASSIGN_OR_RETURN(int64_t a, ctx.Int("axis", 0));
  SY_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(a, in.rank(), "axis"));
  const int64_t length = in.dim(static_cast<int>(axis));
  const int n = ctx.num_outputs();
  std::vector<int64_t> sizes;
  if (ctx.opset() < 13) {
    SY_ASSIGN_OR_RETURN(sizes, ctx.Ints("split"));
  } else if (ctx.HasInput(1)) {
    SY_ASSIGN_OR_RETURN(sizes, ctx.ConstInts(1, "split"));
  }
  if (ctx.opset() >= 18 && !ctx.HasInput(1) && !ctx.HasAttr("num_outputs")) {
    return absl::InvalidArgumentError(
        "neither input 1 (split) nor attribute 'num_outputs' is given; Split-18 "
        "needs one of them (Split-13 split equally by the output count)");
  }
  if (ctx.opset() >= 18 && ctx.HasAttr("num_outputs")) {
    SY_ASSIGN_OR_RETURN(int64_t parts, ctx.Int("num_outputs", 0));
    if (ctx.HasInput(1)) {
      return absl::InvalidArgumentError(
          "both input 1 (split) and attribute 'num_outputs' are given; Split "
          "takes one of them");
    }
    if (parts < 1 || parts != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute 'num_outputs' is ", parts, " but the node has ", n,
          " outputs; it must equal the output count (>= 1)"));
    }
    if (parts > length) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute 'num_outputs' is ", parts, ", more parts than axis ", axis,
          " of ", in.ToString(), " has elements (", length, ")"));
    }
    const int64_t chunk = length / parts + (length % parts != 0 ? 1 : 0);
    const int64_t last = length - chunk * (parts - 1);
    if (last < 0) {
      // 5 into 4: chunks of 2 leave nothing for the last two outputs.
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute 'num_outputs' is ", parts, ": axis ", axis, " of ",
          in.ToString(), " in chunks of ", chunk, " (ceil(", length, " / ",
          parts, ")) cannot fill ", parts, " outputs"));
    }
    sizes.assign(parts - 1, chunk);
    sizes.push_back(last);
  }
  if (sizes.empty()) {
    if (n == 0 || length % n != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot split ", in.ToString(), " along axis ", axis, " into ", n,
          " equal parts"));
    }
    sizes.assign(n, length / n);
  }
  if (static_cast<int>(sizes.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "split has ", sizes.size(), " sizes but the node has ", n, " outputs"));
  }
  SY_ASSIGN_OR_RETURN(
      std::vector<Val> outs,
      ctx.Emit("split", {ctx.In(0)}, Attrs({{"axis", axis}, {"sizes", sizes}}), n));
  for (int i = 0; i < n; ++i) SY_RETURN_IF_ERROR(ctx.SetOutput(i, outs[i]));
  return absl::OkStatus();
}

absl::Status ConvertSlice(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> starts, ctx.ConstInts(1, "starts"));
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> ends, ctx.ConstInts(2, "ends"));
  std::vector<int64_t> axes, steps;
  if (ctx.HasInput(3)) {
    SY_ASSIGN_OR_RETURN(axes, ctx.ConstInts(3, "axes"));
  } else {
    axes.resize(starts.size());
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (ctx.HasInput(4)) {
    SY_ASSIGN_OR_RETURN(steps, ctx.ConstInts(4, "steps"));
  } else {
    steps.assign(starts.size(), 1);
  }
  return EmitUnary(ctx, "slice",
                   Attrs({{"starts", starts},
                          {"ends", ends},
                          {"axes", axes},
                          {"steps", steps}}));
}

absl::Status ConvertGather(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(GatherAttrs a, OnnxAttrs<GatherAttrs>(ctx, {{"axis", "axis"}}));
  SY_ASSIGN_OR_RETURN(
      Val y, ctx.EmitOne("gather", {ctx.In(0), ctx.In(1)}, a.ToAttrMap()));
  return ctx.SetOutput(0, y);
}

// Trilu: k, an optional scalar input, needed at import.
absl::Status ConvertTrilu(NodeContext& ctx) {
  AttrMap given;
  if (ctx.HasInput(1)) {
    SY_ASSIGN_OR_RETURN(std::vector<int64_t> k, ctx.ConstInts(1, "k"));
    if (k.size() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("k has ", k.size(), " values; Trilu takes one"));
    }
    given.Set("k", k[0]);
  }
  SY_ASSIGN_OR_RETURN(TriluAttrs a,
                      OnnxAttrs<TriluAttrs>(ctx, {{"upper", "upper"}}, given));
  return EmitUnary(ctx, "trilu", a.ToAttrMap());
}

// The most elements a padded output may have (as Resize's cap): a guard
// against pads that ask for petabytes, before anything is allocated.
constexpr double kMaxPadOutputElements = double{int64_t{1} << 31};

// Pad-19's wrap mode, axis by axis (wrapping is separable): negative pads
// crop first, as ONNX Runtime does, then output j of the padded axis is
// cropped element (j - begin) mod length: a slice of the cropped axis
// repeated (concat) enough times.
absl::Status CheckPadOutput(const Shape& in, const std::vector<int64_t>& pads) {
  const int rank = in.rank();
  double elements = 1;
  for (int d = 0; d < rank; ++d) {
    elements *= std::max(0.0, static_cast<double>(in.dim(d)) + static_cast<double>(pads[d]) +
                                  static_cast<double>(pads[rank + d]));
  }
  if (elements > kMaxPadOutputElements) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "pads [", absl::StrJoin(pads, ", "), "] ask for an output of ", elements,
        " elements from ", in.ToString(), ", more than Switchyard allocates for one Pad (",
        kMaxPadOutputElements, ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Val> WrapPad(NodeContext& ctx, Val x, const std::vector<int64_t>& pads) {
  const Shape in = ctx.Type(x).shape;
  const int rank = in.rank();
  for (int d = 0; d < rank; ++d) {
    const int64_t begin = pads[d], end = pads[rank + d], length = in.dim(d);
    if (begin == 0 && end == 0) continue;
    const int64_t crop_begin = std::max<int64_t>(0, -begin);
    const int64_t kept = length - crop_begin - std::max<int64_t>(0, -end);
    if (kept < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pads ", begin, " and ", end, " remove more than the ", length,
          " elements of axis ", d, " of ", in.ToString()));
    }
    const std::vector<int64_t> axis = {d};
    if (kept != length) {
      SY_ASSIGN_OR_RETURN(x, ctx.EmitOne("slice", {x},
                                         Attrs({{"starts", std::vector<int64_t>{crop_begin}},
                                                {"ends", std::vector<int64_t>{crop_begin + kept}},
                                                {"axes", axis}})));
    }
    const int64_t before = std::max<int64_t>(0, begin), after = std::max<int64_t>(0, end);
    if (before == 0 && after == 0) continue;
    if (kept == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "wrap mode pads axis ", d, " of ", in.ToString(),
          ", which has no elements to repeat (after cropping)"));
    }
    // Output j reads concatenated copy element j + skip.
    const int64_t out = kept + before + after;
    const int64_t skip = (kept - before % kept) % kept;
    const int64_t copies = (skip + out + kept - 1) / kept;
    constexpr int64_t kMaxCopies = 1024;
    if (copies > kMaxCopies) {
      return absl::UnimplementedError(absl::StrCat(
          "wrap mode pads axis ", d, " of length ", kept, " by ", before, " and ", after,
          ": that repeats it ", copies, " times, more than the ", kMaxCopies,
          " Switchyard composes"));
    }
    SY_ASSIGN_OR_RETURN(
        Val repeated,
        ctx.EmitOne("concat", std::vector<Val>(static_cast<size_t>(copies), x),
                    Attrs({{"axis", int64_t{d}}})));
    SY_ASSIGN_OR_RETURN(x, ctx.EmitOne("slice", {repeated},
                                       Attrs({{"starts", std::vector<int64_t>{skip}},
                                              {"ends", std::vector<int64_t>{skip + out}},
                                              {"axes", axis}})));
  }
  return x;
}

// Pad: pads (and, from opset 18, the axes they apply to) must be known at
// import; opset 19's wrap mode is composed of slices and concats.
absl::Status ConvertPad(NodeContext& ctx) {
  const int rank = ctx.InShape(0).rank();
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> given_pads, ctx.ConstInts(1, "pads"));
  std::vector<int64_t> axes;
  if (ctx.HasInput(3)) {
    if (ctx.opset() < 18) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Pad-", ctx.opset(), " has 3 inputs; the axes input came with opset 18"));
    }
    SY_ASSIGN_OR_RETURN(axes, ctx.ConstInts(3, "axes"));
    std::vector<bool> seen(rank, false);
    for (int64_t& a : axes) {
      const int64_t given = a;
      SY_ASSIGN_OR_RETURN(a, NormalizeAxis(a, rank, "input 3 (axes)"));
      if (seen[a]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input 3 (axes) lists axis ", given, " (", a, ") twice"));
      }
      seen[a] = true;
    }
  } else {
    for (int d = 0; d < rank; ++d) axes.push_back(d);
  }
  const size_t n = axes.size();
  if (given_pads.size() != 2 * n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input 1 (pads) has ", given_pads.size(), " values; ", n,
        " padded axes need ", 2 * n, " (every begin, then every end)"));
  }
  std::vector<int64_t> pads(2 * static_cast<size_t>(rank), 0);
  for (size_t k = 0; k < n; ++k) {
    pads[axes[k]] = given_pads[k];
    pads[rank + axes[k]] = given_pads[n + k];
  }
  SY_RETURN_IF_ERROR(CheckPadOutput(ctx.InShape(0), pads));
  SY_ASSIGN_OR_RETURN(std::string mode, ctx.String("mode", "constant"));
  if (mode == "wrap") {
    ctx.IgnoreInput(2);  // constant_value: the constant mode's only
    if (ctx.opset() < 19) {
      return absl::InvalidArgumentError(absl::StrCat(
          "mode 'wrap' came with Pad-19; this model's opset is ", ctx.opset()));
    }
    SY_ASSIGN_OR_RETURN(Val y, WrapPad(ctx, ctx.In(0), pads));
    return ctx.SetOutput(0, y);
  }
  AttrMap given = Attrs({{"pads", pads}});
  if (ctx.HasInput(2)) {
    SY_ASSIGN_OR_RETURN(double value, ctx.ConstScalar(2, "constant_value"));
    given.Set("value", value);
  }
  SY_ASSIGN_OR_RETURN(PadAttrs a, OnnxAttrs<PadAttrs>(ctx, {{"mode", "mode"}}, given));
  return EmitUnary(ctx, "pad", a.ToAttrMap());
}

absl::Status ConvertExpand(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ctx.ConstInts(1, "shape"));
  const Shape& in = ctx.InShape(0);
  // ONNX Expand broadcasts the input and `shape` together: the result has
  // the larger of the two sizes where one of them is 1.
  const int rank = std::max<int>(in.rank(), static_cast<int>(shape.size()));
  std::vector<int64_t> out(rank);
  for (int d = 0; d < rank; ++d) {
    const int di = d - (rank - in.rank());
    const int ds = d - (rank - static_cast<int>(shape.size()));
    const int64_t a = di >= 0 ? in.dim(di) : 1;
    const int64_t b = ds >= 0 ? shape[ds] : 1;
    if (a != b && a != 1 && b != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot expand ", in.ToString(), " to [", absl::StrJoin(shape, ", "), "]"));
    }
    out[d] = a == 1 ? b : a;
  }
  return EmitUnary(ctx, "expand", Attrs({{"shape", out}}));
}

absl::Status ConvertWhere(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(
      Val y, ctx.EmitOne("where", {ctx.In(0), ctx.In(1), ctx.In(2)}, AttrMap()));
  return ctx.SetOutput(0, y);
}

absl::Status ConvertIdentity(NodeContext& ctx) { return Alias(ctx); }

// Dropout at inference is the identity, and its mask all true. In training
// mode it is too when the ratio is 0 (torchvision's Swin exports
// F.dropout(p=0.0) that way).
absl::Status ConvertDropout(NodeContext& ctx) {
  ctx.Ignore("seed");
  ctx.Ignore("ratio");  // opset 11's attribute; any ratio is the identity here
  ctx.IgnoreInput(1);  // the ratio input: read only in training mode
  if (ctx.HasInput(2)) {
    SY_ASSIGN_OR_RETURN(double training, ctx.ConstScalar(2, "training_mode"));
    double ratio = 0.5;  // ONNX's default
    if (training != 0 && ctx.HasInput(1)) {
      SY_ASSIGN_OR_RETURN(ratio, ctx.ConstScalar(1, "ratio"));
    }
    if (training != 0 && ratio != 0) {
      return absl::UnimplementedError(absl::StrCat(
          "training_mode is true with ratio ", ratio,
          "; Switchyard runs Dropout for inference only (or with ratio 0)"));
    }
  }
  if (ctx.OutputUsed(1)) {
    std::vector<char> on = {1};
    const Val one = ctx.Constant(HostArray(Shape(), DType::kBool, std::move(on)));
    SY_ASSIGN_OR_RETURN(
        Val mask, ctx.EmitOne("expand", {one}, Attrs({{"shape", ctx.InShape(0).dims()}})));
    SY_RETURN_IF_ERROR(ctx.SetOutput(1, mask));
  } else {
    SY_RETURN_IF_ERROR(SkipUnusedOutput(ctx, 1));
  }
  return Alias(ctx);
}

// Shape, Size and ConstantOfShape are computed at import from static shapes.
absl::Status ConvertShape(NodeContext& ctx) {
  const Shape& in = ctx.InShape(0);
  const int rank = in.rank();
  SY_ASSIGN_OR_RETURN(int64_t start, ctx.Int("start", 0));
  SY_ASSIGN_OR_RETURN(int64_t end, ctx.Int("end", rank));
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  std::vector<int64_t> dims(in.dims().begin() + start, in.dims().begin() + end);
  return ctx.SetOutput(
      0, ctx.Constant(HostArray::Of<int64_t>(
             Shape({static_cast<int64_t>(dims.size())}), dims)));
}

absl::Status ConvertSize(NodeContext& ctx) {
  const int64_t n = ctx.InShape(0).num_elements();
  return ctx.SetOutput(0, ctx.Constant(HostArray::Of<int64_t>(Shape(), {n})));
}

absl::Status ConvertConstantOfShape(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ctx.ConstInts(0, "shape"));
  HostArray value(Shape({1}), {0.0f});
  if (const onnx::AttributeProto* a = ctx.Attr("value")) {
    SY_ASSIGN_OR_RETURN(value, ReadTensorProto(a->t(), ""));
    if (value.num_elements() != 1) {
      return absl::InvalidArgumentError("attribute 'value' must have one element");
    }
  }
  SY_ASSIGN_OR_RETURN(Shape shape, Shape::Create(dims, DTypeSize(value.dtype)));
  constexpr int64_t kMaxElements = int64_t{1} << 28;
  if (shape.num_elements() > kMaxElements) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "ConstantOfShape of ", shape.ToString(), " is larger than the ",
        kMaxElements, " elements the importer materializes"));
  }
  // A large one is the graph's work (an expand of the one value), not a
  // constant every plan would upload and hold (NodeContext::Emit's rule).
  if (shape.num_elements() > kMaxExpandedConstantElements) {
    const Val one = ctx.Constant(HostArray(Shape(), value.dtype, value.bytes));
    SY_ASSIGN_OR_RETURN(Val filled, ctx.EmitOne("expand", {one}, Attrs({{"shape", dims}})));
    return ctx.SetOutput(0, filled);
  }
  const size_t size = DTypeSize(value.dtype);
  std::vector<char> bytes(static_cast<size_t>(shape.num_elements()) * size);
  for (size_t i = 0; i < bytes.size(); i += size) {
    std::memcpy(bytes.data() + i, value.bytes.data(), size);
  }
  return ctx.SetOutput(0, ctx.Constant(HostArray(shape, value.dtype, std::move(bytes))));
}

absl::Status ConvertConstant(NodeContext& ctx) {
  if (const onnx::AttributeProto* a = ctx.Attr("value")) {
    SY_ASSIGN_OR_RETURN(HostArray v, ReadTensorProto(a->t(), ""));
    return ctx.SetOutput(0, ctx.Constant(std::move(v)));
  }
  if (const onnx::AttributeProto* a = ctx.Attr("value_float")) {
    return ctx.SetOutput(0, ctx.Constant(HostArray(Shape(), {a->f()})));
  }
  if (const onnx::AttributeProto* a = ctx.Attr("value_floats")) {
    std::vector<float> v(a->floats().begin(), a->floats().end());
    const int64_t n = static_cast<int64_t>(v.size());
    return ctx.SetOutput(0, ctx.Constant(HostArray(Shape({n}), std::move(v))));
  }
  if (const onnx::AttributeProto* a = ctx.Attr("value_int")) {
    return ctx.SetOutput(0, ctx.Constant(HostArray::Of<int64_t>(Shape(), {a->i()})));
  }
  if (const onnx::AttributeProto* a = ctx.Attr("value_ints")) {
    std::vector<int64_t> v(a->ints().begin(), a->ints().end());
    const int64_t n = static_cast<int64_t>(v.size());
    return ctx.SetOutput(0, ctx.Constant(HostArray::Of<int64_t>(Shape({n}), v)));
  }
  return absl::UnimplementedError(
      "Constant needs one of value, value_float(s), value_int(s); sparse and "
      "string constants are not supported");
}

// NonZero: the indices of the non-zero elements, [rank, count], as numpy's
// nonzero stacked (a scalar counts as one element of a vector). The count
// depends on the data, so the input must be on the host (a staged run
// brings it there; see NodeContext::RequireHostInputs).
absl::Status ConvertNonZero(NodeContext& ctx) {
  SY_RETURN_IF_ERROR(ctx.RequireHostInputs());
  const HostArray& x = *ctx.Host(ctx.In(0));
  const std::vector<int64_t> dims =
      x.shape.rank() == 0 ? std::vector<int64_t>{1} : x.shape.dims();
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> flat;  // non-zero flat indices
  for (int64_t k = 0; k < x.num_elements(); ++k) {
    if (x.ElementAsDouble(k) != 0) flat.push_back(k);
  }
  const int64_t count = static_cast<int64_t>(flat.size());
  std::vector<int64_t> out(static_cast<size_t>(rank * count));
  for (int64_t j = 0; j < count; ++j) {
    int64_t rest = flat[j];
    for (int64_t d = rank - 1; d >= 0; --d) {
      out[d * count + j] = rest % dims[d];
      rest /= dims[d];
    }
  }
  return ctx.SetOutput(
      0, ctx.Constant(HostArray::Of<int64_t>(Shape({rank, count}), out)));
}

// Compress: the slices along `axis` (of the flattened input without it)
// whose condition is true; a condition shorter than the axis drops the rest,
// as ONNX says. The count depends on the data: a host step, as NonZero.
absl::Status ConvertCompress(NodeContext& ctx) {
  SY_RETURN_IF_ERROR(ctx.RequireHostInputs());
  const HostArray& x = *ctx.Host(ctx.In(0));
  const HostArray& condition = *ctx.Host(ctx.In(1));
  if (condition.shape.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input 1 (condition) must be 1-D, got shape ", condition.shape.ToString()));
  }
  if (condition.dtype != DType::kBool) {  // ONNX's type constraint: no NaN question
    return absl::InvalidArgumentError(absl::StrCat(
        "input 1 (condition) must be bool, got ", DTypeName(condition.dtype),
        "; add a Cast to bool before the Compress"));
  }
  std::vector<int64_t> dims = {x.num_elements()};
  int64_t axis = 0;
  if (ctx.HasAttr("axis")) {
    SY_ASSIGN_OR_RETURN(axis, ctx.Int("axis", 0));
    const int64_t rank = x.shape.rank();
    if (axis < -rank || axis >= rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "axis ", axis, " is out of range for input 0 of rank ", rank));
    }
    if (axis < 0) axis += rank;
    dims = x.shape.dims();
  }
  const int64_t length = dims[axis];
  const int64_t given = condition.num_elements();
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < given; ++i) {
    if (condition.ElementAsDouble(i) == 0) continue;
    if (i >= length) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input 1 (condition) selects index ", i, " but axis ", axis,
          " of input 0 has size ", length));
    }
    kept.push_back(i);
  }
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
  for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  const size_t slice = static_cast<size_t>(inner) * DTypeSize(x.dtype);
  std::vector<char> out(static_cast<size_t>(outer) * kept.size() * slice);
  char* to = out.data();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i : kept) {
      std::memcpy(to, x.bytes.data() + (o * length + i) * slice, slice);
      to += slice;
    }
  }
  dims[axis] = static_cast<int64_t>(kept.size());
  return ctx.SetOutput(0, ctx.Constant(HostArray(Shape(dims), x.dtype, std::move(out))));
}

absl::Status ConvertRange(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(double start, ctx.ConstScalar(0, "start"));
  SY_ASSIGN_OR_RETURN(double limit, ctx.ConstScalar(1, "limit"));
  SY_ASSIGN_OR_RETURN(double delta, ctx.ConstScalar(2, "delta"));
  for (auto [what, value] : {std::pair<const char*, double>{"start", start},
                             {"limit", limit}, {"delta", delta}}) {
    if (!std::isfinite(value)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", what, "' is ", value, "; Range needs finite start, limit and delta"));
    }
  }
  if (delta == 0) return absl::InvalidArgumentError("input 'delta' is 0; Range needs a nonzero step");
  const double count = std::max(0.0, std::ceil((limit - start) / delta));
  if (count > (1 << 24)) {
    return absl::ResourceExhaustedError(absl::StrCat("Range of ", count, " elements"));
  }
  const DType dtype = ctx.Type(ctx.In(0)).dtype;
  const int64_t n = static_cast<int64_t>(count);
  std::vector<char> bytes(static_cast<size_t>(n) * DTypeSize(dtype));
  for (int64_t i = 0; i < n; ++i) {
    SetElementFromDouble(bytes.data(), dtype, i, start + i * delta);
  }
  return ctx.SetOutput(0, ctx.Constant(HostArray(Shape({n}), dtype, std::move(bytes))));
}

// TopK: K is an input from opset 10 (read from data at run time when it is
// computed: a staged run brings it to the host), an attribute before.
absl::Status ConvertTopK(NodeContext& ctx) {
  int64_t k = 0;
  if (ctx.opset() >= 10) {
    SY_ASSIGN_OR_RETURN(std::vector<int64_t> ks, ctx.ConstInts(1, "K"));
    if (ks.size() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("input 1 (K) must hold one value, got ", ks.size()));
    }
    k = ks[0];
  } else {
    SY_ASSIGN_OR_RETURN(k, ctx.Int("k", -1));
  }
  AttrMap given;
  given.Set("k", k);
  SY_ASSIGN_OR_RETURN(TopKAttrs a,
                      OnnxAttrs<TopKAttrs>(ctx, {{"axis", "axis"},
                                                 {"largest", "largest"},
                                                 {"sorted", "sorted"}},
                                           std::move(given)));
  SY_ASSIGN_OR_RETURN(std::vector<Val> out,
                      ctx.Emit(TopKAttrs::kOp, {ctx.In(0)}, a.ToAttrMap(), 2));
  SY_RETURN_IF_ERROR(ctx.SetOutput(0, out[0]));
  if (ctx.num_outputs() > 1) SY_RETURN_IF_ERROR(ctx.SetOutput(1, out[1]));
  return absl::OkStatus();
}

SY_REGISTER_ONNX_CONVERTER("TopK", ConvertTopK);
SY_REGISTER_ONNX_CONVERTER("Reshape", ConvertReshape, 2);
SY_REGISTER_ONNX_CONVERTER("Flatten", ConvertFlatten);
SY_REGISTER_ONNX_CONVERTER("Squeeze", ConvertSqueeze);
SY_REGISTER_ONNX_CONVERTER("Unsqueeze", ConvertUnsqueeze);
SY_REGISTER_ONNX_CONVERTER("Transpose", ConvertTranspose);
SY_REGISTER_ONNX_CONVERTER("Concat", ConvertConcat);
SY_REGISTER_ONNX_CONVERTER("Split", ConvertSplit);
SY_REGISTER_ONNX_CONVERTER("Slice", ConvertSlice, 3);
SY_REGISTER_ONNX_CONVERTER("Gather", ConvertGather, 2);
SY_REGISTER_ONNX_CONVERTER("Pad", ConvertPad, 2);
SY_REGISTER_ONNX_CONVERTER("Trilu", ConvertTrilu);
SY_REGISTER_ONNX_CONVERTER("Expand", ConvertExpand, 2);
SY_REGISTER_ONNX_CONVERTER("Where", ConvertWhere, 3);
SY_REGISTER_ONNX_CONVERTER("Identity", ConvertIdentity);
SY_REGISTER_ONNX_CONVERTER("Dropout", ConvertDropout);
SY_REGISTER_ONNX_CONVERTER("Shape", ConvertShape);
SY_REGISTER_ONNX_CONVERTER("Size", ConvertSize);
SY_REGISTER_ONNX_CONVERTER("ConstantOfShape", ConvertConstantOfShape);
SY_REGISTER_ONNX_CONVERTER("Constant", ConvertConstant, 0);
SY_REGISTER_ONNX_CONVERTER("Range", ConvertRange, 3);
SY_REGISTER_ONNX_CONVERTER("NonZero", ConvertNonZero);
SY_REGISTER_ONNX_CONVERTER("Compress", ConvertCompress);

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
