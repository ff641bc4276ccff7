#ifndef SWITCHYARD_DATA_PNG_DECODER_H_
#define SWITCHYARD_DATA_PNG_DECODER_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "data/image.h"

namespace switchyard {
namespace data {

// Decodes a PNG with libpng into RGB8: palette (tRNS included) expanded,
// grayscale replicated, alpha dropped (not composited: PIL's convert("RGB")
// does the same), 16-bit samples cut to their high byte (as PIL reads them),
// low bit depths expanded, Adam7 interlacing undone. libpng's errors come
// back as InvalidArgument through png_jmpbuf; the IHDR's dimensions are
// checked against `limits` before the image is allocated.
absl::StatusOr<Image> DecodePng(absl::string_view bytes, absl::string_view name,
                                const DecodeLimits& limits = DecodeLimits());

// Whether `bytes` start with the PNG signature.
bool LooksLikePng(absl::string_view bytes);

}  // namespace data
}  // namespace switchyard

#endif  // SWITCHYARD_DATA_PNG_DECODER_H_
