#include "tools/cli/image_input.h"

#include "absl/flags/flag.h"
#include "core/status_macros.h"
#include "tools/cli/flags.h"

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

absl::StatusOr<runtime::ImageInput> PrepareImageInput() {
  runtime::ImageInputOptions options;
  options.source = ResolveUserPath(absl::GetFlag(FLAGS_images));
  options.size = absl::GetFlag(FLAGS_image_size);
  SY_RETURN_IF_ERROR(CheckRange("--image-size", options.size, 1, 4096, "pixels per side"));
  options.resize = absl::GetFlag(FLAGS_resize);
  SY_RETURN_IF_ERROR(CheckRange("--resize", options.resize, 0, 16384,
                                "pixels; 0 picks image-size * 256 / 224"));
  options.resize_given = FlagGiven("resize");
  options.augment = absl::GetFlag(FLAGS_augment);
  options.bad_images = absl::GetFlag(FLAGS_bad_images);
  options.seed = absl::GetFlag(FLAGS_seed);
  options.shard_index = shard_index;
  options.shard_count = shard_count;
  return runtime::PrepareImageInput(options);
}

void SetImageShard(int index, int count) {
  shard_index = index;
  shard_count = count;
}

}  // namespace cli
}  // namespace switchyard
