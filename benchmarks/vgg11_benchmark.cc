// Google Benchmark cases for VGG-11 inference, registered at start-up for
// every device the linked backends offer (today cpu:0; a CUDA backend adds
// cuda:N without a change here: the model and its input are moved with
// To(device), and ExecutablePlan::Run synchronizes the device before it
// returns, so wall-clock time is the device's time).
//
//   BM_Vgg11/<device>/batch:<N>
//       Module::Forward of VGG-11 (torchvision-style init, seed 0) on a
//       random N x 3 x 224 x 224 input. Each repetition is one forward and
//       the median over repetitions is reported (as the PyTorch peer,
//       benchmarks/pytorch_vgg11_cpu.py, reports the median of single
//       forwards). Counters: GFLOP/s (the sum of OpDef::Flops over the
//       plan's nodes, per second of wall time) and images/s.
//   BM_Vgg11Layer/<device>/<node>/batch:<N>
//       Each node of the compiled VGG-11 graph ("features.0/conv2d", ...)
//       lowered alone as a one-node plan, on a random input of its real
//       shape and the model's own weights; median of 5 repetitions of at
//       least 0.05 s each. Counters: GFLOP/s and bytes/s (bytes = activation
//       input + weights + output, once per run).
//
// With default flags the whole binary takes about 30 s on 2 cores (model
// set-up ~4 s, BM_Vgg11 ~10 s, the ~30 per-layer cases ~16 s).
//
// Flags of this binary (removed from argv before Google Benchmark parses it;
// every --benchmark_* flag works as usual):
//   --threads=N        CPU threads (option cpu.threads, before anything is
//                      compiled); default: SWITCHYARD_CPU_THREADS, else all cores
//   --backend_option=cpu.fusion=off,...
//                      backend options (type.key=value, comma-separated),
//                      set after --threads and before anything is compiled
//   --batches=1,8      batch sizes of the BM_Vgg11 cases
//   --layer_batch=1    batch size of the BM_Vgg11Layer cases; 0: none
//   --repetitions=10   forwards timed per BM_Vgg11 case (one per repetition)
//   --devices=cpu:0,.. devices to register; default: every device of every
//                      registered backend. A device that is unavailable (or a
//                      backend type with none, e.g. cuda without a GPU)
//                      registers cases that skip with the registry's reason.
//
//   bazel build -c opt //benchmarks:vgg11_benchmark
//   bazel-bin/benchmarks/vgg11_benchmark --threads=2 --benchmark_filter='BM_Vgg11/'
//   bazel-bin/benchmarks/vgg11_benchmark --threads=2 --benchmark_filter='BM_Vgg11Layer/'

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "benchmarks/bench_util.h"
#include "benchmark/benchmark.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/device_list.h"
#include "core/executable_plan.h"
#include "core/graph.h"
#include "core/op_def.h"
#include "core/profiler.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "models/model_zoo.h"
#include "models/module.h"

namespace switchyard {
namespace {

constexpr char kModel[] = "vgg11";
constexpr uint64_t kModelSeed = 0;
// Untimed forwards after compiling, before the first timed one; the same
// as the PyTorch peer's default --warmup.
constexpr int kWarmupForwards = 2;
// Per-layer cases: a layer runs for at least this long per repetition
// (Google Benchmark grows the iteration count), median of the repetitions.
// About 30 nodes x 5 x 0.05 s keeps all of them near 10-20 s.
constexpr double kLayerMinTimeS = 0.05;
constexpr int kLayerRepetitions = 5;

constexpr char kUsage[] =
    "vgg11_benchmark flags (besides --benchmark_*):\n"
    "  --threads=N        CPU threads; default SWITCHYARD_CPU_THREADS, else all cores\n"
    "  --backend_option=TYPE.KEY=VALUE,...  backend options, e.g. cpu.fusion=off\n"
    "  --batches=1,8      batch sizes of the BM_Vgg11 cases\n"
    "  --layer_batch=1    batch size of the BM_Vgg11Layer cases (0: none)\n"
    "  --repetitions=10   timed forwards per BM_Vgg11 case (median reported)\n"
    "  --devices=cpu:0    devices to benchmark; default every device (missing\n"
    "                     ones register cases that skip with the reason)\n";

struct Options {
  int threads = 0;  // 0: leave the backend's default
  std::vector<std::string> backend_options;  // "cpu.fusion=off"
  std::vector<int64_t> batches = {1, 8};
  int64_t layer_batch = 1;
  int repetitions = 10;
  std::string devices;  // empty: every device (benchmarks::BenchmarkDevices)
};

// Takes this binary's own flags ("--name=value" or "--name value") out of
// argv, leaving the rest for benchmark::Initialize.
absl::StatusOr<Options> ParseOptions(int* argc, char** argv) {
  Options options;
  SY_ASSIGN_OR_RETURN(
      auto flags, benchmarks::ExtractFlags(argc, argv,
                                           {"threads", "backend_option", "batches",
                                            "layer_batch", "repetitions",
                                            "devices"}));
  for (const auto& [name, value] : flags) {
    if (name == "threads") {
      SY_ASSIGN_OR_RETURN(int64_t threads, benchmarks::ParseInt(name, value, 1));
      options.threads = static_cast<int>(threads);
    } else if (name == "backend_option") {
      options.backend_options = absl::StrSplit(value, ',', absl::SkipEmpty());
    } else if (name == "batches") {
      SY_ASSIGN_OR_RETURN(options.batches, benchmarks::ParsePositiveList(name, value));
    } else if (name == "layer_batch") {
      SY_ASSIGN_OR_RETURN(options.layer_batch, benchmarks::ParseInt(name, value, 0));
    } else if (name == "repetitions") {
      SY_ASSIGN_OR_RETURN(int64_t reps, benchmarks::ParseInt(name, value, 1));
      options.repetitions = static_cast<int>(reps);
    } else if (name == "devices") {
      options.devices = value;
    }
  }
  return options;
}

// `node` of the placed graph `graph` as a graph of its own: its constant
// operands (weights) stay bound to the model's tensors, every other operand
// becomes a graph input of the same shape, dtype and device.
Graph SingleNodeGraph(const Graph& graph, const Node& node) {
  Graph single;
  std::vector<ValueId> operands;
  for (ValueId id : node.inputs) {
    const Value& v = graph.value(id);
    if (v.constant.has_value()) {
      operands.push_back(single.AddConstant(v.name, *v.constant));
    } else {
      operands.push_back(single.AddInput(
          v.name, *v.shape, v.device.value_or(node.device.value_or(Device::Cpu())),
          v.dtype));
    }
  }
  single.AddOutput(single.AddNode(node.op, node.layer, operands, node.attrs));
  return single;
}

// What the cases of one device share: the seeded model on that device, and
// the per-case state each case creates on its first repetition, so compiling
// and warm-up stay out of the timed loop. Cases run one at a time.
class DeviceBench {
 public:
  struct ModelCase {
    Tensor input;
    int64_t flops = 0;  // per forward
  };
  struct LayerCase {
    NodeId node = -1;
    int64_t batch = 0;
    std::unique_ptr<ExecutablePlan> plan;
    std::vector<Tensor> inputs;
    int64_t flops = 0;
    int64_t bytes = 0;
  };

  // Never fails: a device or model that cannot be set up leaves status()
  // non-OK, and that device's cases skip with it.
  static std::unique_ptr<DeviceBench> Create(const Device& device,
                                             BackendRegistry& registry) {
    auto bench = std::unique_ptr<DeviceBench>(new DeviceBench(device, registry));
    bench->status_ = bench->Setup();
    return bench;
  }

  const Device& device() const { return device_; }
  const absl::Status& status() const { return status_; }

  // The placed, shape-inferred graph Forward runs for `batch` (compiled on
  // first use; Module caches the plan).
  absl::StatusOr<const Graph*> ModelGraph(int64_t batch) {
    SY_RETURN_IF_ERROR(status_);
    SY_ASSIGN_OR_RETURN(Shape shape, ModelInputShape(kModel, batch));
    SY_ASSIGN_OR_RETURN(ExecutablePlan * plan, model_->Compiled(shape, device_));
    return &plan->graph();
  }

  // Compiles, counts FLOPs and runs the warm-up forwards the first time.
  absl::StatusOr<const ModelCase*> Model(int64_t batch) {
    SY_RETURN_IF_ERROR(status_);
    for (const auto& [b, c] : model_cases_) {
      if (b == batch) return c.get();
    }
    auto c = std::make_unique<ModelCase>();
    SY_ASSIGN_OR_RETURN(const Graph* graph, ModelGraph(batch));
    for (const Node& node : graph->nodes()) {
      SY_ASSIGN_OR_RETURN(int64_t flops, NodeFlops(*graph, node));
      c->flops += flops;
    }
    SY_ASSIGN_OR_RETURN(Shape shape, ModelInputShape(kModel, batch));
    SY_ASSIGN_OR_RETURN(c->input, benchmarks::RandomTensor(shape, DType::kFloat32, device_,
                                               /*seed=*/kModelSeed + 1, registry_));
    for (int i = 0; i < kWarmupForwards; ++i) {
      SY_RETURN_IF_ERROR(model_->Forward(c->input).status());
    }
    model_cases_.emplace_back(batch, std::move(c));
    return model_cases_.back().second.get();
  }

  absl::Status Forward(const Tensor& input) {
    return model_->Forward(input).status();
  }

  // The one-node plan of `node` in the batch-`batch` graph, warmed up. Only
  // the latest one is kept: one at a time bounds memory at large batches.
  absl::StatusOr<LayerCase*> Layer(int64_t batch, NodeId node_id) {
    SY_RETURN_IF_ERROR(status_);
    if (layer_ != nullptr && layer_->batch == batch && layer_->node == node_id) {
      return layer_.get();
    }
    layer_.reset();
    SY_ASSIGN_OR_RETURN(const Graph* graph, ModelGraph(batch));
    const Node& node = graph->node(node_id);
    auto c = std::make_unique<LayerCase>();
    c->node = node_id;
    c->batch = batch;
    SY_ASSIGN_OR_RETURN(c->flops, NodeFlops(*graph, node));
    c->bytes = NodeBytes(*graph, node);
    Graph single = SingleNodeGraph(*graph, node);
    std::vector<std::pair<Shape, DType>> signature;
    for (ValueId id : single.inputs()) {
      signature.emplace_back(*single.value(id).shape, single.value(id).dtype);
    }
    CompileOptions options;
    options.backends = &registry_;
    SY_ASSIGN_OR_RETURN(c->plan, Compile(std::move(single), options));
    uint64_t seed = kModelSeed + 2;
    for (const auto& [shape, dtype] : signature) {
      SY_ASSIGN_OR_RETURN(Tensor t,
                          benchmarks::RandomTensor(shape, dtype, device_, seed++, registry_));
      c->inputs.push_back(std::move(t));
    }
    for (int i = 0; i < kWarmupForwards; ++i) {
      SY_RETURN_IF_ERROR(c->plan->Run(c->inputs).status());
    }
    layer_ = std::move(c);
    return layer_.get();
  }

 private:
  DeviceBench(const Device& device, BackendRegistry& registry)
      : device_(device), registry_(registry) {}

  absl::Status Setup() {
    SY_RETURN_IF_ERROR(registry_.GetDevice(device_).status());
    SY_ASSIGN_OR_RETURN(model_, CreateModel(kModel, registry_));
    SY_RETURN_IF_ERROR(model_->To(device_));
    return InitializeModel(*model_, kModelSeed);
  }

  Device device_;
  BackendRegistry& registry_;
  absl::Status status_;
  std::unique_ptr<Module> model_;
  std::vector<std::pair<int64_t, std::unique_ptr<ModelCase>>> model_cases_;
  std::unique_ptr<LayerCase> layer_;
};

void Skip(benchmark::State& state, const absl::Status& status) {
  benchmarks::SkipWithStatus(state, status);
}

void BM_Vgg11(benchmark::State& state, DeviceBench* bench, int64_t batch) {
  absl::StatusOr<const DeviceBench::ModelCase*> c = bench->Model(batch);
  if (!c.ok()) return Skip(state, c.status());
  for (auto _ : state) {
    // Forward returns after the device has finished (Run synchronizes).
    absl::Status status = bench->Forward((*c)->input);
    if (!status.ok()) {
      Skip(state, status);
      break;
    }
  }
  // Per-iteration amounts; Google Benchmark divides by the measured (here
  // real) time of all iterations, so these read as rates.
  state.counters["GFLOP/s"] = benchmark::Counter(
      static_cast<double>((*c)->flops) * 1e-9,
      benchmark::Counter::kIsIterationInvariantRate);
  state.counters["images/s"] = benchmark::Counter(
      static_cast<double>(batch), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Vgg11Layer(benchmark::State& state, DeviceBench* bench, int64_t batch,
                   NodeId node) {
  absl::StatusOr<DeviceBench::LayerCase*> c = bench->Layer(batch, node);
  if (!c.ok()) return Skip(state, c.status());
  for (auto _ : state) {
    absl::StatusOr<std::vector<Tensor>> out = (*c)->plan->Run((*c)->inputs);
    if (!out.ok()) {
      Skip(state, out.status());
      break;
    }
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      static_cast<double>((*c)->flops) * 1e-9,
      benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] = benchmark::Counter(
      static_cast<double>((*c)->bytes),
      benchmark::Counter::kIsIterationInvariantRate);
}

double Min(const std::vector<double>& v) {
  return *std::min_element(v.begin(), v.end());
}
double Max(const std::vector<double>& v) {
  return *std::max_element(v.begin(), v.end());
}

void RegisterCases(DeviceBench* bench, const Options& options) {
  const std::string device = bench->device().ToString();
  for (int64_t batch : options.batches) {
    // Each repetition is one forward: the median is that of single forwards.
    // DisplayAggregatesOnly: the console shows mean/median/stddev/min/max,
    // --benchmark_out files keep every repetition too.
    benchmark::RegisterBenchmark(
        absl::StrCat("BM_Vgg11/", device, "/batch:", batch).c_str(),
        [bench, batch](benchmark::State& state) { BM_Vgg11(state, bench, batch); })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1)
        ->Repetitions(options.repetitions)
        ->ComputeStatistics("min", &Min)
        ->ComputeStatistics("max", &Max)
        ->DisplayAggregatesOnly(true);
  }
  if (options.layer_batch == 0) return;
  const int64_t batch = options.layer_batch;
  absl::StatusOr<const Graph*> graph = bench->ModelGraph(batch);
  if (!graph.ok()) {
    const absl::Status status = graph.status();
    benchmark::RegisterBenchmark(
        absl::StrCat("BM_Vgg11Layer/", device, "/batch:", batch).c_str(),
        [status](benchmark::State& state) { Skip(state, status); });
    return;
  }
  for (const Node& node : (*graph)->nodes()) {
    const NodeId id = node.id;
    benchmark::RegisterBenchmark(
        absl::StrCat("BM_Vgg11Layer/", device, "/", node.name, "/batch:", batch)
            .c_str(),
        [bench, batch, id](benchmark::State& state) {
          BM_Vgg11Layer(state, bench, batch, id);
        })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond)
        ->MinTime(kLayerMinTimeS)
        ->Repetitions(kLayerRepetitions)
        ->ReportAggregatesOnly(true);  // ~30 cases: keep output files small
  }
}

int Main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) std::fputs(kUsage, stdout);
  }
  absl::StatusOr<Options> options = ParseOptions(&argc, argv);
  if (!options.ok()) {
    std::fprintf(stderr, "vgg11_benchmark: %s\n%s",
                 std::string(options.status().message()).c_str(), kUsage);
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

  BackendRegistry& registry = BackendRegistry::Global();
  // Before any model is compiled: kernels take the pool (and fusion) in
  // force when they are created.
  if (options->threads > 0) {
    absl::Status status =
        registry.SetOption("cpu", "threads", absl::StrCat(options->threads));
    if (!status.ok()) {
      std::fprintf(stderr, "vgg11_benchmark: --threads: %s\n",
                   status.ToString().c_str());
      return 2;
    }
  }
  for (const std::string& option : options->backend_options) {
    absl::Status status = registry.SetOption(option);
    if (!status.ok()) {
      std::fprintf(stderr, "vgg11_benchmark: --backend_option: %s\n",
                   status.ToString().c_str());
      return 2;
    }
  }
  // Every device (or the listed ones); one that is missing still gets cases,
  // which skip with the registry's reason.
  absl::StatusOr<std::vector<DeviceChoice>> choices =
      benchmarks::BenchmarkDevices(registry, options->devices);
  if (!choices.ok()) {
    std::fprintf(stderr, "vgg11_benchmark: --devices: %s\n",
                 choices.status().ToString().c_str());
    return 2;
  }
  std::vector<Device> devices;
  for (const DeviceChoice& choice : *choices) {
    // A type without devices ("cuda") stands for its first device.
    devices.push_back(choice.device.value_or(*Device::Parse(choice.name)));
  }
  std::vector<std::string> device_names;
  for (const Device& d : devices) device_names.push_back(d.ToString());
  benchmark::AddCustomContext("switchyard_model",
                              absl::StrCat(kModel, " (seed ", kModelSeed, ")"));
  benchmark::AddCustomContext("switchyard_devices",
                              absl::StrJoin(device_names, ","));
  benchmark::AddCustomContext(
      "switchyard_cpu_threads",
      registry.GetOption("cpu", "threads").value_or("?"));
  benchmark::AddCustomContext(
      "switchyard_cpu_fusion", registry.GetOption("cpu", "fusion").value_or("?"));
  benchmark::AddCustomContext("switchyard_warmup_forwards",
                              absl::StrCat(kWarmupForwards));

  // Owned here, alive until the benchmarks have run.
  std::vector<std::unique_ptr<DeviceBench>> benches;
  for (const Device& device : devices) {
    benches.push_back(DeviceBench::Create(device, registry));
    if (!benches.back()->status().ok()) {
      std::fprintf(stderr, "vgg11_benchmark: %s cases will skip: %s\n",
                   device.ToString().c_str(),
                   benches.back()->status().ToString().c_str());
    }
    RegisterCases(benches.back().get(), *options);
  }
  if (devices.empty()) {
    std::fprintf(stderr, "vgg11_benchmark: no device is available\n");
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace
}  // namespace switchyard

int main(int argc, char** argv) { return switchyard::Main(argc, argv); }
