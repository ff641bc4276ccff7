#ifndef SWITCHYARD_TOOLS_CLI_IMAGE_INPUT_H_
#define SWITCHYARD_TOOLS_CLI_IMAGE_INPUT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/shape.h"
#include "data/image_batch_loader.h"

namespace switchyard {
namespace cli {

// `switchyard run --images=DIR_OR_GLOB [--bad-images=skip|fail]
// [--image-size=224] [--resize=256] [--augment=eval|train]`: the model's
// input stream comes from image files through the image pipeline (data/),
// on the loader threads of `run --batches` (--loader-threads, --prefetch;
// --batches defaults to one pass over the files).

// Whether --images was given.
bool ImagesRequested();

// The files and the loader's options from the flags, checked before any
// work (a folder without files is an error here, not after the weights).
struct ImageInput {
  std::string source;  // the flag's value, resolved
  std::vector<std::string> files;
  data::ImageBatchLoader::Options options;
  std::string description;  // "eval: resize 256, center crop 224"
  // Under MPI `files` is this rank's share: files[i] is number
  // first_index + i of the total_files the flag names.
  int64_t first_index = 0;
  int64_t total_files = 0;
  // files[i]'s name in --output=DIR/ (DIR/<name>.<output>.npy), unique
  // over all total_files (tools/cli/per_file_outputs.h).
  std::vector<std::string> output_names;
};
absl::StatusOr<ImageInput> PrepareImageInput();

// Makes PrepareImageInput give share `index` of `count`: contiguous blocks
// of the sorted files, in rank order (tools/cli/rank_command.h). An error
// there when there are fewer files than shares.
void SetImageShard(int index, int count);

// The model input one batch fills: [batch, 3, size, size].
Shape ImageBatchShape(const ImageInput& input, int64_t batch);

}  // namespace cli
}  // namespace switchyard

#endif  // SWITCHYARD_TOOLS_CLI_IMAGE_INPUT_H_
