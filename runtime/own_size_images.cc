#include "runtime/own_size_images.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "data/image_files.h"
#include "onnx/onnx_model.h"
#include "runtime/detections.h"
#include "runtime/elapsed.h"

namespace switchyard {
namespace runtime {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// RGB8, row-major HWC, as float32 CHW in [0, 1] (torchvision's ToTensor).
HostArray ToChwUnit(const data::Image& image) {
  const int64_t h = image.height, w = image.width, plane = h * w;
  std::vector<float> values(static_cast<size_t>(3 * plane));
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      const uint8_t* p = image.at(static_cast<int>(y), static_cast<int>(x));
      for (int c = 0; c < 3; ++c) values[c * plane + y * w + x] = p[c] / 255.0f;
    }
  }
  return HostArray(Shape({3, h, w}), std::move(values));
}

}  // namespace

bool TakesOneImageAtItsOwnSize(const std::vector<ValueInfo>& inputs) {
  if (inputs.size() != 1 || inputs[0].dtype != DType::kFloat32) return false;
  const ValueInfo& in = inputs[0];
  return in.has_shape && in.dims.size() == 3 &&
         (!in.dims[0].has_value() || *in.dims[0] == 3);
}

OwnSizeImage LoadImageAtItsOwnSize(const std::string& path) {
  OwnSizeImage loaded;
  const auto begin = Clock::now();
  loaded.image = [&]() -> absl::StatusOr<data::Image> {
    SY_ASSIGN_OR_RETURN(std::string bytes, data::ReadFileBytes(path));
    return data::DecodeImage(bytes, path);
  }();
  const auto decoded = Clock::now();
  if (loaded.image.ok()) loaded.host = ToChwUnit(*loaded.image);
  loaded.read_decode = Ms(begin, decoded);
  loaded.to_chw = Ms(decoded, Clock::now());
  return loaded;
}

OwnSizeSummary SummarizeOwnSizeImages(const std::vector<OwnSizeImageTimes>& times,
                                      const Device& device) {
  OwnSizeSummary s;
  std::vector<double> decode, convert, run_ms;
  for (const OwnSizeImageTimes& t : times) {
    decode.push_back(t.read_decode);
    convert.push_back(t.to_tensor);
    run_ms.push_back(t.model);
    s.input_total += t.waited;
    s.compile_total += t.compile;
    s.model_total += t.model;
    if (t.plans_compiled > 0) ++s.new_sizes;
  }
  s.median_read_decode = Median(decode);
  s.median_to_tensor = Median(convert);
  s.median_model = Median(run_ms);
  const double total = s.input_total + s.compile_total + s.model_total;
  auto percent = [&](double part) { return std::lround(total > 0 ? 100 * part / total : 0); };
  // As run's samples/s is batch / median for a model that takes batches.
  s.images_per_s = s.median_model > 0 ? 1000.0 / s.median_model : 0;
  if (s.input_total >= s.compile_total && s.input_total >= 0.3 * total) {
    s.bound = OwnSizeSummary::Bound::kInput;
    s.verdict = absl::StrCat("input-bound: ", percent(s.input_total), "% of the time ",
                             device.ToString(), " waits for images to be read, decoded and "
                             "converted, though that runs ahead of the model: smaller or "
                             "faster-to-decode files, or a faster disk, help");
  } else if (s.compile_total >= 0.3 * total) {
    s.bound = OwnSizeSummary::Bound::kCompile;
    s.verdict = absl::StrCat("compile-bound: ", percent(s.compile_total), "% of the time is "
                             "compiling plans for image sizes not seen before (", s.new_sizes,
                             " of ", times.size(), " images); images of a few sizes reuse "
                             "their plans (up to ", OnnxModel::kMaxCachedSegments,
                             " segments are kept)");
  } else {
    s.bound = OwnSizeSummary::Bound::kModel;
    s.verdict = absl::StrCat("the model takes ", percent(s.model_total), "% of the time on ",
                             device.ToString());
  }
  return s;
}

absl::StatusOr<std::vector<OwnSizeImageTimes>> RunImagesAtTheirOwnSize(
    Session& session, BackendDevice& device, const std::vector<std::string>& paths,
    const OwnSizeRunFn& run,
    const std::function<absl::Status(size_t index, const OwnSizeImageRun& run)>& on_image,
    const std::function<absl::Status(size_t index, const absl::Status& error)>& on_bad_file) {
  std::vector<OwnSizeImageTimes> times;
  // The next file is read and decoded while this one runs, so the device
  // waits only for what takes longer than the model. A file read ahead is
  // joined before an error returns (the future's destructor waits).
  std::future<OwnSizeImage> next;
  if (!paths.empty()) next = std::async(std::launch::async, LoadImageAtItsOwnSize, paths[0]);
  for (size_t i = 0; i < paths.size(); ++i) {
    const auto begin = Clock::now();
    OwnSizeImage loaded = next.get();
    if (i + 1 < paths.size()) {
      next = std::async(std::launch::async, LoadImageAtItsOwnSize, paths[i + 1]);
    }
    if (!loaded.image.ok()) {
      SY_RETURN_IF_ERROR(on_bad_file(i, loaded.image.status()));
      continue;
    }
    const HostArray& host = loaded.host;
    const auto uploading = Clock::now();
    SY_ASSIGN_OR_RETURN(Tensor x, Tensor::FromBytes(host.shape, host.dtype, host.bytes.data(),
                                                    host.bytes.size(), device));
    const auto converted = Clock::now();
    const std::vector<Tensor> inputs = {x};
    const RunStats before = session.run_stats();
    const auto model_begin = Clock::now();
    std::vector<Tensor> outputs;
    if (run) {
      SY_ASSIGN_OR_RETURN(outputs, run(inputs, host));
    } else {
      SY_ASSIGN_OR_RETURN(outputs, session.Run(inputs));
    }
    OwnSizeImageRun image_run;
    OwnSizeImageTimes& t = image_run.times;
    t.read_decode = loaded.read_decode;
    t.to_tensor = loaded.to_chw + Ms(uploading, converted);
    t.waited = Ms(begin, converted);
    t.model = Ms(model_begin, Clock::now());
    // The compile time is the runner's own count, not a second run's
    // difference: timing a new size twice cost a whole forward pass.
    const RunStats after = session.run_stats();
    t.plans_compiled = after.plans_compiled - before.plans_compiled;
    t.compile = std::min(t.model, after.compile_ms - before.compile_ms);
    t.model -= t.compile;
    times.push_back(t);
    image_run.width = loaded.image->width;
    image_run.height = loaded.image->height;
    for (const Tensor& y : outputs) {
      SY_ASSIGN_OR_RETURN(std::vector<char> bytes, y.ToBytes());
      image_run.outputs.emplace_back(y.shape(), y.dtype(), std::move(bytes));
    }
    SY_RETURN_IF_ERROR(on_image(i, image_run));
  }
  return times;
}

nlohmann::json OwnSizeImageJson(const std::string& path, const OwnSizeImageRun& run,
                                const std::vector<std::string>& output_names,
                                const std::vector<std::string>& labels) {
  const OwnSizeImageTimes& t = run.times;
  nlohmann::json entry = {{"path", path},
                          {"width", run.width},
                          {"height", run.height},
                          {"plans_compiled", t.plans_compiled},
                          {"ms", {{"read_decode", t.read_decode},
                                  {"to_tensor", t.to_tensor},
                                  {"input_wait", t.waited},
                                  {"model", t.model},
                                  {"compile", t.compile}}}};
  const std::optional<DetectionOutputs> detections = FindDetections(run.outputs, output_names);
  if (detections.has_value()) {
    entry["detections"] = DetectionsJson(run.outputs, *detections, labels);
  }
  return entry;
}

const char* OwnSizeBoundName(OwnSizeSummary::Bound bound) {
  switch (bound) {
    case OwnSizeSummary::Bound::kInput: return "input_bound";
    case OwnSizeSummary::Bound::kCompile: return "compile_bound";
    case OwnSizeSummary::Bound::kModel: break;
  }
  return "model_bound";
}

std::string OwnSizeSummaryLine(const OwnSizeSummary& s, size_t images_run, size_t skipped) {
  return absl::StrFormat(
      "images: %zu run (%lld new sizes), %zu skipped; median per image: read+decode %.1f ms, "
      "to tensor %.1f ms (ahead of the model: it waited %.0f ms for input in all), model "
      "%.1f ms (%.1f images/s, one per run); compiling for new sizes %.0f ms in all",
      images_run, static_cast<long long>(s.new_sizes), skipped, s.median_read_decode,
      s.median_to_tensor, s.input_total, s.median_model, s.images_per_s, s.compile_total);
}

nlohmann::json OwnSizeReportJson(nlohmann::json images, nlohmann::json bad_files,
                                 const OwnSizeSummary& summary, const std::string& diagnosis) {
  return {{"images", std::move(images)},
          {"bad_files", std::move(bad_files)},
          {"median_ms",
           {{"read_decode", summary.median_read_decode},
            {"to_tensor", summary.median_to_tensor},
            {"model", summary.median_model}}},
          {"new_sizes", summary.new_sizes},
          {"input_wait_ms", summary.input_total},
          {"batch", 1},
          {"images_per_s", summary.images_per_s},
          {"compile_ms", summary.compile_total},
          {"verdict", OwnSizeBoundName(summary.bound)},
          {"diagnosis", diagnosis}};
}

}  // namespace runtime
}  // namespace switchyard
