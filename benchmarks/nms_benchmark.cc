// Google Benchmark cases for non-maximum suppression: the
// non_max_suppression op on region-proposal-like boxes (1,000, 6,000 -
// Faster R-CNN's pre-NMS top-n - and 20,000 boxes, most of them jittered
// copies of a few objects, scored high near them), IoU threshold 0.7 as an
// RPN uses, every box allowed (max_output_boxes_per_class = the box count),
// one batch and one class, on every device:
//
//   BM_Nms/<device>/boxes:6000
//
// Each iteration is one ExecutablePlan::Run of the compiled one-node graph
// (inputs already on the device; the run ends when the device is done).
// Counters: kept (boxes selected, the same on every device and in
// torchvision), boxes/s.
//
// The peer: benchmarks/nms_torchvision.py times torchvision.ops.nms on the
// same boxes, which this binary writes and exits:
//
//   bazel build -c opt //benchmarks:nms_benchmark
//   bazel-bin/benchmarks/nms_benchmark --write_boxes=/tmp/nms_boxes
//   /usr/bin/python3 benchmarks/nms_torchvision.py --boxes-dir=/tmp/nms_boxes
//   bazel-bin/benchmarks/nms_benchmark --threads=1
//
// Flags (besides --benchmark_*): --threads=N (the cpu backend's threads; one
// (batch, class) runs on one thread either way), --devices=cpu:0,cuda:0,
// --write_boxes=DIR (writes DIR/nms_rpn_<N>.safetensors: boxes F32 [N, 4]
// as (x1, y1, x2, y2), scores F32 [N]; metadata iou_threshold; then exits).

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "benchmark/benchmark.h"
#include "benchmarks/bench_util.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/device_list.h"
#include "core/executable_plan.h"
#include "core/graph.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "models/safetensors.h"
#include "ops/nms_attrs.h"

namespace switchyard {
namespace {

constexpr double kIouThreshold = 0.7;
constexpr int64_t kSizes[] = {1000, 6000, 20000};

constexpr char kUsage[] =
    "nms_benchmark flags (besides --benchmark_*):\n"
    "  --threads=N        CPU threads; default SWITCHYARD_CPU_THREADS, else all cores\n"
    "  --devices=..       devices (cpu:0,cuda:0); default every device\n"
    "  --write_boxes=DIR  write the boxes for benchmarks/nms_torchvision.py, exit\n";

struct Boxes {
  std::vector<float> boxes;   // [n, 4], (x1, y1, x2, y2)
  std::vector<float> scores;  // [n]
};

// Proposals in a 1000 x 800 image: 85% around 20 objects (centers jittered
// by 15% of the object's size, sizes by exp(N(0, 0.25)), aspect ratios by
// exp(N(0, 0.3))), scored exp(-2 * distance / size) * U(0.7, 1); 15%
// anywhere, scored U(0, 0.3). Seeded, and the same with every standard
// library (mt19937_64 bits, own uniform and Box-Muller normal).
Boxes RpnBoxes(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(rng() >> 11) * 0x1p-53;
  };
  auto normal = [&](double sigma) {
    const double u1 = 1.0 - uniform(0, 1), u2 = uniform(0, 1);
    return sigma * std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * M_PI * u2);
  };
  constexpr int kObjects = 20;
  double cx[kObjects], cy[kObjects], size[kObjects];
  for (int i = 0; i < kObjects; ++i) {
    cx[i] = uniform(100, 900);
    cy[i] = uniform(100, 700);
    size[i] = uniform(40, 250);
  }
  Boxes b;
  for (int64_t i = 0; i < n; ++i) {
    const int o = static_cast<int>(rng() % kObjects);
    const bool background = uniform(0, 1) < 0.15;
    const double jx = normal(0.15) * size[o], jy = normal(0.15) * size[o];
    const double x = background ? uniform(0, 1000) : cx[o] + jx;
    const double y = background ? uniform(0, 800) : cy[o] + jy;
    const double scale = size[o] * std::exp(normal(0.25));
    const double aspect = std::exp(normal(0.3));
    const double w = scale * std::sqrt(aspect), h = scale / std::sqrt(aspect);
    b.boxes.insert(b.boxes.end(),
                   {static_cast<float>(x - w / 2), static_cast<float>(y - h / 2),
                    static_cast<float>(x + w / 2), static_cast<float>(y + h / 2)});
    const double distance = std::hypot(jx, jy) / size[o];
    b.scores.push_back(static_cast<float>(
        background ? uniform(0, 0.3) : std::exp(-2 * distance) * uniform(0.7, 1.0)));
  }
  return b;
}

absl::Status WriteBoxes(const std::string& dir) {
  for (int64_t n : kSizes) {
    const Boxes b = RpnBoxes(n, static_cast<uint64_t>(n));
    SafetensorsFile file;
    file.tensors["boxes"] = HostArray(Shape({n, 4}), b.boxes);
    file.tensors["scores"] = HostArray(Shape({n}), b.scores);
    file.metadata["iou_threshold"] = absl::StrCat(kIouThreshold);
    const std::string path = absl::StrCat(dir, "/nms_rpn_", n, ".safetensors");
    SY_RETURN_IF_ERROR(WriteSafetensors(path, file));
    std::printf("wrote %s\n", path.c_str());
  }
  return absl::OkStatus();
}

// The compiled op and its inputs on one device.
struct Prepared {
  std::unique_ptr<ExecutablePlan> plan;
  std::vector<Tensor> inputs;
};

absl::StatusOr<Prepared> Prepare(const Device& device, int64_t n,
                                 BackendRegistry& registry) {
  const Boxes b = RpnBoxes(n, static_cast<uint64_t>(n));
  Prepared p;
  SY_ASSIGN_OR_RETURN(Tensor boxes,
                      Tensor::FromVector(Shape({1, n, 4}), b.boxes, device, registry));
  SY_ASSIGN_OR_RETURN(Tensor scores,
                      Tensor::FromVector(Shape({1, 1, n}), b.scores, device, registry));
  p.inputs = {boxes, scores};
  Graph graph;
  const ValueId x = graph.AddInput("boxes", boxes.shape(), device);
  const ValueId s = graph.AddInput("scores", scores.shape(), device);
  NonMaxSuppressionAttrs attrs;
  attrs.max_output_boxes_per_class = n;
  attrs.iou_threshold = kIouThreshold;
  for (ValueId out : graph.AddNodeWithOutputs("non_max_suppression", "nms", {x, s},
                                              attrs.ToAttrMap(), 2)) {
    graph.AddOutput(out);
  }
  CompileOptions options;
  options.backends = &registry;
  SY_ASSIGN_OR_RETURN(p.plan, Compile(std::move(graph), options));
  return p;
}

void BM_Nms(benchmark::State& state, const Device& device, int64_t n,
            BackendRegistry& registry) {
  absl::StatusOr<BackendDevice*> dev = registry.GetDevice(device);
  if (!dev.ok()) return benchmarks::SkipWithStatus(state, dev.status());
  absl::StatusOr<Prepared> p = Prepare(device, n, registry);
  if (!p.ok()) return benchmarks::SkipWithStatus(state, p.status());
  int64_t kept = -1;
  // One untimed run: warm-up, and the count.
  absl::StatusOr<std::vector<Tensor>> first = p->plan->Run(p->inputs);
  if (!first.ok()) return benchmarks::SkipWithStatus(state, first.status());
  absl::StatusOr<std::vector<int64_t>> count = (*first)[1].ToHost<int64_t>();
  if (!count.ok()) return benchmarks::SkipWithStatus(state, count.status());
  kept = (*count)[0];
  for (auto _ : state) {
    absl::StatusOr<std::vector<Tensor>> out = p->plan->Run(p->inputs);
    if (!out.ok()) {
      benchmarks::SkipWithStatus(state, out.status());
      break;
    }
    benchmark::DoNotOptimize(out->data());
  }
  state.counters["kept"] = static_cast<double>(kept);
  state.counters["boxes/s"] = benchmark::Counter(
      static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
}

int Main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) std::fputs(kUsage, stdout);
  }
  absl::StatusOr<std::map<std::string, std::string>> flags =
      benchmarks::ExtractFlags(&argc, argv, {"threads", "devices", "write_boxes"});
  if (!flags.ok()) {
    std::fprintf(stderr, "nms_benchmark: %s\n%s",
                 std::string(flags.status().message()).c_str(), kUsage);
    return 2;
  }
  if (flags->count("write_boxes")) {
    absl::Status written = WriteBoxes(flags->at("write_boxes"));
    if (!written.ok()) {
      std::fprintf(stderr, "nms_benchmark: %s\n", written.ToString().c_str());
      return 1;
    }
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  BackendRegistry& registry = BackendRegistry::Global();
  if (flags->count("threads")) {
    absl::StatusOr<int64_t> threads =
        benchmarks::ParseInt("threads", flags->at("threads"), 1);
    absl::Status set = threads.ok()
                           ? registry.SetOption("cpu", "threads", absl::StrCat(*threads))
                           : threads.status();
    if (!set.ok()) {
      std::fprintf(stderr, "nms_benchmark: --threads: %s\n", set.ToString().c_str());
      return 2;
    }
  }
  absl::StatusOr<std::vector<DeviceChoice>> devices = benchmarks::BenchmarkDevices(
      registry, flags->count("devices") ? flags->at("devices") : "");
  if (!devices.ok()) {
    std::fprintf(stderr, "nms_benchmark: --devices: %s\n",
                 devices.status().ToString().c_str());
    return 2;
  }
  std::vector<std::string> names;
  for (const DeviceChoice& choice : *devices) {
    names.push_back(choice.name);
    const Device device = choice.device.value_or(*Device::Parse(choice.name));
    if (!choice.available()) {
      std::fprintf(stderr, "nms_benchmark: %s cases will skip: %s\n",
                   choice.name.c_str(), choice.unavailable_reason.c_str());
    }
    for (int64_t n : kSizes) {
      benchmark::RegisterBenchmark(
          absl::StrCat("BM_Nms/", choice.name, "/boxes:", n).c_str(),
          [device, n, &registry](benchmark::State& state) {
            BM_Nms(state, device, n, registry);
          })
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond)
          ->MinTime(0.2);
    }
  }
  benchmark::AddCustomContext("switchyard_devices", absl::StrJoin(names, ","));
  benchmark::AddCustomContext("switchyard_cpu_threads",
                              registry.GetOption("cpu", "threads").value_or("?"));
  benchmark::AddCustomContext("nms_iou_threshold", absl::StrCat(kIouThreshold));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace
}  // namespace switchyard

int main(int argc, char** argv) { return switchyard::Main(argc, argv); }
