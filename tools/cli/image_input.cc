#include "tools/cli/image_input.h"

#include <cmath>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "data/image_files.h"
#include "tools/cli/flags.h"
#include "tools/cli/per_file_outputs.h"

ABSL_FLAG(std::string, images, "",
          "run: stream these image files to the model (a folder's files, or a "
          "pattern such as 'photos/*.jpg'; JPEG and PNG) through the image "
          "pipeline on the loader threads; --batches defaults to one pass");
ABSL_FLAG(std::string, bad_images, "skip",
          "run --images: skip = a file that cannot be read or decoded is "
          "reported by path on stderr, counted, and its slot filled by the "
          "next file; fail = the run stops with that file's error");
ABSL_FLAG(int32_t, image_size, 224,
          "run --images: the model input's height and width (the crop)");
ABSL_FLAG(int32_t, resize, 0,
          "run --images --augment=eval: the shorter side before the center "
          "crop (0: image-size * 256 / 224, torchvision's 256 for 224)");
ABSL_FLAG(std::string, augment, "eval",
          "run --images: eval = Resize + CenterCrop; train = "
          "RandomResizedCrop + RandomHorizontalFlip, seeded per sample by "
          "--seed and its position in the stream");

namespace switchyard {
namespace cli {

namespace {
// This process's share of --images (SetImageShard): all of them by default.
int shard_index = 0;
int shard_count = 1;
}  // namespace

bool ImagesRequested() { return !absl::GetFlag(FLAGS_images).empty(); }

absl::StatusOr<ImageInput> PrepareImageInput() {
  ImageInput input;
  input.source = ResolveUserPath(absl::GetFlag(FLAGS_images));
  const int size = absl::GetFlag(FLAGS_image_size);
  SY_RETURN_IF_ERROR(CheckRange("--image-size", size, 1, 4096, "pixels per side"));
  int resize = absl::GetFlag(FLAGS_resize);
  SY_RETURN_IF_ERROR(CheckRange("--resize", resize, 0, 16384,
                                "pixels; 0 picks image-size * 256 / 224"));
  if (resize == 0) resize = static_cast<int>(std::lround(size * 256.0 / 224.0));
  const std::string augment = absl::GetFlag(FLAGS_augment);
  data::TransformOptions& t = input.options.transform;
  t.size = size;
  t.resize = resize;
  t.seed = absl::GetFlag(FLAGS_seed);
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
    if (FlagGiven("resize")) {
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
  const std::string bad = absl::GetFlag(FLAGS_bad_images);
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

void SetImageShard(int index, int count) {
  shard_index = index;
  shard_count = count;
}

Shape ImageBatchShape(const ImageInput& input, int64_t batch) {
  const int64_t size = input.options.transform.size;
  return Shape({batch, 3, size, size});
}

}  // namespace cli
}  // namespace switchyard
