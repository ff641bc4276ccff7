#ifndef SWITCHYARD_RUNTIME_OWN_SIZE_IMAGES_H_
#define SWITCHYARD_RUNTIME_OWN_SIZE_IMAGES_H_

// Images run each at its own size, one per run, by a model that takes a
// single float32 [3, H, W] input with symbolic H and W (torchvision's
// detectors export with their transform in the graph, which resizes and
// normalises): each file read, decoded and scaled to [0, 1] as
// torchvision's ToTensor does, and where the time went over all the images
// (reading and decoding on the host, converting, compiling plans for a size
// not seen before, the model) with a verdict naming the largest. The loop
// and the report's fields are shared by `switchyard run --images`
// (tools/cli/own_size_images.h, which prints per image) and Python's
// switchyard.diagnose (python/session.cc).
//
//   SY_ASSIGN_OR_RETURN(std::vector<OwnSizeImageTimes> times,
//                       RunImagesAtTheirOwnSize(session, device, paths, nullptr,
//                                               on_image, on_bad_file));
//   OwnSizeSummary summary = SummarizeOwnSizeImages(times, device.device());

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/backend.h"
#include "core/device.h"
#include "core/tensor.h"
#include "data/decode.h"
#include "models/host_array.h"
#include "nlohmann/json.hpp"
#include "runtime/session.h"

namespace switchyard {
namespace runtime {

// Whether `inputs` is one float32 [3, H, W] image (H and W symbolic or not).
bool TakesOneImageAtItsOwnSize(const std::vector<ValueInfo>& inputs);

// One file read, decoded and converted to [3, H, W] in [0, 1] (`host`, set
// when `image` is ok), with the time each part took.
struct OwnSizeImage {
  absl::StatusOr<data::Image> image;
  HostArray host;
  double read_decode = 0, to_chw = 0;  // ms
};
OwnSizeImage LoadImageAtItsOwnSize(const std::string& path);

// Where one image's time went, in ms. A run at a size not seen before
// compiles the model's segments for it: `compile` is that part of its run
// (the runner's clock), `model` the rest.
struct OwnSizeImageTimes {
  double read_decode = 0, to_tensor = 0, model = 0, compile = 0;
  // What the model waited for this image: its reading and decoding run
  // ahead, on a thread of their own, while the image before it runs.
  double waited = 0;
  int64_t plans_compiled = 0;
};

// Medians per image and totals, and the verdict from the totals.
struct OwnSizeSummary {
  double median_read_decode = 0, median_to_tensor = 0, median_model = 0;  // ms
  // Reading and decoding run ahead of the model, so the device waits only
  // for what they take beyond it (input_total); compiling happens once per
  // new image size.
  double input_total = 0, compile_total = 0, model_total = 0;  // ms
  int64_t new_sizes = 0;  // images that compiled plans
  // One image per run: the model's rate is 1 / its median.
  double images_per_s = 0;
  enum class Bound { kInput, kCompile, kModel };
  Bound bound = Bound::kModel;
  // "input-bound: 40% of the time ...", "compile-bound: ...", or "the model
  // takes 80% of the time on dnnl:0" (a front end adds where its profile
  // names the slowest ops).
  std::string verdict;
};
OwnSizeSummary SummarizeOwnSizeImages(const std::vector<OwnSizeImageTimes>& times,
                                      const Device& device);

// One image's run: its size, where its time went, its outputs on the host.
struct OwnSizeImageRun {
  int width = 0, height = 0;
  OwnSizeImageTimes times;
  std::vector<HostArray> outputs;
};

// Runs the model on one image (`input` on the device, `host` the same on the
// host); the command line's --profile records through it.
using OwnSizeRunFn = std::function<absl::StatusOr<std::vector<Tensor>>(
    absl::Span<const Tensor> input, const HostArray& host)>;

// Runs the session's model on `device` over each of `paths` at its own
// size, one image per run; each file is read and decoded on a thread of its
// own while the image before it runs. `on_image(i, run)` gets paths[i]'s
// run; `on_bad_file(i, error)` each file that cannot be read or decoded: OK
// skips it, an error stops the loop with that error. `run` empty:
// session.Run. Returns the times of the images run (empty when none could be
// read).
absl::StatusOr<std::vector<OwnSizeImageTimes>> RunImagesAtTheirOwnSize(
    Session& session, BackendDevice& device, const std::vector<std::string>& paths,
    const OwnSizeRunFn& run,
    const std::function<absl::Status(size_t index, const OwnSizeImageRun& run)>& on_image,
    const std::function<absl::Status(size_t index, const absl::Status& error)>& on_bad_file);

// One image's entry of the report: path, size, plans compiled, times in ms,
// and its detections when the outputs are a detector's (runtime/detections.h,
// class names from `labels`).
nlohmann::json OwnSizeImageJson(const std::string& path, const OwnSizeImageRun& run,
                                const std::vector<std::string>& output_names,
                                const std::vector<std::string>& labels);

// "input_bound", "compile_bound" or "model_bound".
const char* OwnSizeBoundName(OwnSizeSummary::Bound bound);

// "images: 8 run (8 new sizes), 0 skipped; median per image: read+decode
// ..., model 812.0 ms (1.2 images/s, one per run); compiling ...".
std::string OwnSizeSummaryLine(const OwnSizeSummary& summary, size_t images_run,
                               size_t skipped);

// The report over all the images (`images`: OwnSizeImageJson entries;
// `bad_files`: {path, error} entries): medians, input wait, images/s, compile
// time, the verdict (OwnSizeBoundName) and `diagnosis`, the verdict's
// sentence with its advice. The fields of `run --images --report` and of
// Python's diagnose on such a model.
nlohmann::json OwnSizeReportJson(nlohmann::json images, nlohmann::json bad_files,
                                 const OwnSizeSummary& summary, const std::string& diagnosis);

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_OWN_SIZE_IMAGES_H_
