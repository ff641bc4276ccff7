#ifndef SWITCHYARD_ONNX_CONVERT_UTIL_H_
#define SWITCHYARD_ONNX_CONVERT_UTIL_H_

// Small helpers the converters (onnx/convert_*.cc) share.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/attributes.h"
#include "core/op_def.h"
#include "onnx/node_context.h"

namespace switchyard {
namespace onnx_import {

inline AttrMap Attrs(
    std::initializer_list<std::pair<std::string, AttrValue>> values) {
  AttrMap attrs;
  for (const auto& [name, value] : values) attrs.Set(name, value);
  return attrs;
}

// The ONNX node's attributes as typed struct `A` (ops/*_attrs.h): each
// {ONNX name, A's name} pair is read, when present, as A's declared type (an
// ONNX int for a bool); absent attributes keep A's defaults, so a default is
// written once, in the struct. A's own checks apply.
//
//   SY_ASSIGN_OR_RETURN(GemmAttrs g, OnnxAttrs<GemmAttrs>(ctx, {{"transA", "trans_a"},
//                                                           {"alpha", "alpha"}}));
using OnnxAttrNames = std::vector<std::pair<std::string, std::string>>;
// `given`: attributes that come from elsewhere (an input known at import).
absl::StatusOr<AttrMap> OnnxAttrMap(NodeContext& ctx,
                                    const std::vector<AttrSpec>& specs,
                                    const OnnxAttrNames& names, AttrMap given);
template <typename A>
absl::StatusOr<A> OnnxAttrs(NodeContext& ctx, const OnnxAttrNames& names,
                            AttrMap given = AttrMap()) {
  absl::StatusOr<AttrMap> attrs =
      OnnxAttrMap(ctx, A::Specs(), names, std::move(given));
  if (!attrs.ok()) return attrs.status();
  return A::FromAttrMap(*attrs);
}

// `axis` in [-rank, rank) as a non-negative axis, or InvalidArgument.
absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int rank, const char* what);

// `op` emitted on `operands` (ctx.EmitOne with no attributes by default):
// the one step of the composed converters.
absl::StatusOr<Val> Op(NodeContext& ctx, const char* op, std::vector<Val> operands,
                       const AttrMap& attrs = AttrMap());

// The single output is `op` applied to input 0 with `attrs`.
absl::Status EmitUnary(NodeContext& ctx, const std::string& op,
                       const AttrMap& attrs = AttrMap());

// An output that is an input unchanged (Identity, Dropout at inference).
absl::Status Alias(NodeContext& ctx, int input = 0);

// Unimplemented unless output `i` is unused (optional outputs such as
// BatchNormalization's running statistics in training).
absl::Status RequireUnusedOutput(NodeContext& ctx, int i, const char* what);

// Output `i`, when present but unused, is left without a value (an
// optional output the converter need not compute).
absl::Status SkipUnusedOutput(NodeContext& ctx, int i);

// A scalar constant of `dtype` (for composites: x * alpha, 1 + |x|).
Val Scalar(NodeContext& ctx, double value, DType dtype);

// `value` reshaped (a reshape op, folded when on the host).
absl::StatusOr<Val> Reshape(NodeContext& ctx, Val value,
                            const std::vector<int64_t>& dims);

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_CONVERT_UTIL_H_
