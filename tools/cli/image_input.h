#ifndef SWITCHYARD_TOOLS_CLI_IMAGE_INPUT_H_
#define SWITCHYARD_TOOLS_CLI_IMAGE_INPUT_H_

#include "absl/status/statusor.h"
#include "runtime/image_input.h"

namespace switchyard {
namespace cli {

// `switchyard run --images=DIR_OR_GLOB [--bad-images=skip|fail]
// [--image-size=224] [--resize=256] [--augment=eval|train]`: the model's
// input stream comes from image files through the image pipeline (data/),
// on the loader threads of `run --batches` (--loader-threads, --prefetch;
// --batches defaults to one pass over the files).

// Whether --images was given.
bool ImagesRequested();

// The files and the loader's options from the flags (runtime/image_input.h),
// checked before any work (a folder without files is an error here, not
// after the weights).
absl::StatusOr<runtime::ImageInput> PrepareImageInput();

// Makes PrepareImageInput give share `index` of `count`: contiguous blocks
// of the sorted files, in rank order (tools/cli/rank_command.h). An error
// there when there are fewer files than shares.
void SetImageShard(int index, int count);

}  // namespace cli
}  // namespace switchyard

#endif  // SWITCHYARD_TOOLS_CLI_IMAGE_INPUT_H_
