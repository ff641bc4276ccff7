// Google Benchmark cases for every op on every device, registered at start-up
// from the backend registry: each op alone as a one-node plan (its layer
// traced and compiled as the models do), on VGG-11's shapes, plus the copies
// between host and device memory.
//
//   BM_Conv2d/<device>/in:64x112x112/out:128/k:3/batch:1
//   BM_Linear/<device>/in:25088/out:4096/batch:1
//   BM_MaxPool2d, BM_AdaptiveAvgPool2d, BM_ReLU, BM_Add, BM_Softmax,
//   BM_Flatten, BM_Dropout                         (every op in ops/, see kWorkloads)
//   BM_CopyH2D/<device>/bytes:602112, BM_CopyD2H/<device>/...
//
// Each iteration is one ExecutablePlan::Run, which synchronizes the device
// before it returns, so the timed region ends when the device is done (for
// copies, BackendDevice::Synchronize is called inside the timed region).
// Counters: GFLOP/s (OpDef::Flops, a multiply-add counts 2) and bytes/s
// (operands + weights + outputs once per run; the copy size for copies).
// Each case runs for at least 0.1 s (Google Benchmark picks the iteration
// count; --benchmark_min_time overrides), after one untimed warm-up run.
//
// Devices: --devices=cpu:0,cuda:0 or, by default, every device of every
// registered backend. A device that is not available, or a backend type
// without devices (cuda on a machine without a GPU), still registers its
// cases, and they skip with the registry's reason (SkipWithError), so the
// output says why a GPU was not measured.
//
// Flags of this binary (besides --benchmark_*):
//   --threads=N   CPU threads (the cpu backend's option cpu.threads); default
//                 all cores or SWITCHYARD_CPU_THREADS
//   --batch=N     batch size of the activations (default 1)
//   --devices=..  devices, see above
//
//   bazel build -c opt //benchmarks:op_benchmark
//   bazel-bin/benchmarks/op_benchmark --threads=2
//   bazel-bin/benchmarks/op_benchmark --benchmark_filter='BM_Conv2d/cpu:0/'

#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
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
#include "core/op_def.h"
#include "core/profiler.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "models/conv2d.h"
#include "models/linear.h"
#include "models/module.h"
#include "models/parameterless_layers.h"
#include "models/sequential.h"

namespace switchyard {
namespace {

constexpr uint64_t kSeed = 0;
constexpr double kMinTimeS = 0.1;

constexpr char kUsage[] =
    "op_benchmark flags (besides --benchmark_*):\n"
    "  --threads=N   CPU threads; default SWITCHYARD_CPU_THREADS, else all cores\n"
    "  --batch=N     batch size of the activations (default 1)\n"
    "  --devices=..  devices (cpu:0,cuda:0); default every device, missing\n"
    "                ones register cases that skip with the reason\n";

// One op on one shape: the layer that emits it (traced as the models do),
// or a hand-built graph for ops without a layer.
struct Workload {
  std::string op;      // the OpRegistry name it covers
  std::string family;  // BM_<family>
  std::string label;   // shape part of the case name, without the batch
  // The input shape at batch `batch` (the first operand).
  std::function<Shape(int64_t batch)> input_shape;
  // A module emitting the op; null for a custom graph.
  std::function<std::unique_ptr<Module>()> layer;
  // For ops without a layer: the graph, given its inputs' device and batch.
  std::function<Graph(const Device&, int64_t batch)> graph;
};

nn::Conv2dOptions Pad1() {
  nn::Conv2dOptions o;
  o.pad_h = o.pad_w = 1;
  return o;
}

Workload Conv(int64_t in, int64_t out, int64_t hw, int64_t k) {
  Workload w;
  w.op = "conv2d";
  w.family = "Conv2d";
  w.label = absl::StrCat("in:", in, "x", hw, "x", hw, "/out:", out, "/k:", k);
  w.input_shape = [=](int64_t b) { return Shape({b, in, hw, hw}); };
  w.layer = [=] {
    return std::make_unique<nn::Conv2d>(in, out, k, k,
                                        k == 3 ? Pad1() : nn::Conv2dOptions());
  };
  return w;
}

Workload Linear(int64_t in, int64_t out) {
  Workload w;
  w.op = "linear";
  w.family = "Linear";
  w.label = absl::StrCat("in:", in, "/out:", out);
  w.input_shape = [=](int64_t b) { return Shape({b, in}); };
  w.layer = [=] { return std::make_unique<nn::Linear>(in, out); };
  return w;
}

Workload Activation(const std::string& op, const std::string& family,
                    std::vector<int64_t> dims,
                    std::function<std::unique_ptr<Module>()> layer) {
  Workload w;
  w.op = op;
  w.family = family;
  w.label = absl::StrCat("shape:", absl::StrJoin(dims, "x"));
  w.input_shape = [dims](int64_t b) {
    std::vector<int64_t> d = {b};
    d.insert(d.end(), dims.begin(), dims.end());
    return Shape(d);
  };
  w.layer = std::move(layer);
  return w;
}

Workload AddWorkload(std::vector<int64_t> dims) {
  Workload w = Activation("add", "Add", dims, nullptr);
  w.graph = [input_shape = w.input_shape](const Device& device, int64_t batch) {
    Graph g;
    ValueId a = g.AddInput("a", input_shape(batch), device);
    ValueId b = g.AddInput("b", input_shape(batch), device);
    g.AddOutput(g.AddNode("add", "add", {a, b}, AttrMap()));
    return g;
  };
  return w;
}

// VGG-11's shapes (batch 1: 224x224 input), and a 1x1 convolution.
std::vector<Workload> Workloads() {
  std::vector<Workload> w = {
      Conv(3, 64, 224, 3),    // features.0
      Conv(64, 128, 112, 3),  // features.3
      Conv(256, 256, 56, 3),  // features.8
      Conv(512, 512, 14, 3),  // features.18
      Conv(256, 64, 56, 1),   // a 1x1 convolution (no im2col)
      Linear(25088, 4096),    // classifier.0
      Linear(4096, 4096),     // classifier.3
      Linear(4096, 1000),     // classifier.6
      Activation("max_pool2d", "MaxPool2d", {64, 224, 224},
                 [] { return std::make_unique<nn::MaxPool2d>(2, 2); }),
      Activation("max_pool2d", "MaxPool2d", {512, 28, 28},
                 [] { return std::make_unique<nn::MaxPool2d>(2, 2); }),
      Activation("adaptive_avg_pool2d", "AdaptiveAvgPool2d", {512, 7, 7},
                 [] { return std::make_unique<nn::AdaptiveAvgPool2d>(7, 7); }),
      Activation("adaptive_avg_pool2d", "AdaptiveAvgPool2d", {512, 14, 14},
                 [] { return std::make_unique<nn::AdaptiveAvgPool2d>(7, 7); }),
      Activation("relu", "ReLU", {64, 224, 224},
                 [] { return std::make_unique<nn::ReLU>(); }),
      Activation("relu", "ReLU", {4096}, [] { return std::make_unique<nn::ReLU>(); }),
      AddWorkload({64, 224, 224}),
      Activation("softmax", "Softmax", {1000},
                 [] { return std::make_unique<nn::Softmax>(1); }),
      Activation("flatten", "Flatten", {512, 7, 7},
                 [] { return std::make_unique<nn::Flatten>(1); }),
      Activation("dropout", "Dropout", {4096},
                 [] { return std::make_unique<nn::Dropout>(0.5); }),
  };
  return w;
}

// The compiled one-node plan of a workload on a device, and its inputs.
struct OpCase {
  std::unique_ptr<ExecutablePlan> plan;
  std::vector<Tensor> inputs;
  int64_t flops = 0;
  int64_t bytes = 0;
};

absl::StatusOr<std::unique_ptr<OpCase>> Prepare(const Workload& w,
                                                const Device& device,
                                                int64_t batch,
                                                BackendRegistry& registry) {
  SY_RETURN_IF_ERROR(registry.GetDevice(device).status());
  Graph graph;
  if (w.layer) {
    nn::Sequential net(registry);
    net.Add(w.layer());
    SY_RETURN_IF_ERROR(net.To(device));
    SY_RETURN_IF_ERROR(net.InitializeParameters(kSeed));
    SY_ASSIGN_OR_RETURN(graph, net.TraceGraph(w.input_shape(batch), device));
  } else {
    graph = w.graph(device, batch);
  }
  std::vector<std::pair<Shape, DType>> signature;
  for (ValueId id : graph.inputs()) {
    signature.emplace_back(*graph.value(id).shape, graph.value(id).dtype);
  }
  CompileOptions options;
  options.backends = &registry;
  auto c = std::make_unique<OpCase>();
  SY_ASSIGN_OR_RETURN(c->plan, Compile(std::move(graph), options));
  for (const Node& node : c->plan->graph().nodes()) {
    SY_ASSIGN_OR_RETURN(int64_t flops, NodeFlops(c->plan->graph(), node));
    c->flops += flops;
    c->bytes += NodeBytes(c->plan->graph(), node);
  }
  uint64_t seed = kSeed + 1;
  for (const auto& [shape, dtype] : signature) {
    SY_ASSIGN_OR_RETURN(Tensor t, benchmarks::RandomTensor(shape, dtype, device,
                                                           seed++, registry));
    c->inputs.push_back(std::move(t));
  }
  SY_RETURN_IF_ERROR(c->plan->Run(c->inputs).status());  // warm-up
  return c;
}

void BM_Op(benchmark::State& state, const Workload& w, const Device& device,
           int64_t batch, BackendRegistry& registry) {
  // Built here, not at registration: only the cases that run pay for them.
  absl::StatusOr<std::unique_ptr<OpCase>> c = Prepare(w, device, batch, registry);
  if (!c.ok()) return benchmarks::SkipWithStatus(state, c.status());
  for (auto _ : state) {
    // Run returns after the device has finished (it synchronizes).
    absl::StatusOr<std::vector<Tensor>> out = (*c)->plan->Run((*c)->inputs);
    if (!out.ok()) {
      benchmarks::SkipWithStatus(state, out.status());
      break;
    }
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      static_cast<double>((*c)->flops) * 1e-9,
      benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] = benchmark::Counter(
      static_cast<double>((*c)->bytes), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Copy(benchmark::State& state, bool to_device, const Device& device,
             int64_t elements, BackendRegistry& registry) {
  absl::StatusOr<BackendDevice*> dev = registry.GetDevice(device);
  if (!dev.ok()) return benchmarks::SkipWithStatus(state, dev.status());
  absl::StatusOr<Tensor> t =
      benchmarks::RandomTensor(Shape({elements}), DType::kFloat32, device, kSeed,
                               registry);
  if (!t.ok()) return benchmarks::SkipWithStatus(state, t.status());
  std::vector<float> host(elements, 1.0f);
  const size_t bytes = elements * sizeof(float);
  for (auto _ : state) {
    absl::Status status =
        to_device ? (*dev)->CopyFromHost(host.data(), *t->buffer(), bytes)
                  : (*dev)->CopyToHost(*t->buffer(), host.data(), bytes);
    if (status.ok()) status = (*dev)->Synchronize();
    if (!status.ok()) {
      benchmarks::SkipWithStatus(state, status);
      break;
    }
  }
  state.counters["bytes/s"] = benchmark::Counter(
      static_cast<double>(bytes), benchmark::Counter::kIsIterationInvariantRate);
}

int Main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) std::fputs(kUsage, stdout);
  }
  absl::StatusOr<std::map<std::string, std::string>> flags =
      benchmarks::ExtractFlags(&argc, argv, {"threads", "batch", "devices"});
  int64_t threads = 0, batch = 1;
  absl::Status status = flags.status();
  if (status.ok() && flags->count("threads")) {
    absl::StatusOr<int64_t> v = benchmarks::ParseInt("threads", flags->at("threads"), 1);
    status = v.status();
    if (v.ok()) threads = *v;
  }
  if (status.ok() && flags->count("batch")) {
    absl::StatusOr<int64_t> v = benchmarks::ParseInt("batch", flags->at("batch"), 1);
    status = v.status();
    if (v.ok()) batch = *v;
  }
  if (!status.ok()) {
    std::fprintf(stderr, "op_benchmark: %s\n%s", std::string(status.message()).c_str(),
                 kUsage);
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

  BackendRegistry& registry = BackendRegistry::Global();
  if (threads > 0) {
    absl::Status set = registry.SetOption("cpu", "threads", absl::StrCat(threads));
    if (!set.ok()) {
      std::fprintf(stderr, "op_benchmark: --threads: %s\n", set.ToString().c_str());
      return 2;
    }
  }
  absl::StatusOr<std::vector<DeviceChoice>> devices = benchmarks::BenchmarkDevices(
      registry, flags->count("devices") ? flags->at("devices") : "");
  if (!devices.ok()) {
    std::fprintf(stderr, "op_benchmark: --devices: %s\n",
                 devices.status().ToString().c_str());
    return 2;
  }

  // Every op the registry defines has a workload ("copy", the node that moves
  // a tensor between devices, is measured as BM_CopyH2D / BM_CopyD2H).
  static const std::vector<Workload>* workloads = new std::vector<Workload>(Workloads());
  std::set<std::string> covered = {"copy"};
  for (const Workload& w : *workloads) covered.insert(w.op);
  for (const std::string& op : OpRegistry::Global().Names()) {
    if (covered.count(op) == 0) {
      std::fprintf(stderr, "op_benchmark: op '%s' has no workload yet; add one to "
                           "Workloads() in benchmarks/op_benchmark.cc\n", op.c_str());
    }
  }

  std::vector<std::string> names;
  for (const DeviceChoice& choice : *devices) {
    names.push_back(choice.name);
    // A type without devices ("cuda") stands for its first device; the cases
    // are named after the type and skip with the registry's reason.
    const Device device = choice.device.value_or(*Device::Parse(choice.name));
    if (!choice.available()) {
      std::fprintf(stderr, "op_benchmark: %s cases will skip: %s\n",
                   choice.name.c_str(), choice.unavailable_reason.c_str());
    }
    for (const Workload& w : *workloads) {
      benchmark::RegisterBenchmark(
          absl::StrCat("BM_", w.family, "/", choice.name, "/", w.label, "/batch:", batch)
              .c_str(),
          [&w, device, batch, &registry](benchmark::State& state) {
            BM_Op(state, w, device, batch, registry);
          })
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond)
          ->MinTime(kMinTimeS);
    }
    for (int64_t elements : {int64_t{3 * 224 * 224}, int64_t{64 * 224 * 224}}) {
      for (bool to_device : {true, false}) {
        benchmark::RegisterBenchmark(
            absl::StrCat(to_device ? "BM_CopyH2D/" : "BM_CopyD2H/", choice.name,
                         "/bytes:", elements * 4)
                .c_str(),
            [to_device, device, elements, &registry](benchmark::State& state) {
              BM_Copy(state, to_device, device, elements, registry);
            })
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond)
            ->MinTime(kMinTimeS);
      }
    }
  }
  benchmark::AddCustomContext("switchyard_devices", absl::StrJoin(names, ","));
  benchmark::AddCustomContext(
      "switchyard_cpu_threads",
      registry.GetOption("cpu", "threads").value_or("?"));
  benchmark::AddCustomContext("switchyard_batch", absl::StrCat(batch));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace
}  // namespace switchyard

int main(int argc, char** argv) { return switchyard::Main(argc, argv); }
