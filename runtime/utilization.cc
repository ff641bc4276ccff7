#include "runtime/utilization.h"

#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace switchyard {
namespace runtime {

nlohmann::json UtilizationReportJson(const UtilizationReport& r, const PipelineOptions& o,
                                     const Timeline& t) {
  nlohmann::json phases = nlohmann::json::object();
  for (const PhaseStats& p : r.phases) {
    phases[p.phase] = {{"count", p.count},       {"total_ms", p.total_ms},
                       {"mean_ms", p.mean_ms},   {"median_ms", p.median_ms},
                       {"p95_ms", p.p95_ms},     {"max_ms", p.max_ms}};
  }
  nlohmann::json devices = nlohmann::json::array();
  for (const DeviceBusy& d : r.devices) {
    devices.push_back(
        {{"device", d.device}, {"busy_ms", d.busy_ms}, {"busy_share", d.busy_share}});
  }
  return {{"device", r.device},
          {"batch", t.batch_size},
          {"batches", r.batches},
          {"loader_threads", o.loader_threads},
          {"prefetch", o.prefetch},
          {"loader_cost_ms", o.loader_cost_ms},
          {"loader_work",
           o.loader_work == PipelineOptions::LoaderWork::kBusy ? "busy" : "sleep"},
          {"run_ms", r.run_ms},
          {"images_per_s", r.images_per_s},
          {"phases", phases},
          {"devices", devices},
          {"busy_share", r.busy_share},
          {"input_wait_ms", r.input_wait_ms},
          {"input_wait_share", r.input_wait_share},
          {"startup_wait_ms", r.startup_wait_ms},
          {"steady_wait_share", r.steady_wait_share},
          {"other_idle_share", r.other_idle_share},
          {"loader_busy_share", r.loader_busy_share},
          {"loader_core_wait_share", r.loader_core_wait_share},
          {"copy_share", r.copy_share},
          {"top_node", r.top_node},
          {"top_node_share", r.top_node_share},
          {"verdict", VerdictName(r.verdict)},
          {"diagnosis", r.diagnosis}};
}

void FeedFromImages(data::ImageBatchLoader& images, ImageOutputsFn image_outputs,
                    PipelineOptions& options) {
  data::ImageBatchLoader* loader = &images;
  if (image_outputs) {
    options.on_outputs = [image_outputs = std::move(image_outputs), loader](
                             int index, absl::Span<const Tensor> outputs) {
      std::set<std::string> bad;
      for (const auto& b : loader->bad_images()) bad.insert(b.path);
      return image_outputs(index, outputs, [&bad](const std::string& path) {
        return bad.count(path) > 0;
      });
    };
  }
  options.load_batch = [loader](int index, int, absl::Span<float> values,
                                std::vector<data::StageSpan>* spans) -> absl::Status {
    absl::Status status = loader->LoadBatch(index, values, spans);
    if (status.ok()) return status;
    return absl::Status(status.code(),
                        absl::StrCat("--images: ", status.message(),
                                     status.code() == absl::StatusCode::kFailedPrecondition
                                         ? ""
                                         : " (--bad-images=skip skips such files)"));
  };
}

nlohmann::json ImageStreamJson(const ImageInput& input, const data::ImageBatchLoader& images,
                               const data::LoaderSummary& loader, int64_t samples) {
  nlohmann::json stages = nlohmann::json::object();
  for (const data::LoaderStageRow& row : loader.stages) {
    stages[row.stage] = {{"ms_per_sample", row.ms_per_sample}, {"share", row.share}};
  }
  nlohmann::json bad_json = nlohmann::json::array();
  for (const auto& b : images.bad_images()) {
    bad_json.push_back({{"path", b.path}, {"error", b.error}});
  }
  return {{"source", input.source},
          {"files", input.files.size()},
          {"samples", samples},
          {"transform", input.description},
          {"bad_files", bad_json},
          {"skipped_slots", images.skipped()},
          {"loader_ms_per_sample", loader.ms_per_sample},
          {"copy_ms_per_sample", loader.copy.ms_per_sample},
          {"stages", stages}};
}

}  // namespace runtime
}  // namespace switchyard
