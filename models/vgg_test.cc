// VGG: torchvision's parameter names and shapes, forward of a reduced VGG on
// the CPU, input checks, and the torchvision-style initialisation.

#include "models/vgg.h"

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/types/span.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/module.h"

namespace switchyard {
namespace nn {
namespace {

using ::testing::HasSubstr;

constexpr int64_t P = VggConfig::kPool;

// [8, pool, 16, pool], hidden 16, avgpool 2, 5 classes.
VggConfig Small() {
  VggConfig c;
  c.layers = {8, P, 16, P};
  c.avgpool = 2;
  c.hidden = 16;
  c.num_classes = 5;
  return c;
}

std::vector<float> Pattern(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = NormalSample(rng, 1.0f);
  return v;
}

TEST(VggTest, Vgg11ParametersMatchTorchvision) {
  Vgg vgg(VggConfig::Vgg11());
  // torchvision.models.vgg11().state_dict(): name -> shape.
  const std::vector<std::pair<std::string, Shape>> expected = {
      {"features.0.weight", Shape({64, 3, 3, 3})},
      {"features.0.bias", Shape({64})},
      {"features.3.weight", Shape({128, 64, 3, 3})},
      {"features.3.bias", Shape({128})},
      {"features.6.weight", Shape({256, 128, 3, 3})},
      {"features.6.bias", Shape({256})},
      {"features.8.weight", Shape({256, 256, 3, 3})},
      {"features.8.bias", Shape({256})},
      {"features.11.weight", Shape({512, 256, 3, 3})},
      {"features.11.bias", Shape({512})},
      {"features.13.weight", Shape({512, 512, 3, 3})},
      {"features.13.bias", Shape({512})},
      {"features.16.weight", Shape({512, 512, 3, 3})},
      {"features.16.bias", Shape({512})},
      {"features.18.weight", Shape({512, 512, 3, 3})},
      {"features.18.bias", Shape({512})},
      {"classifier.0.weight", Shape({4096, 25088})},
      {"classifier.0.bias", Shape({4096})},
      {"classifier.3.weight", Shape({4096, 4096})},
      {"classifier.3.bias", Shape({4096})},
      {"classifier.6.weight", Shape({1000, 4096})},
      {"classifier.6.bias", Shape({1000})},
  };
  EXPECT_EQ(vgg.ParameterShapes(), expected);
  EXPECT_EQ(vgg.ParameterShapes().size(), 22u);
  EXPECT_EQ(vgg.NumParameters(), 132863336);
  EXPECT_EQ(vgg.type_name(), "VGG");
}

TEST(VggTest, OtherDepthsHaveTorchvisionsParameterCounts) {
  // sum(p.numel() for p in torchvision.models.vggNN().parameters())
  EXPECT_EQ(Vgg(VggConfig::Vgg13()).NumParameters(), 133047848);
  EXPECT_EQ(Vgg(VggConfig::Vgg16()).NumParameters(), 138357544);
  EXPECT_EQ(Vgg(VggConfig::Vgg19()).NumParameters(), 143667240);
  EXPECT_EQ(Vgg(VggConfig::Vgg16()).ParameterShapes().back().first,
            "classifier.6.bias");
}

TEST(VggTest, SmallVggParameterLayout) {
  Vgg vgg(Small());
  std::vector<std::string> names;
  for (const auto& [name, shape] : vgg.ParameterShapes()) names.push_back(name);
  EXPECT_THAT(names,
              ::testing::ElementsAre(
                  "features.0.weight", "features.0.bias", "features.3.weight",
                  "features.3.bias", "classifier.0.weight", "classifier.0.bias",
                  "classifier.3.weight", "classifier.3.bias",
                  "classifier.6.weight", "classifier.6.bias"));
  // 16 channels * 2 * 2 into the first Linear.
  EXPECT_EQ(vgg.ParameterShapes()[4].second, Shape({16, 64}));
  EXPECT_EQ(vgg.ParameterShapes()[8].second, Shape({5, 16}));
}

TEST(VggTest, SmallVggForwardOnCpu) {
  Vgg vgg(Small());
  ASSERT_TRUE(vgg.InitializeTorchvisionStyle(3).ok());
  const int64_t image = 3 * 32 * 32;
  const std::vector<float> pixels = Pattern(2 * image, 17);
  absl::StatusOr<Tensor> x = Tensor::FromVector(
      {2, 3, 32, 32}, pixels, Device::Cpu(), BackendRegistry::Global());
  ASSERT_TRUE(x.ok());
  absl::StatusOr<Tensor> y = vgg.Forward(*x);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->shape(), Shape({2, 5}));
  EXPECT_EQ(y->device(), Device::Cpu());
  absl::StatusOr<std::vector<float>> batch = y->ToVector();
  ASSERT_TRUE(batch.ok());
  for (float v : *batch) EXPECT_TRUE(std::isfinite(v));

  // Each image gives the same logits alone as in the batch.
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<Tensor> xi = Tensor::FromVector(
        {1, 3, 32, 32}, absl::MakeConstSpan(pixels.data() + i * image, image),
        Device::Cpu(), BackendRegistry::Global());
    ASSERT_TRUE(xi.ok());
    absl::StatusOr<Tensor> yi = vgg.Forward(*xi);
    ASSERT_TRUE(yi.ok()) << yi.status();
    EXPECT_EQ(yi->shape(), Shape({1, 5}));
    std::vector<float> alone = *yi->ToVector();
    for (int c = 0; c < 5; ++c) {
      const float expected = (*batch)[i * 5 + c];
      EXPECT_NEAR(alone[c], expected, 1e-5f + 1e-4f * std::abs(expected))
          << "image " << i << " class " << c;
    }
  }

  // Non-square inputs work too (the adaptive pool makes 2x2 of anything >= 4).
  absl::StatusOr<Tensor> wide = Tensor::FromVector(
      {1, 3, 8, 20}, Pattern(480, 5), Device::Cpu(), BackendRegistry::Global());
  ASSERT_TRUE(wide.ok());
  absl::StatusOr<Tensor> yw = vgg.Forward(*wide);
  ASSERT_TRUE(yw.ok()) << yw.status();
  EXPECT_EQ(yw->shape(), Shape({1, 5}));
}

TEST(VggTest, RejectsInputOfWrongRank) {
  Vgg vgg(Small());
  ASSERT_TRUE(vgg.InitializeTorchvisionStyle(0).ok());
  absl::StatusOr<Tensor> x =
      Tensor::FromVector({3, 32, 32}, Pattern(3 * 32 * 32, 1), Device::Cpu(),
                         BackendRegistry::Global());
  ASSERT_TRUE(x.ok());
  absl::StatusOr<Tensor> y = vgg.Forward(*x);
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(y.status().message(),
              HasSubstr("VGG expects images [N, 3, H, W]"));
  EXPECT_THAT(y.status().message(), HasSubstr("got [3, 32, 32] (rank 3)"));
  EXPECT_THAT(y.status().message(), HasSubstr("NCHW"));
}

TEST(VggTest, RejectsInputWithWrongChannels) {
  Vgg vgg(Small());
  ASSERT_TRUE(vgg.InitializeTorchvisionStyle(0).ok());
  absl::StatusOr<Tensor> x =
      Tensor::FromVector({1, 1, 32, 32}, Pattern(32 * 32, 1), Device::Cpu(),
                         BackendRegistry::Global());
  ASSERT_TRUE(x.ok());
  absl::StatusOr<Tensor> y = vgg.Forward(*x);
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(y.status().message(),
              HasSubstr("VGG expects images [N, 3, H, W]"));
  EXPECT_THAT(y.status().message(), HasSubstr("(1 channel)"));

  // The check follows the config.
  VggConfig gray = Small();
  gray.in_channels = 1;
  Vgg gray_vgg(gray);
  ASSERT_TRUE(gray_vgg.InitializeTorchvisionStyle(0).ok());
  EXPECT_TRUE(gray_vgg.Forward(*x).ok());
  EXPECT_THAT(gray_vgg.TraceGraph(Shape({1, 3, 32, 32}), Device::Cpu())
                  .status()
                  .message(),
              HasSubstr("VGG expects images [N, 1, H, W]"));
}

TEST(VggTest, TooSmallImageFailsInShapeInferenceNamingTheLayer) {
  // Five 2x2 pools: 16 -> 8 -> 4 -> 2 -> 1 -> nothing at features.14.
  VggConfig c;
  c.layers = {4, P, 4, P, 4, P, 4, P, 4, P};
  c.avgpool = 1;
  c.hidden = 8;
  c.num_classes = 3;
  Vgg vgg(c);
  ASSERT_TRUE(vgg.InitializeTorchvisionStyle(0).ok());
  absl::StatusOr<Tensor> x =
      Tensor::FromVector({1, 3, 16, 16}, Pattern(3 * 256, 2), Device::Cpu(),
                         BackendRegistry::Global());
  ASSERT_TRUE(x.ok());
  absl::StatusOr<Tensor> y = vgg.Forward(*x);
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument)
      << y.status();
  const std::string message(y.status().message());
  EXPECT_THAT(message, HasSubstr("shape-inference"));
  EXPECT_THAT(message, HasSubstr("node 'features.14/max_pool2d'"));
  EXPECT_THAT(message, HasSubstr("layer 'features.14'"));
  EXPECT_THAT(message, HasSubstr("[1, 4, 1, 1]"));
  // 32x32 is the smallest size that works.
  absl::StatusOr<Tensor> ok =
      Tensor::FromVector({1, 3, 32, 32}, Pattern(3 * 1024, 2), Device::Cpu(),
                         BackendRegistry::Global());
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(vgg.Forward(*ok).ok());
}

// Mean and standard deviation of a parameter's values.
std::pair<double, double> Moments(const std::vector<float>& v) {
  double sum = 0, sq = 0;
  for (float x : v) sum += x;
  const double mean = sum / v.size();
  for (float x : v) sq += (x - mean) * (x - mean);
  return {mean, std::sqrt(sq / v.size())};
}

TEST(VggTest, TorchvisionStyleInitializationStatistics) {
  VggConfig c;
  c.layers = {64, P, 128, P, 32};
  c.avgpool = 2;
  c.hidden = 512;
  c.num_classes = 100;
  Vgg vgg(c);
  ASSERT_TRUE(vgg.InitializeTorchvisionStyle(42).ok());
  absl::StatusOr<std::map<std::string, HostArray>> state = vgg.StateDict();
  ASSERT_TRUE(state.ok()) << state.status();
  ASSERT_EQ(state->size(), 12u);
  for (const auto& [name, array] : *state) {
    if (absl::EndsWith(name, ".bias")) {
      for (float v : array.values()) ASSERT_EQ(v, 0.0f) << name;
      continue;
    }
    const auto [mean, stddev] = Moments(array.ToFloats());
    double expected;
    if (array.shape.rank() == 4) {
      // Kaiming normal, mode fan_out: fan_out = out_channels * kh * kw.
      expected = std::sqrt(2.0 / (array.shape.dim(0) * 9.0));
    } else {
      expected = 0.01;
    }
    EXPECT_NEAR(stddev, expected, 0.05 * expected) << name;
    EXPECT_NEAR(mean, 0.0, 0.1 * expected) << name;
  }
  // Seeded: the same seed, the same values; another seed, others.
  Vgg again(c);
  ASSERT_TRUE(again.InitializeTorchvisionStyle(42).ok());
  Vgg other(c);
  ASSERT_TRUE(other.InitializeTorchvisionStyle(43).ok());
  EXPECT_EQ(again.StateDict()->at("features.3.weight").ToFloats(),
            state->at("features.3.weight").ToFloats());
  EXPECT_NE(other.StateDict()->at("features.3.weight").ToFloats(),
            state->at("features.3.weight").ToFloats());
}

}  // namespace
}  // namespace nn
}  // namespace switchyard
