// VGG11's eight 3x3 convolutions (each with its bias and fused ReLU, as the
// model runs them) on cpu:0 under every cpu.conv_algorithm: median and
// fastest ms (the fastest is the one to trust on a shared machine),
// direct-equivalent GFLOP/s (2 * C * 9 * O * H * W per image, whatever the
// algorithm computes) and its share of the FMA peak given by --peak_gflops
// (measure it with //benchmarks:fma_peak_benchmark at the same thread
// count). A binary, not a test: speed is measured, never asserted.
//
//   bazel run -c opt //benchmarks:fma_peak_benchmark
//   bazel run -c opt //benchmarks:conv_layers_benchmark -- --threads=2
//       --batch=1 --peak_gflops=175

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/tensor.h"

ABSL_FLAG(int32_t, threads, 2, "cpu.threads");
ABSL_FLAG(int32_t, batch, 1, "images per run");
ABSL_FLAG(int32_t, iterations, 7, "timed runs per layer (after 2 warm-up)");
ABSL_FLAG(double, peak_gflops, 0,
          "FMA peak at --threads from fma_peak_benchmark; 0: no share column");
ABSL_FLAG(std::string, algorithms, "direct,winograd2,winograd4,auto",
          "cpu.conv_algorithm values to run");

namespace switchyard {
namespace {

struct Layer {
  const char* name;
  int64_t c, o, hw;
};

// torchvision's vgg11 features at 224x224.
constexpr Layer kVgg11[] = {
    {"features.0", 3, 64, 224},    {"features.3", 64, 128, 112},
    {"features.6", 128, 256, 56},  {"features.8", 256, 256, 56},
    {"features.11", 256, 512, 28}, {"features.13", 512, 512, 28},
    {"features.16", 512, 512, 14}, {"features.18", 512, 512, 14},
};

std::vector<float> Random(int64_t n, float scale, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

int Main() {
  BackendRegistry& registry = BackendRegistry::Global();
  const int threads = absl::GetFlag(FLAGS_threads);
  const int64_t batch = absl::GetFlag(FLAGS_batch);
  const double peak = absl::GetFlag(FLAGS_peak_gflops);
  if (absl::Status s = registry.SetOption("cpu", "threads", absl::StrCat(threads));
      !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 2;
  }
  std::printf("VGG11 conv2d+relu layers, batch %lld, %d threads%s\n",
              static_cast<long long>(batch), threads,
              peak > 0 ? absl::StrCat(", peak ", peak, " GFLOP/s").c_str() : "");
  std::printf("%-12s %-20s %-10s %9s %9s %9s %7s  %s\n", "layer", "shape",
              "algorithm", "median ms", "min ms", "GFLOP/s", "peak",
              "kernel");
  std::mt19937 rng(0);
  std::vector<std::string> algorithms =
      absl::StrSplit(absl::GetFlag(FLAGS_algorithms), ',', absl::SkipEmpty());
  std::vector<double> totals(algorithms.size(), 0);
  for (const Layer& layer : kVgg11) {
    const Shape in({batch, layer.c, layer.hw, layer.hw});
    const Shape wt({layer.o, layer.c, 3, 3});
    const std::vector<float> x = Random(in.num_elements(), 1.0f, rng);
    const std::vector<float> w = Random(wt.num_elements(), 0.1f, rng);
    const std::vector<float> b = Random(layer.o, 0.1f, rng);
    const double flops = 2.0 * batch * layer.c * 9 * layer.o * layer.hw * layer.hw;
    for (size_t a = 0; a < algorithms.size(); ++a) {
      if (absl::Status s = registry.SetOption("cpu", "conv_algorithm", algorithms[a]);
          !s.ok()) {
        std::fprintf(stderr, "%s\n", s.ToString().c_str());
        return 2;
      }
      Graph graph;
      ValueId input = graph.AddInput("input", in, Device::Cpu());
      ValueId weight = graph.AddConstant(
          "weight", *Tensor::FromVector(wt, w, Device::Cpu(), registry));
      ValueId bias = graph.AddConstant(
          "bias", *Tensor::FromVector(Shape({layer.o}), b, Device::Cpu(), registry));
      AttrMap attrs;
      attrs.Set("padding", std::vector<int64_t>{1, 1});
      ValueId y = graph.AddNode("conv2d", layer.name, {input, weight, bias}, attrs);
      graph.AddOutput(graph.AddNode("relu", layer.name, {y}, AttrMap()));
      absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(graph));
      if (!plan.ok()) {
        std::fprintf(stderr, "%s\n", plan.status().ToString().c_str());
        return 1;
      }
      Tensor input_tensor = *Tensor::FromVector(in, x, Device::Cpu(), registry);
      std::vector<double> ms;
      for (int i = 0; i < 2 + absl::GetFlag(FLAGS_iterations); ++i) {
        const auto begin = std::chrono::steady_clock::now();
        absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run({input_tensor});
        const auto end = std::chrono::steady_clock::now();
        if (!out.ok()) {
          std::fprintf(stderr, "%s\n", out.status().ToString().c_str());
          return 1;
        }
        if (i >= 2) ms.push_back(std::chrono::duration<double, std::milli>(end - begin).count());
      }
      std::sort(ms.begin(), ms.end());
      const double median = ms[ms.size() / 2];
      totals[a] += median;
      // GFLOP/s and share of peak from the fastest run.
      const double gflops = flops / ms.front() / 1e6;
      std::string kernel = (*plan)->KernelsToString();
      kernel = kernel.substr(kernel.find(": ") + 2);
      kernel = kernel.substr(0, kernel.find(':'));
      std::printf("%-12s %-20s %-10s %9.2f %9.2f %9.1f %6.0f%%  %s\n", layer.name,
                  absl::StrCat(layer.c, "->", layer.o, " @", layer.hw, "x", layer.hw).c_str(),
                  algorithms[a].c_str(), median, ms.front(), gflops,
                  peak > 0 ? 100 * gflops / peak : 0.0, kernel.c_str());
    }
  }
  for (size_t a = 0; a < algorithms.size(); ++a) {
    std::printf("total of medians, %-10s %9.2f ms\n", algorithms[a].c_str(), totals[a]);
  }
  return 0;
}

}  // namespace
}  // namespace switchyard

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return switchyard::Main();
}
