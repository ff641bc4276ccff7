#include "tools/cli/own_size_images.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "data/decode.h"
#include "data/image_files.h"
#include "models/host_array.h"
#include "models/npy.h"
#include "tools/cli/detections.h"
#include "tools/cli/output_summary.h"
#include "tools/cli/per_file_outputs.h"
#include "tools/cli/profile_run.h"

namespace switchyard {
namespace cli {
namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

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

// Where one image's time went. A run at a size not seen before compiles
// the model's segments for it: `compile` is that part of its run (the
// runner's clock), `model` the rest.
struct ImageTimes {
  double read_decode = 0, to_tensor = 0, model = 0, compile = 0;
  // What the model waited for this image: its reading and decoding run
  // ahead, on a thread of their own, while the image before it runs.
  double waited = 0;
  int64_t plans_compiled = 0;
};

// One file read, decoded and converted to [3, H, W] in [0, 1], with the
// time each part took.
struct LoadedImage {
  absl::StatusOr<data::Image> image;
  HostArray host;
  double read_decode = 0, to_chw = 0;
};

LoadedImage LoadImage(const std::string& path) {
  LoadedImage loaded;
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

}  // namespace

bool TakesOneImageAtItsOwnSize(const std::vector<OnnxValueInfo>& inputs) {
  if (inputs.size() != 1 || inputs[0].dtype != DType::kFloat32) return false;
  const OnnxValueInfo& in = inputs[0];
  return in.has_shape && in.dims.size() == 3 &&
         (!in.dims[0].has_value() || *in.dims[0] == 3);
}

absl::Status RunOnImagesAtTheirOwnSize(OnnxModel& model, const Device& device,
                                       BackendRegistry& registry,
                                       const OwnSizeImagesOptions& options,
                                       const nlohmann::json& facts, FileTransaction& files) {
  SY_ASSIGN_OR_RETURN(BackendDevice * backend, registry.GetDevice(device));
  const std::vector<std::string>& paths = options.files;
  const std::vector<std::string> names = model.OutputNames();
  PerFileOutputs::Options per_file;
  per_file.folder = options.output_dir;
  if (!per_file.folder.empty()) {
    SY_ASSIGN_OR_RETURN(per_file.output_names,
                        OutputFileNames(per_file.folder, model.outputs().size(), names));
  }
  per_file.labels = options.labels;
  per_file.total_files = options.total_files > 0 ? options.total_files
                                                 : static_cast<int64_t>(paths.size());
  PerFileOutputs outputs_per_file(std::move(per_file), files);
  std::printf("%zu image%s from %s, each at its own size as [3, H, W] in [0, 1] (the "
              "model's own transform resizes and normalises)\n",
              paths.size(), paths.size() == 1 ? "" : "s", options.images.c_str());

  std::unique_ptr<RunProfiling> profiling = RunProfiling::FromFlags();
  const RunProfiling::RunFn run = [&](absl::Span<const Tensor> in, const RunOptions& o) {
    return model.Run(in, o);
  };
  // Numbers and totals count every file of --images, also when this process
  // (an MPI rank) has a share of them.
  const int64_t all_files = options.total_files > 0 ? options.total_files
                                                    : static_cast<int64_t>(paths.size());
  std::vector<ImageTimes> times;
  nlohmann::json images_json = nlohmann::json::array();
  nlohmann::json bad_json = nlohmann::json::array();
  int profiled = 0;
  // The next file is read and decoded while this one runs, so the device
  // waits only for what takes longer than the model.
  std::future<LoadedImage> next;
  if (!paths.empty()) next = std::async(std::launch::async, LoadImage, paths[0]);
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string& path = paths[i];
    ImageTimes t;
    const auto begin = Clock::now();
    LoadedImage loaded = next.get();
    if (i + 1 < paths.size()) next = std::async(std::launch::async, LoadImage, paths[i + 1]);
    const absl::StatusOr<data::Image>& image = loaded.image;
    if (!image.ok()) {
      if (!options.skip_bad_images) {
        return absl::Status(image.status().code(),
                            absl::StrCat("--images: ", image.status().message(),
                                         " (--bad-images=skip skips such files)"));
      }
      std::fprintf(stderr, "skipped %s: %s\n", path.c_str(),
                   std::string(image.status().message()).c_str());
      bad_json.push_back({{"path", path}, {"error", image.status().message()}});
      continue;
    }
    const HostArray& host = loaded.host;
    const auto uploading = Clock::now();
    SY_ASSIGN_OR_RETURN(Tensor x, Tensor::FromBytes(host.shape, host.dtype, host.bytes.data(),
                                                    host.bytes.size(), *backend));
    const auto converted = Clock::now();
    const std::vector<Tensor> inputs = {x};
    const onnx_import::StagedRunStats before = model.run_stats();
    const auto model_begin = Clock::now();
    std::vector<Tensor> outputs;
    if (profiling != nullptr) {
      SY_ASSIGN_OR_RETURN(outputs, profiling->Iteration(run, inputs, {host}, profiled++,
                                                        registry));
    } else {
      SY_ASSIGN_OR_RETURN(outputs, model.Run(inputs));
    }
    t.read_decode = loaded.read_decode;
    t.to_tensor = loaded.to_chw + Ms(uploading, converted);
    t.waited = Ms(begin, converted);
    t.model = Ms(model_begin, Clock::now());
    // The compile time is the runner's own count, not a second run's
    // difference: timing a new size twice cost a whole forward pass.
    const onnx_import::StagedRunStats after = model.run_stats();
    t.plans_compiled = after.plans_compiled - before.plans_compiled;
    t.compile = std::min(t.model, after.compile_ms - before.compile_ms);
    t.model -= t.compile;
    times.push_back(t);

    std::vector<HostArray> host_outputs;
    for (const Tensor& y : outputs) {
      SY_ASSIGN_OR_RETURN(std::vector<char> bytes, y.ToBytes());
      host_outputs.emplace_back(y.shape(), y.dtype(), std::move(bytes));
    }
    const int64_t number = options.first_index + static_cast<int64_t>(i) + 1;
    std::printf("\nimage %lld/%lld %s (%dx%d): model %.1f ms",
                static_cast<long long>(number), static_cast<long long>(all_files),
                path.c_str(), image->width, image->height, t.model);
    if (t.plans_compiled > 0) {
      std::printf(" (a new size: %lld plans compiled in %.1f ms first)",
                  static_cast<long long>(t.plans_compiled), t.compile);
    }
    std::printf("\n");
    nlohmann::json entry = {{"path", path},
                            {"width", image->width},
                            {"height", image->height},
                            {"plans_compiled", t.plans_compiled},
                            {"ms", {{"read_decode", t.read_decode},
                                    {"to_tensor", t.to_tensor},
                                    {"input_wait", t.waited},
                                    {"model", t.model},
                                    {"compile", t.compile}}}};
    const std::optional<DetectionOutputs> detections = FindDetections(host_outputs, names);
    if (detections.has_value()) {
      std::printf("%s", FormatDetections(host_outputs, *detections, options.labels,
                                         options.detections_shown)
                            .c_str());
      entry["detections"] = DetectionsJson(host_outputs, *detections, options.labels);
    } else {
      // Class scores get their top-5 line from outputs_per_file below.
      for (size_t o = 0; o < host_outputs.size(); ++o) {
        if (LooksLikeClassScores(host_outputs[o].shape, host_outputs[o].dtype)) continue;
        std::printf("output %s\n", SummaryLine(o < names.size() ? names[o] : "",
                                               host_outputs[o]).c_str());
      }
    }
    SY_RETURN_IF_ERROR(outputs_per_file.Add(number, path, options.output_names[i],
                                            host_outputs, !detections.has_value()));
    images_json.push_back(std::move(entry));
  }
  if (times.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--images=", options.images, ": none of the ", paths.size(),
        " files could be read as an image (each is named above)"));
  }

  // Where the time went: medians per image, and the verdict from the
  // totals. Reading and decoding run ahead of the model, so the device
  // waits only for what they take beyond it (input_total); compiling
  // happens once per new image size.
  std::vector<double> decode, convert, run_ms;
  double input_total = 0, compile_total = 0, model_total = 0;
  int64_t new_sizes = 0;
  for (const ImageTimes& t : times) {
    decode.push_back(t.read_decode);
    convert.push_back(t.to_tensor);
    run_ms.push_back(t.model);
    input_total += t.waited;
    compile_total += t.compile;
    model_total += t.model;
    if (t.plans_compiled > 0) ++new_sizes;
  }
  const double d = Median(decode), c = Median(convert), m = Median(run_ms);
  const double total = input_total + compile_total + model_total;
  auto percent = [&](double part) { return std::lround(total > 0 ? 100 * part / total : 0); };
  // One image per run: the model's rate is 1 / its median, as run's
  // samples/s is batch / median for a model that takes batches.
  const double images_per_s = m > 0 ? 1000.0 / m : 0;
  std::printf("\nimages: %zu run (%lld new sizes), %zu skipped; median per image: "
              "read+decode %.1f ms, to tensor %.1f ms (ahead of the model: it waited "
              "%.0f ms for input in all), model %.1f ms (%.1f images/s, one per run); "
              "compiling for new sizes %.0f ms in all\n",
              times.size(), static_cast<long long>(new_sizes), bad_json.size(), d, c,
              input_total, m, images_per_s, compile_total);
  std::string verdict;
  if (input_total >= compile_total && input_total >= 0.3 * total) {
    verdict = absl::StrCat("input-bound: ", percent(input_total), "% of the time ",
                           device.ToString(), " waits for images to be read, decoded and "
                           "converted, though that runs ahead of the model: smaller or "
                           "faster-to-decode files, or a faster disk, help");
  } else if (compile_total >= 0.3 * total) {
    verdict = absl::StrCat("compile-bound: ", percent(compile_total), "% of the time is "
                           "compiling plans for image sizes not seen before (", new_sizes,
                           " of ", times.size(), " images); images of a few sizes reuse "
                           "their plans (up to ", OnnxModel::kMaxCachedSegments,
                           " segments are kept)");
  } else {
    verdict = absl::StrCat("the model takes ", percent(model_total), "% of the time on ",
                           device.ToString(),
                           (profiling != nullptr ? "; the profile below names its slowest ops"
                                                 : "; --profile-summary names its slowest ops"));
  }
  std::printf("verdict: %s\n", verdict.c_str());
  if (profiling != nullptr) {
    SY_RETURN_IF_ERROR(profiling->Finish(
        {{"model", model.path()}, {"device", device.ToString()}, {"images", options.images}},
        files));
  }
  if (!options.report_path.empty()) {
    nlohmann::json report = {{"model", model.path()},
                             {"device", device.ToString()},
                             {"images", images_json},
                             {"bad_files", bad_json},
                             {"median_ms", {{"read_decode", d}, {"to_tensor", c}, {"model", m}}},
                             {"input_wait_ms", input_total},
                             {"batch", 1},
                             {"images_per_s", images_per_s},
                             {"compile_ms", compile_total},
                             {"verdict", verdict}};
    for (const auto& [key, value] : facts.items()) report[key] = value;
    SY_RETURN_IF_ERROR(files.Stage(options.report_path, report.dump(2) + "\n"));
  }
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace switchyard
