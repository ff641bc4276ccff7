#ifndef SWITCHYARD_DATA_DECODE_H_
#define SWITCHYARD_DATA_DECODE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "data/image.h"

namespace switchyard {
namespace data {

// Decodes a JPEG or a PNG (told apart by their signatures, not by the file
// name) into RGB8. `name` (usually the path) starts every error message.
// InvalidArgument for an empty, corrupt or truncated file, or one that is
// neither format; ResourceExhausted when the header's dimensions exceed
// `limits` (nothing is allocated then).
//
//   SY_ASSIGN_OR_RETURN(std::string bytes, ReadFileBytes(path));
//   SY_ASSIGN_OR_RETURN(Image img, DecodeImage(bytes, path));
absl::StatusOr<Image> DecodeImage(absl::string_view bytes, absl::string_view name,
                                  const DecodeLimits& limits = DecodeLimits());

// The dimension check every decoder makes after reading the header.
absl::Status CheckDimensions(absl::string_view name, absl::string_view format,
                             int64_t width, int64_t height,
                             const DecodeLimits& limits);

}  // namespace data
}  // namespace switchyard

#endif  // SWITCHYARD_DATA_DECODE_H_
