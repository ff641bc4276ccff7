#ifndef SWITCHYARD_MODELS_FILE_IO_H_
#define SWITCHYARD_MODELS_FILE_IO_H_

// Whole-file reads and crash-safe whole-file writes, shared by the tensor file
// formats in this folder. Private to //models:tensor_files.
//
//   SY_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
//   SY_RETURN_IF_ERROR(WriteFileAtomically(path, bytes));

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace switchyard {
namespace file_io_internal {

// Reads all of `path`. A missing file is NotFound; every error names the path
// and the system's reason (strerror).
absl::StatusOr<std::string> ReadFileToString(const std::string& path);

// Writes `contents` to `path + ".tmp"`, flushes it to disk, then renames it
// over `path`, so a failure at any step leaves an existing `path` untouched
// (the temporary file is removed). Two writers of the same path at once would
// share the temporary name; callers do not do that.
absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents);

}  // namespace file_io_internal
}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_FILE_IO_H_
