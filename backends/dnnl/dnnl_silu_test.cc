// The host SiLU kernels (dnnl_silu.h) against SiLU in double precision:
// every kernel this CPU runs, lengths with and without a vector tail,
// values from -100 to 100 (both saturated ends), zeros, infinities and NaN,
// in place and not; the dnnl.silu option's names and when auto picks the
// host pass.

#include "backends/dnnl/dnnl_silu.h"

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace switchyard {
namespace onednn {
namespace {

double SiluDouble(double x) { return x / (1.0 + std::exp(-x)); }

std::vector<float> Probes(int n) {
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = -100.0f + 200.0f * i / (n - 1);
  return x;
}

using Kernel = std::function<bool(const float*, float*, int64_t)>;

void ExpectSilu(const Kernel& kernel, const std::string& name) {
  for (int n : {1, 7, 8, 15, 16, 17, 33, 4001}) {
    std::vector<float> x = Probes(std::max(n, 2));
    x.resize(n);
    std::vector<float> y(n, -1.0f);
    if (!kernel(x.data(), y.data(), n)) {
      GTEST_SKIP() << name << ": this CPU or build lacks its instructions";
    }
    for (int i = 0; i < n; ++i) {
      const double want = SiluDouble(x[i]);
      // Relative error 1e-6, and 1e-30 absolute where SiLU underflows.
      ASSERT_NEAR(y[i], want, 1e-6 * std::fabs(want) + 1e-30)
          << name << " n=" << n << " x=" << x[i];
    }
    // In place gives the same.
    std::vector<float> z = x;
    kernel(z.data(), z.data(), n);
    EXPECT_EQ(z, y) << name << " n=" << n;
  }
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> edge = {0.0f, -0.0f, inf, std::nanf(""), 1e-30f, -1e-30f, 88.0f, -88.0f,
                             1e30f, -1e30f, 3.0f, -3.0f, 0.5f, -0.5f, 20.0f, -20.0f};
  std::vector<float> out(edge.size());
  kernel(edge.data(), out.data(), static_cast<int64_t>(edge.size()));
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[2], inf) << name;
  EXPECT_TRUE(std::isnan(out[3])) << name;
  EXPECT_NEAR(out[4], 5e-31f, 1e-36f) << name;
  EXPECT_FLOAT_EQ(out[8], 1e30f) << name;
  EXPECT_NEAR(out[9], 0.0f, 1e-7f) << name;  // -1e30 * e^-87
  for (size_t i = 10; i < edge.size(); ++i) {
    EXPECT_NEAR(out[i], SiluDouble(edge[i]), 1e-6 * std::fabs(SiluDouble(edge[i])))
        << name << " x=" << edge[i];
  }
}

TEST(DnnlSiluTest, Avx512KernelMatchesDouble) { ExpectSilu(SiluAvx512, "avx512"); }
TEST(DnnlSiluTest, Avx2KernelMatchesDouble) { ExpectSilu(SiluAvx2, "avx2"); }
TEST(DnnlSiluTest, ScalarKernelMatchesDouble) {
  ExpectSilu([](const float* x, float* y, int64_t n) { SiluScalar(x, y, n); return true; },
             "scalar");
}

TEST(DnnlSiluTest, InPlaceOverManyRunsAndThreads) {
  for (int threads : {1, 2, 3}) {
    const int n = (1 << 14) * 3 + 5;  // three whole runs and a tail
    std::vector<float> x = Probes(n);
    std::vector<float> y = x;
    SiluInPlace(y.data(), n, threads);
    for (int i = 0; i < n; ++i) {
      ASSERT_NEAR(y[i], SiluDouble(x[i]), 1e-6 * std::fabs(SiluDouble(x[i])) + 1e-30)
          << "threads " << threads << " i " << i;
    }
  }
}

TEST(DnnlSiluTest, OptionNamesAndAuto) {
  for (DnnlSilu s : {DnnlSilu::kAuto, DnnlSilu::kPostOp, DnnlSilu::kHost}) {
    absl::StatusOr<DnnlSilu> parsed = ParseDnnlSilu(DnnlSiluName(s));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, s);
  }
  absl::StatusOr<DnnlSilu> bad = ParseDnnlSilu("fast");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("auto, post_op or host"), std::string::npos);
  EXPECT_FALSE(WantsHostSilu(DnnlSilu::kPostOp, int64_t{1} << 30));
  EXPECT_TRUE(WantsHostSilu(DnnlSilu::kHost, 1));
  EXPECT_FALSE(WantsHostSilu(DnnlSilu::kAuto, kHostSiluMinFloats - 1));
  // At the size, auto takes the pass exactly where the AVX-512 kernel runs.
  float probe = 1.0f;
  EXPECT_EQ(WantsHostSilu(DnnlSilu::kAuto, kHostSiluMinFloats), SiluAvx512(&probe, &probe, 1));
}

}  // namespace
}  // namespace onednn
}  // namespace switchyard
