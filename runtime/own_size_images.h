#ifndef SWITCHYARD_RUNTIME_OWN_SIZE_IMAGES_H_
#define SWITCHYARD_RUNTIME_OWN_SIZE_IMAGES_H_

// Images run each at its own size, one per run, by a model that takes a
// single float32 [3, H, W] input with symbolic H and W (torchvision's
// detectors export with their transform in the graph, which resizes and
// normalises): each file read, decoded and scaled to [0, 1] as
// torchvision's ToTensor does, and where the time went over all the images
// (reading and decoding on the host, converting, compiling plans for a size
// not seen before, the model) with a verdict naming the largest. The loop
// that runs the model and prints per image is the front end's
// (tools/cli/own_size_images.h).
//
//   OwnSizeImage next = LoadImageAtItsOwnSize(path);   // on a thread of its own
//   ... run the model on next.host, filling an OwnSizeImageTimes ...
//   OwnSizeSummary summary = SummarizeOwnSizeImages(times, device);

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/device.h"
#include "data/decode.h"
#include "models/host_array.h"
#include "onnx/onnx_model.h"

namespace switchyard {
namespace runtime {

// Whether `inputs` is one float32 [3, H, W] image (H and W symbolic or not).
bool TakesOneImageAtItsOwnSize(const std::vector<OnnxValueInfo>& inputs);

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

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_OWN_SIZE_IMAGES_H_
