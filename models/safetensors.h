#ifndef SWITCHYARD_MODELS_SAFETENSORS_H_
#define SWITCHYARD_MODELS_SAFETENSORS_H_

// Reading and writing .safetensors weight files (float32 tensors only).
//
// Layout: an 8-byte little-endian uint64 N, N bytes of UTF-8 JSON, then the
// data section. The JSON maps each tensor name to
//   {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}
// with offsets relative to the start of the data section, plus an optional
// "__metadata__" object of string -> string. Tensors tile the data section
// exactly: no overlaps and no uncovered bytes.
//
//   SY_ASSIGN_OR_RETURN(SafetensorsFile file,
//                       ReadSafetensors("vgg11.safetensors"));
//   const HostArray& w = file.tensors.at("features.0.weight");
//
// Tensor data is copied byte for byte, so this assumes a little-endian host
// (every platform the runtime targets); safetensors.cc refuses to compile on a
// big-endian one.

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "models/host_array.h"

namespace switchyard {

struct SafetensorsFile {
  std::map<std::string, HostArray> tensors;     // by name
  std::map<std::string, std::string> metadata;  // the "__metadata__" object
};

// Parses a whole file held in `bytes`. `source_name` (usually the path) leads
// every error message. Errors: InvalidArgument for anything malformed,
// Unimplemented for a valid dtype other than F32.
absl::StatusOr<SafetensorsFile> ParseSafetensors(absl::string_view bytes,
                                                 absl::string_view source_name);

// Reads and parses `path`; a missing file is NotFound.
absl::StatusOr<SafetensorsFile> ReadSafetensors(const std::string& path);

// The file's bytes, laid out as the reference implementation writes them:
// compact JSON with "__metadata__" first (only when non-empty), tensors sorted
// by name and packed contiguously, the header padded with spaces to a
// multiple of 8 bytes. Precondition: `file` passes the checks WriteSafetensors
// makes (tensor values match their shapes, rank <= kMaxTensorFileRank, names
// and metadata valid UTF-8 and no tensor named "__metadata__"); invalid UTF-8
// would be replaced by U+FFFD.
std::string SerializeSafetensors(const SafetensorsFile& file);

// Checks `file`, serializes it and writes it to `path` via a temporary file,
// so an existing `path` is left intact on any error. Errors name the path and
// the system's reason.
absl::Status WriteSafetensors(const std::string& path,
                              const SafetensorsFile& file);

}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_SAFETENSORS_H_
