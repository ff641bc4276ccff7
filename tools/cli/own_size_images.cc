#include "tools/cli/own_size_images.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
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
using runtime::FindDetections;
using runtime::FormatDetections;
using runtime::LooksLikeClassScores;
using runtime::OutputFileNames;
using runtime::OwnSizeImageTimes;
using runtime::OwnSizeSummary;
using runtime::PerFileOutputs;
using runtime::SummarizeOwnSizeImages;
using runtime::SummaryLine;

absl::Status RunOnImagesAtTheirOwnSize(runtime::Session& session, const Device& device,
                                       BackendRegistry& registry,
                                       const OwnSizeImagesOptions& options,
                                       const nlohmann::json& facts, FileTransaction& files) {
  SY_ASSIGN_OR_RETURN(BackendDevice * backend, registry.GetDevice(device));
  const std::vector<std::string>& paths = options.files;
  const std::vector<std::string> names = session.OutputNames();
  PerFileOutputs::Options per_file;
  per_file.folder = options.output_dir;
  if (!per_file.folder.empty()) {
    SY_ASSIGN_OR_RETURN(per_file.output_names,
                        OutputFileNames(per_file.folder, session.outputs().size(), names));
  }
  per_file.labels = options.labels;
  per_file.total_files = options.total_files > 0 ? options.total_files
                                                 : static_cast<int64_t>(paths.size());
  PerFileOutputs outputs_per_file(std::move(per_file), files);
  std::printf("%zu image%s from %s, each at its own size as [3, H, W] in [0, 1] (the "
              "model's own transform resizes and normalises)\n",
              paths.size(), paths.size() == 1 ? "" : "s", options.images.c_str());

  std::unique_ptr<RunProfiling> profiling = RunProfiling::FromFlags();
  int profiled = 0;
  runtime::OwnSizeRunFn run;
  if (profiling != nullptr) {
    run = [&](absl::Span<const Tensor> in, const HostArray& host) {
      const RunProfiling::RunFn model_run = [&](absl::Span<const Tensor> x,
                                                const RunOptions& o) {
        return session.Run(x, o);
      };
      return profiling->Iteration(model_run, in, {host}, profiled++, registry);
    };
  }
  // Numbers and totals count every file of --images, also when this process
  // (an MPI rank) has a share of them.
  const int64_t all_files = options.total_files > 0 ? options.total_files
                                                    : static_cast<int64_t>(paths.size());
  nlohmann::json images_json = nlohmann::json::array();
  nlohmann::json bad_json = nlohmann::json::array();
  const auto on_bad_file = [&](size_t i, const absl::Status& error) -> absl::Status {
    if (!options.skip_bad_images) {
      return absl::Status(error.code(), absl::StrCat("--images: ", error.message(),
                                                     " (--bad-images=skip skips such files)"));
    }
    std::fprintf(stderr, "skipped %s: %s\n", paths[i].c_str(),
                 std::string(error.message()).c_str());
    bad_json.push_back({{"path", paths[i]}, {"error", error.message()}});
    return absl::OkStatus();
  };
  const auto on_image = [&](size_t i, const runtime::OwnSizeImageRun& r) -> absl::Status {
    const std::string& path = paths[i];
    const OwnSizeImageTimes& t = r.times;
    const int64_t number = options.first_index + static_cast<int64_t>(i) + 1;
    std::printf("\nimage %lld/%lld %s (%dx%d): model %.1f ms",
                static_cast<long long>(number), static_cast<long long>(all_files),
                path.c_str(), r.width, r.height, t.model);
    if (t.plans_compiled > 0) {
      std::printf(" (a new size: %lld plans compiled in %.1f ms first)",
                  static_cast<long long>(t.plans_compiled), t.compile);
    }
    std::printf("\n");
    const std::vector<HostArray>& host_outputs = r.outputs;
    const std::optional<DetectionOutputs> detections = FindDetections(host_outputs, names);
    if (detections.has_value()) {
      std::printf("%s", FormatDetections(host_outputs, *detections, options.labels,
                                         options.detections_shown)
                            .c_str());
    } else {
      // Class scores get their top-5 line from outputs_per_file below.
      for (size_t o = 0; o < host_outputs.size(); ++o) {
        if (LooksLikeClassScores(host_outputs[o].shape, host_outputs[o].dtype)) continue;
        std::printf("output %s\n", SummaryLine(o < names.size() ? names[o] : "",
                                               host_outputs[o]).c_str());
      }
      std::printf("%s", outputs_per_file.Top5Lines(number, path, host_outputs).c_str());
    }
    SY_RETURN_IF_ERROR(outputs_per_file.Stage(options.output_names[i], host_outputs));
    images_json.push_back(runtime::OwnSizeImageJson(path, r, names, options.labels));
    return absl::OkStatus();
  };
  SY_ASSIGN_OR_RETURN(
      const std::vector<OwnSizeImageTimes> times,
      runtime::RunImagesAtTheirOwnSize(session, *backend, paths, run, on_image, on_bad_file));
  if (times.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--images=", options.images, ": none of the ", paths.size(),
        " files could be read as an image (each is named above)"));
  }

  // Where the time went: medians per image, and the verdict from the
  // totals (runtime/own_size_images.h).
  const OwnSizeSummary summary = SummarizeOwnSizeImages(times, device);
  std::printf("\n%s\n",
              runtime::OwnSizeSummaryLine(summary, times.size(), bad_json.size()).c_str());
  std::string verdict = summary.verdict;
  if (summary.bound == OwnSizeSummary::Bound::kModel) {
    verdict += profiling != nullptr ? "; the profile below names its slowest ops"
                                    : "; --profile-summary names its slowest ops";
  }
  std::printf("verdict: %s\n", verdict.c_str());
  if (profiling != nullptr) {
    SY_RETURN_IF_ERROR(profiling->Finish(
        {{"model", session.name()}, {"device", device.ToString()}, {"images", options.images}},
        files));
  }
  if (!options.report_path.empty()) {
    nlohmann::json report = {{"model", session.name()}, {"device", device.ToString()}};
    report.update(runtime::OwnSizeReportJson(std::move(images_json), std::move(bad_json),
                                             summary, verdict));
    for (const auto& [key, value] : facts.items()) report[key] = value;
    SY_RETURN_IF_ERROR(files.Stage(options.report_path, report.dump(2) + "\n"));
  }
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace switchyard
