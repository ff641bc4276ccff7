#include "data/decode.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "data/jpeg_decoder.h"
#include "data/png_decoder.h"

namespace switchyard {
namespace data {

absl::Status CheckDimensions(absl::string_view name, absl::string_view format,
                             int64_t width, int64_t height,
                             const DecodeLimits& limits) {
  if (width < 1 || height < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": the ", format, " header says ", width, "x", height,
        " pixels; an image needs at least one pixel"));
  }
  if (width > limits.max_dimension || height > limits.max_dimension ||
      width * height > limits.max_pixels) {
    return absl::ResourceExhaustedError(absl::StrCat(
        name, ": the ", format, " header says ", width, "x", height,
        " pixels, over the decoder's limit of ", limits.max_dimension,
        " per side and ", limits.max_pixels,
        " pixels in all (DecodeLimits); refused before allocating. Shrink the "
        "image, or raise the limit if it is genuine"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Image> DecodeImage(absl::string_view bytes, absl::string_view name,
                                  const DecodeLimits& limits) {
  if (bytes.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": the file is empty (0 bytes); expected a JPEG or PNG"));
  }
  if (LooksLikeJpeg(bytes)) return DecodeJpeg(bytes, name, limits);
  if (LooksLikePng(bytes)) return DecodePng(bytes, name, limits);
  return absl::InvalidArgumentError(absl::StrCat(
      name, ": not a JPEG or PNG (the first bytes are neither FF D8 FF nor the "
      "PNG signature); only those two formats are decoded"));
}

}  // namespace data
}  // namespace switchyard
