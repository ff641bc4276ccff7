#ifndef SWITCHYARD_DATA_JPEG_DECODER_H_
#define SWITCHYARD_DATA_JPEG_DECODER_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "data/image.h"

namespace switchyard {
namespace data {

// Decodes a JPEG with libjpeg-turbo into RGB8: baseline and progressive,
// grayscale (replicated to RGB), YCbCr, RGB, and CMYK/YCCK (Adobe-inverted
// or not) converted to RGB as PIL's convert("RGB") does. libjpeg's fatal
// errors (which would call exit()) come back as InvalidArgument through a
// setjmp/longjmp error manager; a file cut short is an error too (libjpeg
// would only warn and pad with grey). The header is checked against
// `limits` before any pixel memory is allocated, and a progressive file may
// have at most 1000 scans (libjpeg-turbo's own fuzzing limit is 500: a
// thousand-scan file is a decompression bomb, not a photo).
absl::StatusOr<Image> DecodeJpeg(absl::string_view bytes, absl::string_view name,
                                 const DecodeLimits& limits = DecodeLimits());

// Whether `bytes` start with a JPEG's SOI marker.
bool LooksLikeJpeg(absl::string_view bytes);

}  // namespace data
}  // namespace switchyard

#endif  // SWITCHYARD_DATA_JPEG_DECODER_H_
