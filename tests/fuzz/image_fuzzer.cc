// libFuzzer target for the image decoders (data/decode.h: JPEG through
// libjpeg-turbo, PNG through libpng) and the transforms after them.
//
// Any byte string may come in; DecodeImage must return a Status, never
// crash, exit (libjpeg's default error handler calls exit()), hang or read
// out of bounds. Checks: an error is InvalidArgument or ResourceExhausted
// and starts with the name it was given; a decoded image is within the
// limits and has width * height * 3 bytes. A decoded image then goes
// through the eval transforms (resize, center crop, normalize) and the
// train ones (random resized crop, resize, flip) at a small size, and every
// output value must be finite and within the normalized range of [0, 255].
// Limits are small (1024 per side, 1M pixels) so that one input stays fast.
//
// Built by tools/fuzz.sh (libFuzzer) and by Bazel as
// //tests/fuzz:image_fuzzer_replay_test (corpus replay).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "data/decode.h"
#include "data/sample_pipeline.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace switchyard::data;
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  DecodeLimits limits;
  limits.max_dimension = 1024;
  limits.max_pixels = 1 << 20;
  absl::StatusOr<Image> image = DecodeImage(bytes, "fuzz.img", limits);
  if (!image.ok()) {
    FUZZ_CHECK(absl::StartsWith(image.status().message(), "fuzz.img: "));
    FUZZ_CHECK(image.status().code() == absl::StatusCode::kInvalidArgument ||
               image.status().code() == absl::StatusCode::kResourceExhausted);
    return 0;
  }
  FUZZ_CHECK(image->width >= 1 && image->height >= 1);
  FUZZ_CHECK(image->width <= limits.max_dimension && image->height <= limits.max_dimension);
  FUZZ_CHECK(image->pixels.size() == static_cast<size_t>(image->width) * image->height * 3);

  // The transforms on whatever came out: extreme aspect ratios included.
  const float lo = (0 - 0.485f) / 0.229f - 1e-3f, hi = (1 - 0.406f) / 0.225f + 1e-3f;
  for (TransformOptions::Mode mode :
       {TransformOptions::Mode::kEval, TransformOptions::Mode::kTrain}) {
    TransformOptions options;
    options.mode = mode;
    options.size = 8;
    options.resize = 9;
    options.seed = size;
    std::vector<float> out(3 * 8 * 8);
    std::vector<StageSpan> spans;
    TransformImage(*image, static_cast<int64_t>(size), options, absl::MakeSpan(out), &spans,
                   std::chrono::steady_clock::now());
    FUZZ_CHECK(spans.size() == (mode == TransformOptions::Mode::kEval ? 3u : 4u));
    for (float v : out) FUZZ_CHECK(std::isfinite(v) && v >= lo && v <= hi);
  }
  return 0;
}
