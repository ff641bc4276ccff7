#ifndef SWITCHYARD_MODELS_NPY_H_
#define SWITCHYARD_MODELS_NPY_H_

// Reading and writing NumPy .npy array files of every dtype NumPy shares with
// the runtime: descr '<f4' float32, '<f2' float16, '<f8' float64, '<i8'
// int64, '<i4' int32, '<i2' int16, '<u2' uint16, '|i1' int8, '|u1' uint8 and
// '|b1' bool (little-endian; one-byte types with any byte-order mark). bfloat16 has no NumPy dtype
// (ml_dtypes saves it as raw '<V2' bytes, losing the type), so a bfloat16
// array cannot be written as .npy: convert it to float32 or write
// .safetensors (BF16).
//
// Layout: the magic "\x93NUMPY", a major and a minor version byte, the header
// length (2 bytes little-endian in version 1.0, 4 bytes in 2.0 and 3.0), then
// the header, a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and a final '\n', then the raw array data in C order.
//
//   SY_ASSIGN_OR_RETURN(HostArray golden, ReadNpy("testdata/vgg11_out.npy"));
//   SY_RETURN_IF_ERROR(WriteNpy("/tmp/out.npy", result));
//
// Data is copied byte for byte, so this assumes a little-endian host (every
// platform the runtime targets); npy.cc refuses to compile on a big-endian
// one.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "models/host_array.h"

namespace switchyard {

// `array` in a dtype .npy can hold: bfloat16 and the float8 types widened
// to float32 (exactly), int4 and uint4 as int8 and uint8 (the same bytes,
// one value per byte); every other dtype as it is.
HostArray AsNpyDType(HostArray array);

// Parses a whole .npy file held in `bytes`. `source_name` (usually the path)
// leads every error message. The header parser accepts what NumPy writes and
// small variations (key order, quotes, whitespace, trailing commas). Errors:
// InvalidArgument for anything malformed; Unimplemented for a valid file this
// reader does not support (a descr not listed above, such as big-endian or
// complex data; fortran_order True; a structured dtype; a format version
// other than 1.0, 2.0 and 3.0).
absl::StatusOr<HostArray> ParseNpy(absl::string_view bytes,
                                   absl::string_view source_name);

// Reads and parses `path`; a missing file is NotFound.
absl::StatusOr<HostArray> ReadNpy(const std::string& path);

// The bytes of a version 1.0 file (2.0 only if the header would not fit),
// with NumPy's dict layout and the data aligned to 64 bytes. NumPy itself also
// reserves some spare header space, so the bytes can differ from np.save's
// while meaning the same. Precondition: `array` passes the checks WriteNpy
// makes (bytes match the shape and dtype, rank <= kMaxTensorFileRank, a
// dtype other than bfloat16).
std::string SerializeNpy(const HostArray& array);

// Checks `array`, serializes it and writes it to `path` via a temporary file,
// so an existing `path` is left intact on any error. Errors name the path and
// the system's reason; a bfloat16 array is InvalidArgument.
absl::Status WriteNpy(const std::string& path, const HostArray& array);

// WriteNpy's checks and SerializeNpy, for writers that publish the bytes
// themselves (FileTransaction); errors name `path`.
absl::StatusOr<std::string> EncodeNpy(const std::string& path,
                                      const HostArray& array);

}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_NPY_H_
