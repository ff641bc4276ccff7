#ifndef SWITCHYARD_DATA_SAMPLE_PIPELINE_H_
#define SWITCHYARD_DATA_SAMPLE_PIPELINE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "data/image.h"
#include "data/loader_stages.h"
#include "data/normalize.h"

namespace switchyard {
namespace data {

// What is done to each image, torchvision's two classic pipelines:
//   eval:  Resize(resize) -> CenterCrop(size) -> ToTensor -> Normalize
//   train: RandomResizedCrop(size) -> RandomHorizontalFlip -> ToTensor -> Normalize
// with the crop and flip of each sample drawn from SampleRandom(seed,
// position): deterministic per sample.
struct TransformOptions {
  enum class Mode { kEval, kTrain };
  Mode mode = Mode::kEval;
  int size = 224;    // the output's height and width
  int resize = 256;  // eval: the shorter side before the center crop
  // train: RandomResizedCrop's area share and aspect-ratio ranges, and the
  // flip's probability (torchvision's defaults).
  double scale_min = 0.08, scale_max = 1.0;
  double ratio_min = 3.0 / 4, ratio_max = 4.0 / 3;
  double flip_probability = 0.5;
  Normalization normalization;
  uint64_t seed = 0;
};

// One decoded image through the transforms into `out` (3 * size * size
// floats, CHW). Each stage's span is appended to `spans` (when not null),
// the first starting at `start`.
void TransformImage(const Image& image, int64_t position, const TransformOptions& options,
                    absl::Span<float> out, std::vector<StageSpan>* spans,
                    std::chrono::steady_clock::time_point start);

// Read, decode and transform the file at `path`. Errors (unreadable, not an
// image, corrupt, over the limits) start with the path; spans of the stages
// that ran are appended even then.
absl::Status LoadSample(const std::string& path, int64_t position,
                        const TransformOptions& options, const DecodeLimits& limits,
                        absl::Span<float> out, std::vector<StageSpan>* spans);

}  // namespace data
}  // namespace switchyard

#endif  // SWITCHYARD_DATA_SAMPLE_PIPELINE_H_
