#include "python/diagnose.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/backend_registry.h"
#include "core/executable_plan.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "core/thread_limit.h"
#include "data/image_files.h"
#include "python/profile.h"
#include "runtime/own_size_images.h"
#include "runtime/pipeline.h"

namespace switchyard {
namespace python {

namespace py = pybind11;

namespace {

absl::Status Range(const char* name, double value, double low, double high,
                   const char* what) {
  if (std::isfinite(value) && value >= low && value <= high) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(name, "=", value, " is out of range: ",
                                                 what, " from ", low, " to ", high));
}

}  // namespace

absl::Status CheckDiagnoseOptions(DiagnoseOptions& o, std::vector<std::string>* files) {
  SY_RETURN_IF_ERROR(Range("batch", o.batch, 1, 65536, "samples per batch"));
  SY_RETURN_IF_ERROR(Range("image_size", o.image_size, 1, 4096, "pixels per side"));
  SY_RETURN_IF_ERROR(
      Range("resize", o.resize, 0, 16384, "pixels; 0 picks image_size * 256 / 224"));
  SY_RETURN_IF_ERROR(
      Range("batches", o.batches, 0, 1000000, "batches; 0 is one pass over the images"));
  SY_RETURN_IF_ERROR(Range("loader_threads", o.loader_threads, 1, MaxThreadCount(),
                           "threads (4 per core of this machine, at least 8)"));
  SY_RETURN_IF_ERROR(Range("prefetch", o.prefetch, 1, 1024, "batches"));
  SY_RETURN_IF_ERROR(Range("loader_cost_ms", o.loader_cost_ms, 0, 60000, "milliseconds"));
  SY_RETURN_IF_ERROR(Range("warmup", o.warmup, 0, 1000, "forward passes"));
  if (o.loader_work != "busy" && o.loader_work != "sleep") {
    return absl::InvalidArgumentError(
        absl::StrCat("loader_work must be 'busy' or 'sleep', got '", o.loader_work, "'"));
  }
  if (!o.images.empty() && o.loader_cost_ms > 0) {
    return absl::InvalidArgumentError(
        "loader_cost_ms sets the synthetic loader's cost; with images= the loaders decode "
        "real images: drop loader_cost_ms (or images= to simulate a loader)");
  }
  if (o.images.empty()) {
    if (o.batches == 0) {
      return absl::InvalidArgumentError(
          "without images= the batches are synthetic: give batches=N (> 0) or "
          "images='DIR' (a folder, a pattern such as 'photos/*.jpg', or a file)");
    }
    return absl::OkStatus();
  }
  if (o.augment == "eval") {
    if (o.resize == 0) o.resize = static_cast<int>(std::lround(o.image_size * 256.0 / 224.0));
    if (o.resize < o.image_size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "resize=", o.resize, " is smaller than image_size=", o.image_size,
          ": the center crop would be padded with black; give resize >= image_size"));
    }
  } else if (o.augment == "train") {
    if (o.resize != 0) {
      return absl::InvalidArgumentError(
          "resize applies to augment='eval'; 'train' crops a random part and resizes "
          "it to image_size: drop resize=");
    }
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("augment must be 'eval' or 'train', got '", o.augment, "'"));
  }
  absl::StatusOr<std::vector<std::string>> listed = data::ListImageFiles(o.images);
  if (!listed.ok()) {
    return absl::Status(listed.status().code(),
                        absl::StrCat("images='", o.images, "': ", listed.status().message()));
  }
  *files = *std::move(listed);
  return absl::OkStatus();
}

absl::StatusOr<Diagnosis> RunDiagnosis(Module& model, const std::string& model_name,
                                       const Device& device, DiagnoseOptions options) {
  std::vector<std::string> files;
  SY_RETURN_IF_ERROR(CheckDiagnoseOptions(options, &files));
  BackendRegistry& registry = BackendRegistry::Global();
  SY_ASSIGN_OR_RETURN(BackendDevice * backend_device, registry.GetDevice(device));

  const Shape shape({options.batch, 3, options.image_size, options.image_size});
  InputSpec spec{shape, DType::kFloat32, device};
  absl::StatusOr<ExecutablePlan*> compiled = model.Compiled({spec});
  if (!compiled.ok()) {
    return absl::Status(
        compiled.status().code(),
        absl::StrCat("diagnose needs ", model_name, " as one static plan for a float32 "
                     "input ", shape.ToString(), " (one image batch): ",
                     compiled.status().message()));
  }
  ExecutablePlan& plan = **compiled;
  SY_ASSIGN_OR_RETURN(Tensor input, Tensor::Empty(shape, DType::kFloat32, *backend_device));

  // The same stream as `switchyard run --batches/--images` (runtime/pipeline.h).
  runtime::PipelineOptions stream;
  stream.batches = options.batches;
  stream.loader_threads = options.loader_threads;
  stream.prefetch = options.prefetch;
  stream.loader_cost_ms = options.loader_cost_ms;
  stream.loader_work = options.loader_work == "busy"
                           ? runtime::PipelineOptions::LoaderWork::kBusy
                           : runtime::PipelineOptions::LoaderWork::kSleep;
  stream.seed = options.seed;
  Diagnosis d;
  std::unique_ptr<data::ImageBatchLoader> images;
  if (!options.images.empty()) {
    data::ImageBatchLoader::Options lo;
    lo.transform.size = options.image_size;
    lo.transform.resize = options.resize;
    lo.transform.seed = options.seed;
    lo.transform.mode = options.augment == "train" ? data::TransformOptions::Mode::kTrain
                                                   : data::TransformOptions::Mode::kEval;
    lo.bad_images =
        options.skip_bad ? data::BadImagePolicy::kSkip : data::BadImagePolicy::kFail;
    lo.report_bad_images = options.report_bad;
    d.source = options.images;
    d.files = static_cast<int64_t>(files.size());
    d.transform = options.augment == "train"
                      ? absl::StrCat("train: random resized crop ", options.image_size,
                                     ", horizontal flip")
                      : absl::StrCat("eval: resize ", options.resize, ", center crop ",
                                     options.image_size);
    images = std::make_unique<data::ImageBatchLoader>(files, options.batch, lo);
    if (images->batch_elements() != input.num_elements()) {
      return absl::InternalError(absl::StrCat("an image batch has ", images->batch_elements(),
                                              " values but the input ", shape.ToString(),
                                              " has ", input.num_elements()));
    }
    if (options.batches == 0) options.batches = static_cast<int>(images->batches_per_epoch());
    stream.batches = options.batches;
    data::ImageBatchLoader* loader = images.get();
    const std::string source = options.images;
    const bool report_bad = options.report_bad;
    stream.load_batch = [loader, source, report_bad](
                            int index, int, absl::Span<float> values,
                            std::vector<data::StageSpan>* spans) -> absl::Status {
      absl::Status status = loader->LoadBatch(index, values, spans);
      if (status.ok()) return status;
      const bool stopped = status.code() == absl::StatusCode::kFailedPrecondition;
      return absl::Status(
          status.code(),
          absl::StrCat("images='", source, "': ", status.message(),
                       stopped ? (report_bad ? "" : " (verbose=True prints each file's error)")
                               : " (skip_bad=True skips such files)"));
    };
  }
  for (int i = 0; i < options.warmup; ++i) SY_RETURN_IF_ERROR(plan.Run({input}).status());
  SY_ASSIGN_OR_RETURN(runtime::PipelineResult result,
                      runtime::RunPipeline(plan, input, stream, registry));
  d.timeline = std::move(result.timeline);
  d.events = std::move(result.events);
  SY_ASSIGN_OR_RETURN(d.report, AnalyzeTimeline(d.timeline));
  d.text = FormatUtilizationReport(d.report, d.timeline);
  if (images != nullptr) {
    d.samples = int64_t{options.batches} * options.batch;
    d.bad_files = images->bad_images();
    d.skipped_slots = images->skipped();
    d.loader = data::SummarizeLoader(d.events, d.samples);
    absl::StrAppend(&d.text, "images: ", d.samples, " samples from ", d.files, " files; ",
                    d.bad_files.size(), " bad file", d.bad_files.size() == 1 ? "" : "s",
                    " skipped (", d.skipped_slots, " skip",
                    d.skipped_slots == 1 ? "" : "s", " in all)\n\n",
                    data::FormatLoaderSummary(d.loader));
  }
  d.options = options;
  return d;
}

py::dict DiagnosisToDict(Diagnosis d, const std::string& model_name) {
  const UtilizationReport& r = d.report;
  const DiagnoseOptions& o = d.options;
  py::dict phases;
  for (const PhaseStats& p : r.phases) {
    py::dict row;
    row["count"] = p.count;
    row["total_ms"] = p.total_ms;
    row["mean_ms"] = p.mean_ms;
    row["median_ms"] = p.median_ms;
    row["p95_ms"] = p.p95_ms;
    row["max_ms"] = p.max_ms;
    phases[py::str(p.phase)] = row;
  }
  py::list devices;
  for (const DeviceBusy& b : r.devices) {
    py::dict row;
    row["device"] = b.device;
    row["busy_ms"] = b.busy_ms;
    row["busy_share"] = b.busy_share;
    devices.append(row);
  }
  py::dict out;
  out["model"] = model_name;
  out["device"] = r.device;
  out["batch"] = d.timeline.batch_size;
  out["batches"] = r.batches;
  out["loader_threads"] = o.loader_threads;
  out["prefetch"] = o.prefetch;
  out["loader_cost_ms"] = o.loader_cost_ms;
  out["loader_work"] = o.loader_work;
  out["run_ms"] = r.run_ms;
  out["images_per_s"] = r.images_per_s;
  out["phases"] = phases;
  out["devices"] = devices;
  out["busy_share"] = r.busy_share;
  out["input_wait_ms"] = r.input_wait_ms;
  out["input_wait_share"] = r.input_wait_share;
  out["startup_wait_ms"] = r.startup_wait_ms;
  out["steady_wait_share"] = r.steady_wait_share;
  out["other_idle_share"] = r.other_idle_share;
  out["loader_busy_share"] = r.loader_busy_share;
  out["loader_core_wait_share"] = r.loader_core_wait_share;
  out["copy_share"] = r.copy_share;
  out["top_node"] = r.top_node;
  out["top_node_share"] = r.top_node_share;
  out["top_loader_stage"] = r.top_loader_stage;
  out["top_loader_stage_share"] = r.top_loader_stage_share;
  out["verdict"] = VerdictName(r.verdict);
  out["diagnosis"] = r.diagnosis;
  if (!o.images.empty()) {
    py::dict stages;
    for (const data::LoaderStageRow& row : d.loader.stages) {
      py::dict s;
      s["ms_per_sample"] = row.ms_per_sample;
      s["share"] = row.share;
      s["total_ms"] = row.total_ms;
      s["count"] = row.count;
      stages[py::str(row.stage)] = s;
    }
    py::list bad;
    for (const auto& b : d.bad_files) {
      py::dict item;
      item["path"] = b.path;
      item["error"] = b.error;
      bad.append(item);
    }
    py::dict images;
    images["source"] = d.source;
    images["files"] = d.files;
    images["samples"] = d.samples;
    images["transform"] = d.transform;
    images["bad_files"] = bad;
    images["skipped_slots"] = d.skipped_slots;
    images["loader_ms_per_sample"] = d.loader.ms_per_sample;
    images["copy_ms_per_sample"] = d.loader.copy.ms_per_sample;
    images["stages"] = stages;
    out["images"] = images;
  } else {
    out["images"] = py::none();
  }
  out["text"] = d.text;
  RunProfile profile;
  profile.events = std::move(d.events);
  profile.metadata = {{"model", model_name},
                      {"device", r.device},
                      {"mode", "input pipeline"},
                      {"diagnosis", r.diagnosis}};
  out["profile"] = py::cast(std::move(profile));
  return out;
}

absl::StatusOr<nlohmann::json> RunOwnSizeDiagnosis(runtime::Session& session,
                                                   const std::string& model_name,
                                                   const Device& device,
                                                   const DiagnoseOptions& options) {
  if (options.images.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        model_name, " takes one image [3, H, W] at its own size (as a detector exported "
        "from torchvision): give images='DIR' (a folder, a pattern or a file), and each "
        "image runs at its own size, as `switchyard run --images=DIR` does"));
  }
  absl::StatusOr<std::vector<std::string>> listed = data::ListImageFiles(options.images);
  if (!listed.ok()) {
    return absl::Status(listed.status().code(), absl::StrCat("images='", options.images,
                                                             "': ", listed.status().message()));
  }
  const std::vector<std::string>& paths = *listed;
  SY_ASSIGN_OR_RETURN(BackendDevice * backend, BackendRegistry::Global().GetDevice(device));
  const std::vector<std::string> names = session.OutputNames();
  nlohmann::json images = nlohmann::json::array();
  nlohmann::json bad_files = nlohmann::json::array();
  const auto on_bad_file = [&](size_t i, const absl::Status& error) -> absl::Status {
    if (!options.skip_bad) {
      return absl::Status(error.code(), absl::StrCat("images: ", error.message(),
                                                     " (skip_bad=True skips such files)"));
    }
    if (options.report_bad) {
      std::fprintf(stderr, "skipped %s: %s\n", paths[i].c_str(),
                   std::string(error.message()).c_str());
    }
    bad_files.push_back({{"path", paths[i]}, {"error", error.message()}});
    return absl::OkStatus();
  };
  const auto on_image = [&](size_t i, const runtime::OwnSizeImageRun& run) {
    images.push_back(runtime::OwnSizeImageJson(paths[i], run, names, {}));
    return absl::OkStatus();
  };
  SY_ASSIGN_OR_RETURN(
      const std::vector<runtime::OwnSizeImageTimes> times,
      runtime::RunImagesAtTheirOwnSize(session, *backend, paths, nullptr, on_image, on_bad_file));
  if (times.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("images='", options.images, "': none of the ",
                                                   paths.size(),
                                                   " files could be read as an image"));
  }
  const runtime::OwnSizeSummary summary = runtime::SummarizeOwnSizeImages(times, device);
  std::string diagnosis = summary.verdict;
  if (summary.bound == runtime::OwnSizeSummary::Bound::kModel) {
    diagnosis += "; session.run(image, profile=True) names its slowest ops";
  }
  nlohmann::json report = {{"model", model_name}, {"device", device.ToString()},
                           {"mode", "own_size"}};
  const size_t skipped = bad_files.size();
  report.update(runtime::OwnSizeReportJson(std::move(images), std::move(bad_files), summary,
                                           diagnosis));
  report["text"] = absl::StrCat(runtime::OwnSizeSummaryLine(summary, times.size(), skipped),
                                "\nverdict: ", diagnosis);
  return report;
}

}  // namespace python
}  // namespace switchyard
