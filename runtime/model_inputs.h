#ifndef SWITCHYARD_RUNTIME_MODEL_INPUTS_H_
#define SWITCHYARD_RUNTIME_MODEL_INPUTS_H_

// The inputs `switchyard run|graph|bench` feed a model file: each input the
// model declares (name, dtype, dimensions fixed or symbolic) gets an array
// from an .npy file (--input) or a seeded one of its declared dtype whose
// shape comes from --input_shape, --batch and the sizes other inputs give
// their shared symbolic dimensions.
//
//   InputRequest request;
//   request.files = {"ids=ids.npy", "mask=mask.npy"};  // --input values
//   SY_ASSIGN_OR_RETURN(InputArrays in, MakeInputArrays(model.inputs(), request));
//   // in.arrays[i] feeds model.inputs()[i]; in.sources[i] says where from.
//
// Every error is InvalidArgument (ResourceExhausted for inputs beyond this
// machine's memory) naming the flag, the input as the model declares it and
// how to fix it.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "models/host_array.h"
#include "onnx/onnx_model.h"

namespace switchyard {
namespace runtime {

// What the command line asked for.
struct InputRequest {
  // --input values, each "path", "name=path" or a comma-separated list of
  // them: one file per declared input, in the model's order or by name.
  std::vector<std::string> files;
  // --input_shape values, each "name:1x3x224x224", or "1x3x224x224" for a
  // model with one input; comma-separated lists too.
  std::vector<std::string> shapes;
  // --batch when given: dimension 0 of every input no shape was given for.
  std::optional<int64_t> batch;
  // bench: `batch` also replaces dimension 0 of the --input_shape shapes
  // (each batch size of the list is measured at the given shape).
  bool batch_overrides_shapes = false;
  uint64_t seed = 0;  // of the seeded arrays
  // Turns a user's path into one to open (the CLI: ResolveUserPath).
  std::function<std::string(const std::string&)> resolve_path =
      [](const std::string& path) { return path; };
};

// DIMS of an --input_shape value `value` ("1x3x224x224"): dimensions >= 1
// joined by 'x', at most 2^31 each; InvalidArgument quoting `value`.
absl::StatusOr<Shape> ParseShapeDims(absl::string_view dims, absl::string_view value);

struct InputArrays {
  std::vector<HostArray> arrays;     // one per declared input, in order
  std::vector<std::string> sources;  // "ids.npy", or "seeded"
};

// The arrays for `declared` (OnnxModel::inputs()): from the files when
// `request.files` is given (all of them; shapes from the files, checked
// against the declarations), else seeded: floating inputs N(0, 1), integer
// ones uniform in [0, 10), bool ones 0 or 1 (runtime/seeded_input.h),
// drawn in input order from mt19937_64(seed + 1).
absl::StatusOr<InputArrays> MakeInputArrays(
    absl::Span<const OnnxValueInfo> declared, const InputRequest& request);

// The file for each declared input, resolved (for checks before reading).
absl::StatusOr<std::vector<std::string>> InputFilePaths(
    absl::Span<const OnnxValueInfo> declared, const InputRequest& request);

// The shape of each declared input from `request.shapes` and
// `request.batch` (files are not read): for `graph` and `bench`.
absl::StatusOr<std::vector<Shape>> InputShapes(
    absl::Span<const OnnxValueInfo> declared, const InputRequest& request);

// For messages: "ids [batch, seq] int64, mask [batch, seq] bool".
std::string DescribeInputs(absl::Span<const OnnxValueInfo> declared);

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_MODEL_INPUTS_H_
