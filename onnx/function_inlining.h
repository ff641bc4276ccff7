#ifndef SWITCHYARD_ONNX_FUNCTION_INLINING_H_
#define SWITCHYARD_ONNX_FUNCTION_INLINING_H_

// Model-local functions (ModelProto.functions, IR 8 and later; what
// torch.export's ONNX exporter writes for modules kept whole) inlined at
// import: each node that calls one becomes the function's body, its values
// renamed into the caller's scope ("<node>/<value>"), its attribute
// references (ref_attr_name) bound to the caller's attributes or the
// function's defaults. Calls inside function bodies and subgraphs are
// inlined too.
//
//   SY_RETURN_IF_ERROR(InlineFunctions(model));
//
// Errors name the function: recursion, a call with more inputs or outputs
// than the function declares, an output its body never makes, two
// functions with one name, a body that uses another default-domain opset
// than the model, or more than kMaxInlinedNodes nodes in all.

#include <cstdint>

#include "absl/status/status.h"
#include "onnx/onnx_pb.h"

namespace switchyard {
namespace onnx_import {

// Inlining stops here (a few functions calling each other twice per level
// would otherwise grow the graph exponentially).
inline constexpr int64_t kMaxInlinedNodes = 1 << 20;
inline constexpr int kMaxFunctionDepth = 64;

absl::Status InlineFunctions(onnx::ModelProto& model);

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_FUNCTION_INLINING_H_
