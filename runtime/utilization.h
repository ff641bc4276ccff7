#ifndef SWITCHYARD_RUNTIME_UTILIZATION_H_
#define SWITCHYARD_RUNTIME_UTILIZATION_H_

// A stream's utilization report (runtime/pipeline.h, analysed by
// core/timeline_analysis.h) as JSON, and a stream whose batches come from
// image files (data/image_batch_loader.h): what a front end needs besides
// its own options and printing (`switchyard run --batches`, `--images`:
// tools/cli/utilization.h).
//
//   PipelineOptions options;
//   FeedFromImages(loader, /*image_outputs=*/nullptr, options);
//   SY_ASSIGN_OR_RETURN(PipelineResult result, RunPipeline(plan, input, options, registry));
//   SY_ASSIGN_OR_RETURN(UtilizationReport report, AnalyzeTimeline(result.timeline));
//   nlohmann::json json = UtilizationReportJson(report, options, result.timeline);

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "core/tensor.h"
#include "core/timeline.h"
#include "core/timeline_analysis.h"
#include "data/image_batch_loader.h"
#include "data/loader_profile.h"
#include "nlohmann/json.hpp"
#include "runtime/image_input.h"
#include "runtime/pipeline.h"

namespace switchyard {
namespace runtime {

// The report's JSON (a `run --report`'s fields): the stream's options,
// per-phase times, each device's busy share, the waits and the verdict.
nlohmann::json UtilizationReportJson(const UtilizationReport& report,
                                     const PipelineOptions& options,
                                     const Timeline& timeline);

// Each batch's outputs of an image stream, with a test for the files found
// bad so far (a bad file's slot holds another file).
using ImageOutputsFn =
    std::function<absl::Status(int index, absl::Span<const Tensor> outputs,
                               const std::function<bool(const std::string& path)>& is_bad)>;

// Sets `options.load_batch` to fill each batch from `loader` (which must
// outlive the stream), and, when `image_outputs` is set, `options.on_outputs`
// to hand it each batch's outputs.
void FeedFromImages(data::ImageBatchLoader& loader, ImageOutputsFn image_outputs,
                    PipelineOptions& options);

// The report's "images" object: the files, the samples read, the bad files
// and each loader stage's time per sample (`loader`, data::SummarizeLoader
// of the stream's events).
nlohmann::json ImageStreamJson(const ImageInput& input, const data::ImageBatchLoader& images,
                               const data::LoaderSummary& loader, int64_t samples);

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_UTILIZATION_H_
