// The machine's single-precision FMA peak: FLOP/s of independent FMA
// chains on 1 and 2 threads (or --threads=a,b,...), built with the
// project's flags (-march=x86-64-v3: AVX2 + FMA, 8 floats per register).
// The conv2d GFLOP/s of the benchmarks are quoted as a share of this
// (docs/benchmarks.md; benchmarks/conv_layers_benchmark.cc --peak_gflops).
//
//   bazel run -c opt //benchmarks:fma_peak_benchmark
//   bazel run -c opt //benchmarks:fma_peak_benchmark -- --threads=1,2 --seconds=2
//
// Each thread runs kChains independent accumulator registers so that the
// FMA units never wait on an FMA's latency (4 cycles x 2 pipes on Zen 3
// needs at least 8 in flight); 12 fit in AVX2's 16 registers with the two
// multiplicands.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

ABSL_FLAG(std::string, threads, "1,2", "comma-separated thread counts");
ABSL_FLAG(double, seconds, 1.0, "measuring time per thread count");

namespace {

constexpr int kChains = 12;
constexpr int64_t kInnerIterations = 1 << 16;

#if defined(__AVX2__) && defined(__FMA__)
constexpr int kFloatsPerFma = 8;
constexpr const char* kIsa = "AVX2+FMA (8 floats per FMA)";

// Runs `outer` x kInnerIterations x kChains FMAs; returns a value that
// depends on all of them so the compiler keeps them.
float FmaChains(int64_t outer) {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(0.001f * i);
  const __m256 a = _mm256_set1_ps(0.999999f);
  const __m256 b = _mm256_set1_ps(1e-7f);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < kInnerIterations; ++i) {
      for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
    }
  }
  __m256 sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm256_add_ps(sum, acc[i]);
  float out[8];
  _mm256_storeu_ps(out, sum);
  return out[0] + out[7];
}
#else
constexpr int kFloatsPerFma = 1;
constexpr const char* kIsa = "scalar (no AVX2+FMA at compile time)";

float FmaChains(int64_t outer) {
  float acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = 0.001f * i;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < kInnerIterations; ++i) {
      for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * 0.999999f + 1e-7f;
    }
  }
  float sum = 0;
  for (float v : acc) sum += v;
  return sum;
}
#endif

constexpr double kFlopsPerOuter =
    2.0 * kFloatsPerFma * kChains * static_cast<double>(kInnerIterations);

// GFLOP/s of `threads` threads each running FmaChains for about `seconds`.
double Measure(int threads, double seconds) {
  // Calibrate one thread's outer count to the time asked for.
  int64_t outer = 1;
  for (;;) {
    const auto begin = std::chrono::steady_clock::now();
    volatile float sink = FmaChains(outer);
    (void)sink;
    const double s = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - begin).count();
    if (s > 0.1) {
      outer = std::max<int64_t>(1, static_cast<int64_t>(outer * seconds / s));
      break;
    }
    outer *= 2;
  }
  std::vector<std::thread> workers;
  std::vector<float> sinks(threads);
  const auto begin = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] { sinks[t] = FmaChains(outer); });
  }
  for (std::thread& w : workers) w.join();
  const double s = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - begin).count();
  return threads * outer * kFlopsPerOuter / s / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  std::printf("FMA peak, %s, %d independent chains per thread, %u cores\n",
              kIsa, kChains, std::thread::hardware_concurrency());
  std::printf("threads  GFLOP/s  per thread\n");
  for (absl::string_view part :
       absl::StrSplit(absl::GetFlag(FLAGS_threads), ',', absl::SkipEmpty())) {
    int threads = 0;
    if (!absl::SimpleAtoi(part, &threads) || threads < 1) {
      std::fprintf(stderr, "--threads wants integers >= 1, got '%s'\n",
                   std::string(part).c_str());
      return 2;
    }
    const double gflops = Measure(threads, absl::GetFlag(FLAGS_seconds));
    std::printf("%7d  %7.1f  %10.1f\n", threads, gflops, gflops / threads);
  }
  return 0;
}
