// ReverseSequence: each batch entry's first sequence_lens[b] steps along the
// time axis reversed, the rest kept. The lengths are data (read when the
// model runs), so the reversal is a gather_elements whose index along time
// is computed on the device:
//
//   index[t, b] = t < len[b] ? len[b] - 1 - t : t
//
// broadcast over the other axes. A length above the time axis's size gives
// an index past its end, which gather_elements refuses, naming this node.

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "models/host_array.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"

namespace switchyard {
namespace onnx_import {
namespace {

absl::Status ConvertReverseSequence(NodeContext& ctx) {
  const Shape x = ctx.InShape(0);
  const Shape lens = ctx.InShape(1);
  SY_ASSIGN_OR_RETURN(int64_t batch_axis, ctx.Int("batch_axis", 1));
  SY_ASSIGN_OR_RETURN(int64_t time_axis, ctx.Int("time_axis", 0));
  if (x.rank() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the input must have rank >= 2 (time and batch axes), got ", x.ToString()));
  }
  // ONNX allows only axes 0 and 1, one of each.
  if (!((batch_axis == 0 && time_axis == 1) || (batch_axis == 1 && time_axis == 0))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "batch_axis and time_axis must be 0 and 1 in either order, got ", batch_axis,
        " and ", time_axis));
  }
  const int64_t steps = x.dim(time_axis), batch = x.dim(batch_axis);
  if (lens.rank() != 1 || lens.dim(0) != batch) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sequence_lens must be [", batch, "] (one length per batch entry), got ",
        lens.ToString()));
  }
  if (ctx.Type(ctx.In(1)).dtype != DType::kInt64) {
    return absl::InvalidArgumentError("sequence_lens must be int64");
  }
  // t along the time axis and len along the batch axis, each broadcast
  // against the other.
  std::vector<int64_t> time_dims(x.rank(), 1), batch_dims(x.rank(), 1);
  time_dims[time_axis] = steps;
  batch_dims[batch_axis] = batch;
  std::vector<char> bytes(static_cast<size_t>(steps) * sizeof(int64_t));
  for (int64_t t = 0; t < steps; ++t) {
    reinterpret_cast<int64_t*>(bytes.data())[t] = t;
  }
  const Val t = ctx.Constant(HostArray(Shape(time_dims), DType::kInt64, std::move(bytes)));
  SY_ASSIGN_OR_RETURN(Val len, Reshape(ctx, ctx.In(1), batch_dims));
  SY_ASSIGN_OR_RETURN(Val reversing, Op(ctx, "less", {t, len}));
  SY_ASSIGN_OR_RETURN(Val last, Op(ctx, "sub", {len, Scalar(ctx, 1, DType::kInt64)}));
  SY_ASSIGN_OR_RETURN(Val mirrored, Op(ctx, "sub", {last, t}));
  SY_ASSIGN_OR_RETURN(Val index, Op(ctx, "where", {reversing, mirrored, t}));
  SY_ASSIGN_OR_RETURN(index, ctx.EmitOne("expand", {index},
                                         Attrs({{"shape", x.dims()}})));
  SY_ASSIGN_OR_RETURN(Val y, ctx.EmitOne("gather_elements", {ctx.In(0), index},
                                         Attrs({{"axis", time_axis}})));
  return ctx.SetOutput(0, y);
}

SY_REGISTER_ONNX_CONVERTER("ReverseSequence", ConvertReverseSequence);

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
