#ifndef SWITCHYARD_ONNX_FLOAT_PRECISION_H_
#define SWITCHYARD_ONNX_FLOAT_PRECISION_H_

// The precision attributes of the opset 21-23 normalization and attention
// ops (stash_type, softmax_precision): an ONNX data type that says in which
// floating-point type a stage of the op is computed.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/node_context.h"
#include "onnx/onnx_tensor.h"

namespace switchyard {
namespace onnx_import {

// The floating-point dtype attribute `name` names, or `fallback` when it is
// absent; InvalidArgument for a type that is not floating point.
inline absl::StatusOr<DType> FloatPrecisionAttr(NodeContext& ctx,
                                                const std::string& name,
                                                DType fallback) {
  if (!ctx.HasAttr(name)) return fallback;
  SY_ASSIGN_OR_RETURN(int64_t onnx_type, ctx.Int(name, 0));
  absl::StatusOr<DType> dtype = DTypeFromOnnx(static_cast<int32_t>(onnx_type));
  if (!dtype.ok() || !IsFloatingPoint(*dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute ", name, " is ", onnx_type,
        "; it must name a floating-point type: 1 (FLOAT), 10 (FLOAT16), "
        "11 (DOUBLE) or 16 (BFLOAT16)"));
  }
  return *dtype;
}

// `v` cast to `dtype`, or `v` itself when it already has that dtype.
inline absl::StatusOr<Val> CastTo(NodeContext& ctx, Val v, DType dtype) {
  if (ctx.Type(v).dtype == dtype) return v;
  return Op(ctx, "cast", {v}, Attrs({{"to", DTypeName(dtype)}}));
}

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_FLOAT_PRECISION_H_
