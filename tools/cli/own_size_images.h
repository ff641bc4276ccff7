#ifndef SWITCHYARD_TOOLS_CLI_OWN_SIZE_IMAGES_H_
#define SWITCHYARD_TOOLS_CLI_OWN_SIZE_IMAGES_H_

// `switchyard run --images=DIR` for a model that takes one image at its own
// size: a single float32 input [3, H, W] with symbolic H and W, as
// torchvision's detectors export with their transform in the graph (the
// graph resizes and normalises). Each file is decoded, scaled to [0, 1] as
// torchvision's ToTensor does, and run at its own size, one image per run;
// a detector's detections (else each output's summary) are printed per
// image, with where the time went: reading and decoding on the host,
// converting, compiling plans for a size not seen before, the model; and a
// verdict naming the largest. Loading, the times' summary and the verdict
// are the runtime's (runtime/own_size_images.h); the loop, what it prints
// and --profile are the command line's.
//
// A model that takes a batch [N, 3, H, W] of one size goes through the
// image pipeline instead (tools/cli/utilization.h: loader threads, resize,
// crop, normalise, --image-size).
//
//   switchyard run --model=fasterrcnn.onnx --images=photos/ --labels=coco.txt
//       --output=out/ --profile-summary

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/backend_registry.h"
#include "core/file_transaction.h"
#include "nlohmann/json.hpp"
#include "runtime/session.h"

namespace switchyard {
namespace cli {

struct OwnSizeImagesOptions {
  std::string images;              // --images, resolved
  std::vector<std::string> files;  // what it names (this MPI rank's share)
  int64_t first_index = 0;         // files[0]'s number among all the files
  int64_t total_files = 0;         // all the files (0: files.size())
  bool skip_bad_images = true;     // --bad-images=skip
  // files[i]'s name in output_dir (ImageInput::output_names).
  std::vector<std::string> output_names;
  // --output=DIR/ from PrepareImageOutputFolder (empty: none): each image's
  // outputs as DIR/<name>.<output>.npy (runtime/per_file_outputs.h).
  std::string output_dir;
  std::string report_path;     // --report
  std::vector<std::string> labels;
  int detections_shown = 10;
};

// Runs the session's model (already on `device`) on every image of
// `options.files`. Files are staged in `files` and committed by the caller.
absl::Status RunOnImagesAtTheirOwnSize(runtime::Session& session, const Device& device,
                                       BackendRegistry& registry,
                                       const OwnSizeImagesOptions& options,
                                       const nlohmann::json& facts, FileTransaction& files);

}  // namespace cli
}  // namespace switchyard

#endif  // SWITCHYARD_TOOLS_CLI_OWN_SIZE_IMAGES_H_
