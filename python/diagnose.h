#ifndef SWITCHYARD_PYTHON_DIAGNOSE_H_
#define SWITCHYARD_PYTHON_DIAGNOSE_H_

// switchyard.diagnose(session, images=DIR, ...): the utilization diagnosis
// of `switchyard run --images=DIR --batches=N --report=r.json`, built from
// the library pieces (data/ for the image pipeline, core/profiler.h for the
// device's clock, core/timeline_analysis.h for the verdict), without the
// command line's flags: batches of images stream from loader threads
// through a bounded queue into the model on its device, and the timeline of
// that stream is analysed.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/device.h"
#include "core/profiler.h"
#include "core/timeline.h"
#include "core/timeline_analysis.h"
#include "data/image_batch_loader.h"
#include "data/loader_profile.h"
#include "models/module.h"
#include "nlohmann/json.hpp"
#include "pybind11/pybind11.h"
#include "runtime/session.h"

namespace switchyard {
namespace python {

struct DiagnoseOptions {
  std::string images;  // a folder, a pattern or a file; empty: synthetic batches
  int batch = 8;
  int image_size = 224;
  int resize = 0;               // 0: image_size * 256 / 224
  std::string augment = "eval";  // or "train"
  int batches = 0;              // 0: one pass over the images
  int loader_threads = 1;
  int prefetch = 2;
  // Extra cost of each batch on its loader thread, after its images (or
  // instead of them, for synthetic batches): "busy" CPU time or "sleep".
  double loader_cost_ms = 0;
  std::string loader_work = "busy";
  bool skip_bad = true;
  bool report_bad = false;  // also print each bad file on stderr
  int warmup = 1;
  uint64_t seed = 0;
};

struct Diagnosis {
  DiagnoseOptions options;  // as run (batches and resize resolved)
  UtilizationReport report;
  Timeline timeline;
  std::vector<ProfileEvent> events;
  std::string text;  // the report as `switchyard run --batches` prints it
  // With images:
  std::string source, transform;
  int64_t files = 0, samples = 0, skipped_slots = 0;
  std::vector<data::ImageBatchLoader::BadImage> bad_files;
  data::LoaderSummary loader;
};

// Checks `options` (ranges, names) and lists the image files: before the
// model is compiled. NotFound for a folder or pattern with no files.
absl::Status CheckDiagnoseOptions(DiagnoseOptions& options,
                                  std::vector<std::string>* files);

// Streams the batches into `model` on `device` (a single float32 input
// [batch, 3, size, size]). Call without the GIL.
absl::StatusOr<Diagnosis> RunDiagnosis(Module& model, const std::string& model_name,
                                       const Device& device, DiagnoseOptions options);

// The diagnosis as a dict (the keys of the CLI's --report JSON, plus
// "text" and "profile"). Call with the GIL.
pybind11::dict DiagnosisToDict(Diagnosis diagnosis, const std::string& model_name);

// diagnose() on a model that takes one image [3, H, W] at its own size (a
// detector exported from torchvision), as `switchyard run --images=DIR`
// runs it: each image at its own size, one per run, read and decoded ahead
// of the model (runtime/own_size_images.h). The report has that command's
// --report fields ("verdict": input_bound, compile_bound or model_bound;
// "diagnosis": the sentence with its advice; "images": per image, with its
// detections), plus "mode": "own_size" and "text", the summary it prints.
// Batch, size, resize, augment, loader and warmup options do not apply.
// InvalidArgument without images. Call without the GIL.
absl::StatusOr<nlohmann::json> RunOwnSizeDiagnosis(runtime::Session& session,
                                                   const std::string& model_name,
                                                   const Device& device,
                                                   const DiagnoseOptions& options);

}  // namespace python
}  // namespace switchyard

#endif  // SWITCHYARD_PYTHON_DIAGNOSE_H_
