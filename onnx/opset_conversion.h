#ifndef SWITCHYARD_ONNX_OPSET_CONVERSION_H_
#define SWITCHYARD_ONNX_OPSET_CONVERSION_H_

#include "absl/status/status.h"
#include "onnx/onnx_pb.h"

namespace switchyard {
namespace onnx_import {

// Lifts `model` from default-domain opset `from` to `target` in place with
// ONNX's own version converter (libonnx), so files exported at opsets
// older than the importer's converters (1 to 10) load. ONNX's checker runs
// first: the converter works on ONNX's IR, which assumes a well-formed
// graph, so a malformed file is refused before it gets there.
// InvalidArgument when the checker refuses the model; Unimplemented when
// the converter has no way from `from` to `target` (it names the step that
// failed); `model` is unchanged on error.
absl::Status ConvertOpset(onnx::ModelProto& model, int from, int target);

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_OPSET_CONVERSION_H_
