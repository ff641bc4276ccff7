#include "runtime/image_input.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "data/image_files.h"
#include "runtime/per_file_outputs.h"

namespace switchyard {
namespace runtime {

absl::StatusOr<ImageInput> PrepareImageInput(const ImageInputOptions& o) {
  ImageInput input;
  input.source = o.source;
  const int size = o.size;
  int resize = o.resize;
  if (resize == 0) resize = static_cast<int>(std::lround(size * 256.0 / 224.0));
  const std::string& augment = o.augment;
  data::TransformOptions& t = input.options.transform;
  t.size = size;
  t.resize = resize;
  t.seed = o.seed;
  if (augment == "eval") {
    t.mode = data::TransformOptions::Mode::kEval;
    if (resize < size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--resize=", resize, " is smaller than --image-size=", size,
          ": the center crop would be padded with black; give --resize >= --image-size"));
    }
    input.description = absl::StrCat("eval: resize ", resize, ", center crop ", size);
  } else if (augment == "train") {
    t.mode = data::TransformOptions::Mode::kTrain;
    if (o.resize_given) {
      return absl::InvalidArgumentError(
          "--resize applies to --augment=eval; train crops a random part and "
          "resizes it to --image-size");
    }
    input.description =
        absl::StrCat("train: random resized crop ", size, ", horizontal flip");
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--augment must be eval or train, got '", augment, "'"));
  }
  const std::string& bad = o.bad_images;
  if (bad == "skip") {
    input.options.bad_images = data::BadImagePolicy::kSkip;
  } else if (bad == "fail") {
    input.options.bad_images = data::BadImagePolicy::kFail;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--bad-images must be skip or fail, got '", bad, "'"));
  }
  absl::StatusOr<std::vector<std::string>> files = data::ListImageFiles(input.source);
  if (!files.ok()) {
    return absl::Status(files.status().code(),
                        absl::StrCat("--images: ", files.status().message()));
  }
  input.files = *std::move(files);
  input.total_files = static_cast<int64_t>(input.files.size());
  // Named over every file, before the share is taken: ranks agree.
  input.output_names = ImageOutputNames(input.files);
  const int shard_index = o.shard_index, shard_count = o.shard_count;
  if (shard_count > 1) {
    // Contiguous blocks of the sorted list, sizes differing by at most one:
    // the same files for the same rank on every run.
    const int64_t n = input.total_files;
    if (n < shard_count) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--images: ", n, " image file(s) in ", input.source, " for ", shard_count,
          " MPI ranks; give at least one image per rank, or start fewer ranks"));
    }
    const int64_t begin = n * shard_index / shard_count;
    const int64_t end = n * (shard_index + 1) / shard_count;
    input.files = std::vector<std::string>(input.files.begin() + begin,
                                           input.files.begin() + end);
    input.output_names = std::vector<std::string>(input.output_names.begin() + begin,
                                                  input.output_names.begin() + end);
    input.first_index = begin;
  }
  return input;
}

Shape ImageBatchShape(const ImageInput& input, int64_t batch) {
  const int64_t size = input.options.transform.size;
  return Shape({batch, 3, size, size});
}

}  // namespace runtime
}  // namespace switchyard
