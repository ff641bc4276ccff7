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
#include "runtime/detections.h"
#include "runtime/output_summary.h"
#include "runtime/own_size_images.h"
#include "runtime/per_file_outputs.h"
#include "tools/cli/profile_run.h"

namespace switchyard {
namespace cli {

using runtime::DetectionOutputs;
using runtime::DetectionsJson;
using runtime::FindDetections;
using runtime::FormatDetections;
using runtime::LoadImageAtItsOwnSize;
using runtime::LooksLikeClassScores;
using runtime::OutputFileNames;
using runtime::OwnSizeImage;
using runtime::OwnSizeImageTimes;
using runtime::OwnSizeSummary;
using runtime::PerFileOutputs;
using runtime::SummarizeOwnSizeImages;
using runtime::SummaryLine;

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

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
  std::vector<OwnSizeImageTimes> times;
  nlohmann::json images_json = nlohmann::json::array();
  nlohmann::json bad_json = nlohmann::json::array();
  int profiled = 0;
  // The next file is read and decoded while this one runs, so the device
  // waits only for what takes longer than the model.
  std::future<OwnSizeImage> next;
  if (!paths.empty()) next = std::async(std::launch::async, LoadImageAtItsOwnSize, paths[0]);
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string& path = paths[i];
    OwnSizeImageTimes t;
    const auto begin = Clock::now();
    OwnSizeImage loaded = next.get();
    if (i + 1 < paths.size()) {
      next = std::async(std::launch::async, LoadImageAtItsOwnSize, paths[i + 1]);
    }
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
    if (!detections.has_value()) {
      std::printf("%s", outputs_per_file.Top5Lines(number, path, host_outputs).c_str());
    }
    SY_RETURN_IF_ERROR(outputs_per_file.Stage(options.output_names[i], host_outputs));
    images_json.push_back(std::move(entry));
  }
  if (times.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--images=", options.images, ": none of the ", paths.size(),
        " files could be read as an image (each is named above)"));
  }

  // Where the time went: medians per image, and the verdict from the
  // totals (runtime/own_size_images.h).
  const OwnSizeSummary summary = SummarizeOwnSizeImages(times, device);
  const double d = summary.median_read_decode, c = summary.median_to_tensor,
               m = summary.median_model;
  std::printf("\nimages: %zu run (%lld new sizes), %zu skipped; median per image: "
              "read+decode %.1f ms, to tensor %.1f ms (ahead of the model: it waited "
              "%.0f ms for input in all), model %.1f ms (%.1f images/s, one per run); "
              "compiling for new sizes %.0f ms in all\n",
              times.size(), static_cast<long long>(summary.new_sizes), bad_json.size(), d, c,
              summary.input_total, m, summary.images_per_s, summary.compile_total);
  std::string verdict = summary.verdict;
  if (summary.bound == OwnSizeSummary::Bound::kModel) {
    verdict += profiling != nullptr ? "; the profile below names its slowest ops"
                                    : "; --profile-summary names its slowest ops";
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
                             {"input_wait_ms", summary.input_total},
                             {"batch", 1},
                             {"images_per_s", summary.images_per_s},
                             {"compile_ms", summary.compile_total},
                             {"verdict", verdict}};
    for (const auto& [key, value] : facts.items()) report[key] = value;
    SY_RETURN_IF_ERROR(files.Stage(options.report_path, report.dump(2) + "\n"));
  }
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace switchyard
