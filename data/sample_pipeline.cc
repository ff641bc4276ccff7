#include "data/sample_pipeline.h"

#include <utility>

#include "absl/status/statusor.h"
#include "data/crop.h"
#include "data/decode.h"
#include "data/flip.h"
#include "data/image_files.h"
#include "data/resize.h"
#include "data/sample_random.h"

namespace switchyard {
namespace data {

using Clock = std::chrono::steady_clock;

void TransformImage(const Image& image, int64_t position, const TransformOptions& options,
                    absl::Span<float> out, std::vector<StageSpan>* spans,
                    Clock::time_point start) {
  Clock::time_point t = start;
  Image sample;
  if (options.mode == TransformOptions::Mode::kEval) {
    int width = 0, height = 0;
    ShorterSideSize(image.width, image.height, options.resize, &width, &height);
    const Image resized = ResizeBilinear(image, width, height);
    t = EndStage(LoaderStage::kResize, t, spans);
    sample = Crop(resized, CenterCropBox(resized.width, resized.height, options.size));
    t = EndStage(LoaderStage::kCrop, t, spans);
  } else {
    SampleRandom random(options.seed, static_cast<uint64_t>(position));
    const CropBox box =
        RandomResizedCropBox(image.width, image.height, random, options.scale_min,
                             options.scale_max, options.ratio_min, options.ratio_max);
    const Image cropped = Crop(image, box);
    t = EndStage(LoaderStage::kCrop, t, spans);
    sample = ResizeBilinear(cropped, options.size, options.size);
    t = EndStage(LoaderStage::kResize, t, spans);
    if (random.Uniform(0, 1) < options.flip_probability) FlipHorizontal(sample);
    t = EndStage(LoaderStage::kFlip, t, spans);
  }
  ToNormalizedChw(sample, options.normalization, out);
  EndStage(LoaderStage::kNormalize, t, spans);
}

absl::Status LoadSample(const std::string& path, int64_t position,
                        const TransformOptions& options, const DecodeLimits& limits,
                        absl::Span<float> out, std::vector<StageSpan>* spans) {
  Clock::time_point t = Clock::now();
  absl::StatusOr<std::string> bytes = ReadFileBytes(path);
  t = EndStage(LoaderStage::kRead, t, spans);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<Image> image = DecodeImage(*bytes, path, limits);
  t = EndStage(LoaderStage::kDecode, t, spans);
  if (!image.ok()) return image.status();
  TransformImage(*image, position, options, out, spans, t);
  return absl::OkStatus();
}

}  // namespace data
}  // namespace switchyard
