#ifndef SWITCHYARD_ONNX_RAW_DATA_RANGES_H_
#define SWITCHYARD_ONNX_RAW_DATA_RANGES_H_

// Where each initializer's raw_data lies in a serialized ONNX model, read
// from the protobuf wire format without parsing the message: the ranges a
// model loaded from a file can read its weights back from after giving
// their memory back (core/releasable_weights.h).
//
//   std::vector<InitializerBytes> r = InitializerRawDataRanges(bytes);
//   // r[i].raw_data: where graph.initializer(i).raw_data() is, when it has one

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace switchyard {
namespace onnx_import {

struct ByteRange {
  size_t offset = 0;
  size_t size = 0;
};

struct InitializerBytes {
  std::string name;
  std::optional<ByteRange> raw_data;  // none: its values are in typed fields
};

// One entry per initializer of the model's graph, in order (every `graph`
// field of the ModelProto, as protobuf merges them). Bytes that are not a
// well-formed message, or that nest in ways this reader does not follow,
// give an empty list: the caller then simply has no ranges. Never reads
// outside `model`.
std::vector<InitializerBytes> InitializerRawDataRanges(absl::string_view model);

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_RAW_DATA_RANGES_H_
