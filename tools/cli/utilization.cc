#include "tools/cli/utilization.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "core/thread_limit.h"
#include "core/timeline_analysis.h"
#include "data/image_batch_loader.h"
#include "data/loader_profile.h"
#include "nlohmann/json.hpp"
#include "runtime/pipeline.h"
#include "runtime/utilization.h"
#include "tools/cli/flags.h"
#include "tools/cli/image_input.h"
#include "tools/cli/profile_run.h"

ABSL_FLAG(int32_t, batches, 0,
          "run: stream this many batches through an input pipeline and report "
          "the device's utilization (0: the usual timed iterations)");
ABSL_FLAG(int32_t, loader_threads, 1, "run --batches: threads preparing batches");
ABSL_FLAG(int32_t, prefetch, 2,
          "run --batches: ready batches the queue holds ahead of the device (>= 1)");
ABSL_FLAG(double, loader_cost_ms, 0,
          "run --batches: cost of preparing one batch, in ms (see --loader_work)");
ABSL_FLAG(std::string, loader_work, "busy",
          "run --batches: busy = the loader thread spends --loader-cost-ms of its "
          "own CPU time on each batch (real work, competing for cores); sleep = "
          "it waits that long (I/O, or work done elsewhere)");

namespace switchyard {
namespace cli {

using runtime::PipelineOptions;
using runtime::PipelineResult;
using runtime::RunPipeline;
using runtime::TraceOriginEntry;

bool PipelineRequested() { return absl::GetFlag(FLAGS_batches) > 0 || ImagesRequested(); }

absl::Status CheckPipelineFlags() {
  const int batches = absl::GetFlag(FLAGS_batches);
  SY_RETURN_IF_ERROR(CheckRange("--batches", batches, 0, 1000000,
                                "0 runs the usual timed iterations"));
  if (!ImagesRequested()) {
    for (const char* flag : {"bad_images", "image_size", "resize", "augment"}) {
      if (FlagGiven(flag)) {
        std::string name = flag;
        std::replace(name.begin(), name.end(), '_', '-');
        return absl::InvalidArgumentError(absl::StrCat(
            "--", name, " applies to an image stream: give --images=DIR_OR_GLOB as well"));
      }
    }
  } else {
    for (const char* flag : {"loader_cost_ms", "loader_work"}) {
      if (FlagGiven(flag)) {
        std::string name = flag;
        std::replace(name.begin(), name.end(), '_', '-');
        return absl::InvalidArgumentError(absl::StrCat(
            "--", name, " sets the synthetic loader's cost; with --images the "
            "loaders decode real images: drop --", name));
      }
    }
  }
  if (batches == 0 && !ImagesRequested()) {
    for (const char* flag : {"loader_threads", "prefetch", "loader_cost_ms",
                             "loader_work"}) {
      if (FlagGiven(flag)) {
        std::string name = flag;
        std::replace(name.begin(), name.end(), '_', '-');
        return absl::InvalidArgumentError(absl::StrCat(
            "--", name, " applies to a stream: give --batches=N or --images as well"));
      }
    }
    return absl::OkStatus();
  }
  SY_RETURN_IF_ERROR(CheckRange("--loader-threads", absl::GetFlag(FLAGS_loader_threads),
                                1, MaxThreadCount(), "4 per core of this machine, at least 8"));
  SY_RETURN_IF_ERROR(CheckRange("--prefetch", absl::GetFlag(FLAGS_prefetch), 1, 1024,
                                "batches held ahead of the device"));
  const double cost = absl::GetFlag(FLAGS_loader_cost_ms);
  if (!std::isfinite(cost) || cost < 0 || cost > 60000) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--loader-cost-ms=", cost,
        " is out of range: it must be a finite number of milliseconds "
        "between 0 and 60000"));
  }
  const std::string work = absl::GetFlag(FLAGS_loader_work);
  if (work != "busy" && work != "sleep") {
    return absl::InvalidArgumentError(
        absl::StrCat("--loader-work must be busy or sleep, got '", work, "'"));
  }
  return absl::OkStatus();
}

absl::Status RunPipelineCommand(ExecutablePlan& plan, const Tensor& input,
                                BackendRegistry& registry, FileTransaction& files,
                                const nlohmann::json& extra,
                                const StreamHooks& hooks) {
  SY_RETURN_IF_ERROR(CheckPipelineFlags());
  PipelineOptions options;
  options.batches = absl::GetFlag(FLAGS_batches);
  options.loader_threads = absl::GetFlag(FLAGS_loader_threads);
  options.prefetch = absl::GetFlag(FLAGS_prefetch);
  options.loader_cost_ms = absl::GetFlag(FLAGS_loader_cost_ms);
  options.seed = absl::GetFlag(FLAGS_seed);
  const std::string work = absl::GetFlag(FLAGS_loader_work);
  if (work == "busy") {
    options.loader_work = PipelineOptions::LoaderWork::kBusy;
  } else if (work == "sleep") {
    options.loader_work = PipelineOptions::LoaderWork::kSleep;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--loader-work must be busy or sleep, got '", work, "'"));
  }
  const int warmup = absl::GetFlag(FLAGS_warmup);
  if (warmup < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--warmup must be >= 0, got ", warmup));
  }
  for (int i = 0; i < warmup; ++i) SY_RETURN_IF_ERROR(plan.Run({input}).status());

  // --images: the image pipeline fills the batches (data/).
  std::unique_ptr<data::ImageBatchLoader> images;
  runtime::ImageInput image_input;
  if (ImagesRequested()) {
    SY_ASSIGN_OR_RETURN(image_input, PrepareImageInput());
    const int64_t batch = input.shape().dim(0);
    images = std::make_unique<data::ImageBatchLoader>(image_input.files,
                                                      static_cast<int>(batch),
                                                      image_input.options);
    if (images->batch_elements() != input.num_elements()) {
      return absl::InternalError(absl::StrCat(
          "--images: the model input is ", input.shape().ToString(), " but a batch is ",
          runtime::ImageBatchShape(image_input, batch).ToString()));
    }
    if (absl::GetFlag(FLAGS_batches) == 0) {
      options.batches = static_cast<int>(images->batches_per_epoch());
    }
    runtime::FeedFromImages(*images, hooks.image_outputs, options);
    std::printf("streaming %d batches of %s from %zu files in %s (%s), %d loader "
                "thread%s, prefetch %d, after %d warm-up forward%s\n",
                options.batches, input.shape().ToString().c_str(), image_input.files.size(),
                image_input.source.c_str(), image_input.description.c_str(),
                options.loader_threads, options.loader_threads == 1 ? "" : "s",
                options.prefetch, warmup, warmup == 1 ? "" : "s");
  } else {
    std::printf("streaming %d batches of %s: %d loader thread%s (%s, %.1f ms per "
                "batch), prefetch %d, after %d warm-up forward%s\n",
                options.batches, input.shape().ToString().c_str(),
                options.loader_threads, options.loader_threads == 1 ? "" : "s",
                work.c_str(), options.loader_cost_ms, options.prefetch, warmup,
                warmup == 1 ? "" : "s");
  }
  SY_ASSIGN_OR_RETURN(PipelineResult result,
                      RunPipeline(plan, input, options, registry));
  if (hooks.samples_per_batch > 0) result.timeline.batch_size = hooks.samples_per_batch;
  SY_ASSIGN_OR_RETURN(UtilizationReport report, AnalyzeTimeline(result.timeline));
  std::printf("%s", FormatUtilizationReport(report, result.timeline).c_str());
  nlohmann::json images_json;
  if (images != nullptr) {
    const std::vector<data::ImageBatchLoader::BadImage> bad = images->bad_images();
    const int64_t samples = int64_t{options.batches} * input.shape().dim(0);
    std::printf("images: %lld samples from %zu files; %zu bad file%s skipped (%lld "
                "skip%s in all)\n",
                static_cast<long long>(samples), image_input.files.size(), bad.size(),
                bad.size() == 1 ? "" : "s", static_cast<long long>(images->skipped()),
                images->skipped() == 1 ? "" : "s");
    const data::LoaderSummary loader = data::SummarizeLoader(result.events, samples);
    if (GetProfileFlags().summary) {
      std::printf("\n%s", data::FormatLoaderSummary(loader).c_str());
    }
    images_json = runtime::ImageStreamJson(image_input, *images, loader, samples);
  }

  const ProfileFlags profile = GetProfileFlags();
  SY_RETURN_IF_ERROR(WriteProfileOutputs(
      profile, result.events,
      {{"mode", "input pipeline"},
       {"diagnosis", report.diagnosis},
       TraceOriginEntry(result.origin)},
      files));
  const std::string report_path = ResolveUserPath(absl::GetFlag(FLAGS_report));
  if (!report_path.empty()) {
    nlohmann::json json = runtime::UtilizationReportJson(report, options, result.timeline);
    if (!images_json.is_null()) json["images"] = images_json;
    for (const auto& [key, value] : extra.items()) json[key] = value;
    SY_RETURN_IF_ERROR(files.Stage(report_path, json.dump(2) + "\n"));
  }
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace switchyard
