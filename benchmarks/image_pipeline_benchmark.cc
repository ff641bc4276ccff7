// The image input pipeline (data/) on a folder of images: each stage alone
// (BM_Stage/<stage>), and whole loaders filling batches of 224x224 on 1..T
// threads at once (BM_Loader/threads:T), in images/s, with each stage's ms
// per sample. benchmarks/torchvision_pipeline.py times torchvision's
// transforms + PIL through a DataLoader with the same workers on the same
// files; benchmarks/compare_image_pipeline.sh runs both in one go.
//
//   bazel build -c opt //benchmarks:image_pipeline_benchmark
//   bazel-bin/benchmarks/image_pipeline_benchmark --images=DIR
//       [--loader_threads=1,2] [--batch=32] [--augment=eval|train]
//
// Counters: items_per_second is images/s of all threads together;
// per_thread is images/s per loader thread; <stage>_ms is ms per sample.

#include <atomic>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "benchmark/benchmark.h"
#include "benchmarks/bench_util.h"
#include "data/crop.h"
#include "data/decode.h"
#include "data/flip.h"
#include "data/image_batch_loader.h"
#include "data/image_files.h"
#include "data/normalize.h"
#include "data/resize.h"

namespace switchyard {
namespace {

using data::Image;
using Clock = std::chrono::steady_clock;

const char kUsage[] =
    "image_pipeline_benchmark: the image pipeline's stages and loaders\n"
    "  --images=DIR          folder (or pattern) of JPEG/PNG files (required)\n"
    "  --loader_threads=1,2  loader thread counts for BM_Loader\n"
    "  --batch=32            images per batch\n"
    "  --augment=eval        eval (Resize 256 + CenterCrop 224) or train\n";

// The decodable files of the set, their bytes and decoded images, loaded
// once for the per-stage cases.
struct ImageSet {
  std::vector<std::string> files;
  std::vector<std::string> bytes;
  std::vector<Image> decoded;
};

ImageSet* set = new ImageSet();

constexpr int kSize = 224, kResize = 256;

void BM_Stage(benchmark::State& state, const std::string& stage) {
  const size_t n = set->files.size();
  // Per image: what the stage starts from in the eval pipeline.
  std::vector<Image> resized(n), cropped(n);
  for (size_t i = 0; i < n; ++i) {
    int w = 0, h = 0;
    data::ShorterSideSize(set->decoded[i].width, set->decoded[i].height, kResize, &w, &h);
    resized[i] = data::ResizeBilinear(set->decoded[i], w, h);
    cropped[i] = data::Crop(resized[i], data::CenterCropBox(w, h, kSize));
  }
  std::vector<float> sample(3 * kSize * kSize), batch(3 * kSize * kSize * 4);
  size_t i = 0;
  for (auto _ : state) {
    const size_t k = i++ % n;
    if (stage == "read") {
      benchmark::DoNotOptimize(data::ReadFileBytes(set->files[k]));
    } else if (stage == "decode") {
      benchmark::DoNotOptimize(data::DecodeImage(set->bytes[k], set->files[k]));
    } else if (stage == "resize") {
      int w = 0, h = 0;
      data::ShorterSideSize(set->decoded[k].width, set->decoded[k].height, kResize, &w, &h);
      benchmark::DoNotOptimize(data::ResizeBilinear(set->decoded[k], w, h));
    } else if (stage == "crop") {
      benchmark::DoNotOptimize(data::Crop(
          resized[k], data::CenterCropBox(resized[k].width, resized[k].height, kSize)));
    } else if (stage == "flip") {
      data::FlipHorizontal(cropped[k]);
    } else if (stage == "normalize") {
      data::ToNormalizedChw(cropped[k], data::Normalization(), absl::MakeSpan(sample));
    } else if (stage == "batch") {
      std::memcpy(batch.data() + (k % 4) * sample.size(), sample.data(),
                  sample.size() * sizeof(float));
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Loader(benchmark::State& state, data::ImageBatchLoader* loader,
               std::atomic<int64_t>* next, int batch) {
  std::vector<float> staged(loader->batch_elements());
  std::vector<data::StageSpan> spans;
  for (auto _ : state) {
    spans.clear();
    const absl::Status status = loader->LoadBatch(next->fetch_add(1), absl::MakeSpan(staged),
                                                  &spans);
    if (!status.ok()) {
      benchmarks::SkipWithStatus(state, status);
      return;
    }
  }
  const int64_t samples = state.iterations() * batch;
  state.SetItemsProcessed(samples);
  state.counters["per_thread"] =
      benchmark::Counter(static_cast<double>(samples), benchmark::Counter::kAvgThreadsRate);
  // ms per sample of each stage (of the last iteration's spans, averaged
  // over threads: the rates above cover every iteration).
  std::map<std::string, double> ms;
  for (const data::StageSpan& s : spans) {
    ms[data::LoaderStageName(s.stage)] +=
        std::chrono::duration<double, std::milli>(s.end - s.start).count() / batch;
  }
  for (const auto& [stage, value] : ms) {
    state.counters[stage + "_ms"] = benchmark::Counter(value, benchmark::Counter::kAvgThreads);
  }
}

int Main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) std::fputs(kUsage, stdout);
  }
  absl::StatusOr<std::map<std::string, std::string>> flags = benchmarks::ExtractFlags(
      &argc, argv, {"images", "loader_threads", "batch", "augment"});
  if (!flags.ok() || !flags->count("images")) {
    std::fprintf(stderr, "image_pipeline_benchmark: %s\n%s",
                 flags.ok() ? "--images is required" : flags.status().ToString().c_str(),
                 kUsage);
    return 2;
  }
  absl::StatusOr<std::vector<int64_t>> threads = benchmarks::ParsePositiveList(
      "loader_threads", flags->count("loader_threads") ? flags->at("loader_threads") : "1,2");
  absl::StatusOr<int64_t> batch = benchmarks::ParseInt(
      "batch", flags->count("batch") ? flags->at("batch") : "32", 1);
  const std::string augment = flags->count("augment") ? flags->at("augment") : "eval";
  if (!threads.ok() || !batch.ok() || (augment != "eval" && augment != "train")) {
    std::fprintf(stderr, "image_pipeline_benchmark: %s\n",
                 !threads.ok() ? threads.status().ToString().c_str()
                 : !batch.ok() ? batch.status().ToString().c_str()
                               : "--augment must be eval or train");
    return 2;
  }
  absl::StatusOr<std::vector<std::string>> files = data::ListImageFiles(flags->at("images"));
  if (!files.ok()) {
    std::fprintf(stderr, "image_pipeline_benchmark: %s\n", files.status().ToString().c_str());
    return 1;
  }
  int64_t pixels = 0;
  for (const std::string& f : *files) {
    absl::StatusOr<std::string> bytes = data::ReadFileBytes(f);
    if (!bytes.ok()) continue;
    absl::StatusOr<Image> image = data::DecodeImage(*bytes, f);
    if (!image.ok()) continue;  // bad files take no part in the stage cases
    pixels += int64_t{image->width} * image->height;
    set->files.push_back(f);
    set->bytes.push_back(*std::move(bytes));
    set->decoded.push_back(*std::move(image));
  }
  if (set->files.empty()) {
    std::fprintf(stderr, "image_pipeline_benchmark: no decodable image in %s\n",
                 flags->at("images").c_str());
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

  for (const char* stage : {"read", "decode", "resize", "crop", "flip", "normalize", "batch"}) {
    benchmark::RegisterBenchmark(absl::StrCat("BM_Stage/", stage).c_str(),
                                 [stage](benchmark::State& s) { BM_Stage(s, stage); })
        ->Unit(benchmark::kMicrosecond)
        ->MinTime(0.2);
  }
  data::ImageBatchLoader::Options options;
  options.transform.size = kSize;
  options.transform.resize = kResize;
  options.transform.mode = augment == "train" ? data::TransformOptions::Mode::kTrain
                                              : data::TransformOptions::Mode::kEval;
  auto* loader = new data::ImageBatchLoader(set->files, static_cast<int>(*batch), options);
  auto* next = new std::atomic<int64_t>(0);
  for (int64_t t : *threads) {
    benchmark::RegisterBenchmark(
        absl::StrCat("BM_Loader/", augment, "/batch:", *batch).c_str(),
        [loader, next, b = static_cast<int>(*batch)](benchmark::State& s) {
          BM_Loader(s, loader, next, b);
        })
        ->Threads(static_cast<int>(t))
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond)
        ->MinTime(1.0);
  }
  benchmark::AddCustomContext("images", absl::StrCat(set->files.size(), " decodable of ",
                                                     files->size(), " files in ",
                                                     flags->at("images")));
  benchmark::AddCustomContext(
      "mean_pixels", absl::StrCat(pixels / static_cast<int64_t>(set->files.size())));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace
}  // namespace switchyard

int main(int argc, char** argv) { return switchyard::Main(argc, argv); }
