#ifndef SWITCHYARD_RUNTIME_IMAGE_INPUT_H_
#define SWITCHYARD_RUNTIME_IMAGE_INPUT_H_

// A model's input stream from image files through the image pipeline
// (data/): the files of a folder or a pattern, the loader's transform
// (eval: resize and center crop; train: random resized crop and flip) and
// bad-file policy, checked before any work (a folder without files is an
// error here, not after the weights), and, for one of several processes
// (MPI ranks), this process's share of the files. Errors name the options
// as the command line spells them (`switchyard run --images`,
// tools/cli/image_input.h).
//
//   ImageInputOptions options;
//   options.source = "photos/";
//   SY_ASSIGN_OR_RETURN(ImageInput input, PrepareImageInput(options));
//   data::ImageBatchLoader loader(input.files, batch, input.options);

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/shape.h"
#include "data/image_batch_loader.h"

namespace switchyard {
namespace runtime {

struct ImageInputOptions {
  std::string source;  // a folder or a pattern ("photos/*.jpg"), resolved
  int size = 224;      // the model input's height and width (the crop)
  // eval: the shorter side before the center crop (0: size * 256 / 224,
  // torchvision's 256 for 224). Only eval takes one (resize_given).
  int resize = 0;
  bool resize_given = false;
  std::string augment = "eval";     // eval or train
  std::string bad_images = "skip";  // skip or fail
  uint64_t seed = 0;                // train's crops and flips
  // This process's share: contiguous blocks of the sorted files, in index
  // order; an error when there are fewer files than shares.
  int shard_index = 0;
  int shard_count = 1;
};

// The files and the loader's options.
struct ImageInput {
  std::string source;  // ImageInputOptions::source
  std::vector<std::string> files;
  data::ImageBatchLoader::Options options;
  std::string description;  // "eval: resize 256, center crop 224"
  // With shards `files` is this process's share: files[i] is number
  // first_index + i of the total_files the source names.
  int64_t first_index = 0;
  int64_t total_files = 0;
  // files[i]'s name in an output folder (DIR/<name>.<output>.npy), unique
  // over all total_files (runtime/per_file_outputs.h).
  std::vector<std::string> output_names;
};
absl::StatusOr<ImageInput> PrepareImageInput(const ImageInputOptions& options);

// The model input one batch fills: [batch, 3, size, size].
Shape ImageBatchShape(const ImageInput& input, int64_t batch);

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_IMAGE_INPUT_H_
