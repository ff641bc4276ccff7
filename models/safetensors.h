#ifndef SWITCHYARD_MODELS_SAFETENSORS_H_
#define SWITCHYARD_MODELS_SAFETENSORS_H_

// Reading and writing .safetensors weight files.
//
// Layout: an 8-byte little-endian uint64 N, N bytes of UTF-8 JSON, then the
// data section. The JSON maps each tensor name to
//   {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}
// The dtypes read and written are those the runtime has: F32, F16, BF16, F64,
// I64, I32, I8, U8 and BOOL (float32 ... bool); the format's others (I16,
// U16, U32, U64, F8_*) are refused as Unimplemented.
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

#include <cstddef>
#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "models/host_array.h"

namespace switchyard {
namespace file_io_internal {
class MappedFile;
}  // namespace file_io_internal

struct SafetensorsFile {
  std::map<std::string, HostArray> tensors;     // by name
  std::map<std::string, std::string> metadata;  // the "__metadata__" object
};

// Parses a whole file held in `bytes`. `source_name` (usually the path) leads
// every error message. Errors: InvalidArgument for anything malformed,
// Unimplemented for a valid safetensors dtype the runtime lacks (F8_E4M3,
// U16, ...).
absl::StatusOr<SafetensorsFile> ParseSafetensors(absl::string_view bytes,
                                                 absl::string_view source_name);

// Reads and parses `path`; a missing file is NotFound. The file is
// memory-mapped and each tensor copied from the mapping once, so reading
// needs about the tensors' size in memory, not twice that.
absl::StatusOr<SafetensorsFile> ReadSafetensors(const std::string& path);

namespace safetensors_internal {
// A checked header: each tensor's shape and where its bytes are.
struct SafetensorsIndex {
  std::map<std::string, HostArrayView> tensors;  // views into the file bytes
  std::map<std::string, std::string> metadata;
};
// The checks of ParseSafetensors (all of them), without copying any tensor.
absl::StatusOr<SafetensorsIndex> ParseSafetensorsIndex(
    absl::string_view bytes, absl::string_view source_name);
}  // namespace safetensors_internal

// A .safetensors file memory-mapped with its header parsed and checked
// (every check of ParseSafetensors), for loading weights straight into their
// destination: each tensor is a view of the file's bytes, read from disk
// when first touched. Module::LoadSafetensors uses it to copy weights from
// the file to the device without a host copy of the whole file.
//
// Limits (InvalidArgument naming the file, the tensor and the limit):
// header at most 100,000,000 bytes (the reference implementation's limit)
// and JSON nested at most 64 levels, at most 100,000 tensors, both checked
// in one streaming pass before the header is parsed into a document, rank
// at most kMaxTensorFileRank, dimensions
// whose product (and byte size) fits in int64, each tensor's bytes inside
// the file, tensors tiling the data section, and unique names.
//
//   SY_ASSIGN_OR_RETURN(std::unique_ptr<MappedSafetensors> file,
//                       MappedSafetensors::Open("vgg11.safetensors"));
//   const HostArrayView& w = file->tensors().at("features.0.weight");
//   std::memcpy(destination, w.data, w.size_bytes);
//   file->Release(w.data, w.size_bytes);  // optional: drop the copied pages
class MappedSafetensors {
 public:
  // Errors: those of ReadSafetensors.
  static absl::StatusOr<std::unique_ptr<MappedSafetensors>> Open(
      const std::string& path);
  ~MappedSafetensors();
  MappedSafetensors(const MappedSafetensors&) = delete;
  MappedSafetensors& operator=(const MappedSafetensors&) = delete;

  const std::string& path() const { return path_; }
  // Views valid as long as this object.
  const std::map<std::string, HostArrayView>& tensors() const {
    return index_.tensors;
  }
  const std::map<std::string, std::string>& metadata() const {
    return index_.metadata;
  }
  // Gives back the memory of file pages wholly inside [data, data + size)
  // once they have been copied; reading them again is still correct (they
  // come back from the file).
  void Release(const char* data, size_t size);

 private:
  MappedSafetensors(std::string path,
                    std::unique_ptr<file_io_internal::MappedFile> file,
                    safetensors_internal::SafetensorsIndex index);

  std::string path_;
  std::unique_ptr<file_io_internal::MappedFile> file_;
  safetensors_internal::SafetensorsIndex index_;
};

// The file's bytes, laid out as the reference implementation writes them:
// compact JSON with "__metadata__" first (only when non-empty), tensors sorted
// by name and packed contiguously, the header padded with spaces to a
// multiple of 8 bytes. Precondition: `file` passes the checks WriteSafetensors
// makes (tensor bytes match their shapes and dtypes, rank <=
// kMaxTensorFileRank, names and metadata valid UTF-8 and no tensor named
// "__metadata__"); invalid UTF-8 would be replaced by U+FFFD.
std::string SerializeSafetensors(const SafetensorsFile& file);

// Checks `file`, serializes it and writes it to `path` via a temporary file,
// so an existing `path` is left intact on any error. Errors name the path and
// the system's reason.
absl::Status WriteSafetensors(const std::string& path,
                              const SafetensorsFile& file);

}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_SAFETENSORS_H_
