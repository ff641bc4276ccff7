#ifndef SWITCHYARD_DATA_IMAGE_FILES_H_
#define SWITCHYARD_DATA_IMAGE_FILES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace switchyard {
namespace data {

// The files `switchyard run --images=...` reads, sorted by path:
//   a folder:  every regular file directly in it (not hidden, not in
//              subfolders), whatever its name: the decoder, not the
//              extension, decides what is an image;
//   a pattern: glob(3) matches that are regular files ("photos/*.jpg");
//   a file:    that file.
// NotFound when nothing matches.
absl::StatusOr<std::vector<std::string>> ListImageFiles(const std::string& dir_or_glob);

// The bytes of `path`, refused (InvalidArgument, before reading) when the
// file is larger than `max_bytes`. Errors start with the path.
absl::StatusOr<std::string> ReadFileBytes(const std::string& path,
                                          int64_t max_bytes = int64_t{256} << 20);

}  // namespace data
}  // namespace switchyard

#endif  // SWITCHYARD_DATA_IMAGE_FILES_H_
