#include "models/vgg.h"

#include <algorithm>
#include <cstdint>
#include <atomic>
#include <cmath>
#include <system_error>
#include <thread>
#include <vector>
#include <map>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "models/conv2d.h"
#include "models/linear.h"
#include "models/parameterless_layers.h"
#include "core/thread_limit.h"

namespace switchyard {
namespace nn {

VggConfig VggConfig::Vgg11() {
  VggConfig c;
  c.layers = {64, kPool, 128, kPool, 256, 256, kPool, 512, 512, kPool, 512, 512, kPool};
  return c;
}
VggConfig VggConfig::Vgg13() {
  VggConfig c;
  c.layers = {64, 64, kPool, 128, 128, kPool, 256, 256, kPool,
              512, 512, kPool, 512, 512, kPool};
  return c;
}
VggConfig VggConfig::Vgg16() {
  VggConfig c;
  c.layers = {64, 64, kPool, 128, 128, kPool, 256, 256, 256, kPool,
              512, 512, 512, kPool, 512, 512, 512, kPool};
  return c;
}
VggConfig VggConfig::Vgg19() {
  VggConfig c;
  c.layers = {64, 64, kPool, 128, 128, kPool, 256, 256, 256, 256, kPool,
              512, 512, 512, 512, kPool, 512, 512, 512, 512, kPool};
  return c;
}

Vgg::Vgg(const VggConfig& config, BackendRegistry& registry)
    : Module(registry), config_(config) {
  auto features = std::make_unique<Sequential>();
  int64_t channels = config.in_channels;
  Conv2dOptions same;
  same.pad_h = same.pad_w = 1;
  for (int64_t width : config.layers) {
    if (width == VggConfig::kPool) {
      features->Add(std::make_unique<MaxPool2d>(2, 2));
    } else {
      features->Add(std::make_unique<Conv2d>(channels, width, 3, 3, same));
      features->Add(std::make_unique<ReLU>());
      channels = width;
    }
  }
  features_ = static_cast<Sequential*>(RegisterChild("features", std::move(features)));
  avgpool_ = RegisterChild("avgpool", std::make_unique<AdaptiveAvgPool2d>(
                                          config.avgpool, config.avgpool));
  auto classifier = std::make_unique<Sequential>();
  classifier->Add(std::make_unique<Linear>(channels * config.avgpool * config.avgpool,
                                           config.hidden));
  classifier->Add(std::make_unique<ReLU>());
  classifier->Add(std::make_unique<Dropout>(config.dropout));
  classifier->Add(std::make_unique<Linear>(config.hidden, config.hidden));
  classifier->Add(std::make_unique<ReLU>());
  classifier->Add(std::make_unique<Dropout>(config.dropout));
  classifier->Add(std::make_unique<Linear>(config.hidden, config.num_classes));
  classifier_ = static_cast<Sequential*>(RegisterChild("classifier", std::move(classifier)));
}

absl::StatusOr<ValueId> Vgg::Trace(Graph& graph, ValueId x,
                                   const std::string& path) const {
  const Shape& in = *graph.value(x).shape;
  if (in.rank() != 4 || in.dim(1) != config_.in_channels) {
    const std::string got =
        in.rank() != 4 ? absl::StrCat("rank ", in.rank())
                       : absl::StrCat(in.dim(1), in.dim(1) == 1 ? " channel" : " channels");
    return absl::InvalidArgumentError(absl::StrCat(
        "VGG expects images [N, ", config_.in_channels, ", H, W], got ",
        in.ToString(), " (", got, "); give a batch of ", config_.in_channels,
        "-channel images in NCHW order"));
  }
  auto child = [&](const char* name) {
    return path.empty() ? std::string(name) : absl::StrCat(path, ".", name);
  };
  SY_ASSIGN_OR_RETURN(x, features_->Trace(graph, x, child("features")));
  SY_ASSIGN_OR_RETURN(x, avgpool_->Trace(graph, x, child("avgpool")));
  AttrMap flatten;  // torch.flatten(x, 1) in torchvision's forward()
  flatten.Set("start_dim", int64_t{1});
  flatten.Set("end_dim", int64_t{-1});
  x = graph.AddNode("flatten", child("flatten"), {x}, std::move(flatten));
  return classifier_->Trace(graph, x, child("classifier"));
}

namespace {

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// One block of normal draws with standard deviation `stddev` from its own
// stream: Marsaglia's polar method in float, both 24-bit uniforms of a pair
// from one 64-bit draw (no trigonometry; about 1.27 draws per pair).
void FillNormalBlock(float* out, int64_t n, float stddev, uint64_t stream) {
  uint64_t state = stream;
  constexpr float kScale = 0x1.0p-23f;  // 24-bit integers to [-1, 1)
  for (int64_t i = 0; i < n;) {
    const uint64_t bits = SplitMix64(state);
    const float u = static_cast<float>(static_cast<int32_t>(bits >> 40) - (1 << 23)) * kScale;
    const float v =
        static_cast<float>(static_cast<int32_t>((bits >> 16) & 0xffffff) - (1 << 23)) * kScale;
    const float s = u * u + v * v;
    if (s >= 1.0f || s == 0.0f) continue;
    const float m = stddev * std::sqrt(-2.0f * std::log(s) / s);
    out[i++] = u * m;
    if (i < n) out[i++] = v * m;
  }
}

}  // namespace

absl::Status Vgg::InitializeTorchvisionStyle(uint64_t seed) {
  return FillState([seed](absl::Span<const StateFill> state) -> absl::Status {
    constexpr int64_t kBlock = int64_t{1} << 20;
    struct Job {
      float* out;
      int64_t n;
      float stddev;
      uint64_t stream;
    };
    std::vector<Job> jobs;
    uint64_t index = 0;
    for (const StateFill& target : state) {
      if (target.dtype != DType::kFloat32) {
        return absl::InternalError(absl::StrCat("VGG's ", target.name, " is not float32"));
      }
      float* values = reinterpret_cast<float*>(target.bytes);
      const Shape& shape = target.shape;
      const int64_t count = shape.num_elements();
      if (target.is_buffer) {
        std::fill(values, values + count, 0.0f);
        continue;
      }
      ++index;  // each parameter's stream: its place among the parameters
      if (!absl::EndsWith(target.name, ".weight")) {
        std::fill(values, values + count, 0.0f);  // biases
        continue;
      }
      // Conv weights are [out, in, kh, kw]: fan_out = out * kh * kw.
      const float stddev =
          shape.rank() == 4
              ? std::sqrt(2.0f / static_cast<float>(shape.dim(0) * shape.dim(2) *
                                                    shape.dim(3)))
              : 0.01f;
      for (int64_t block = 0; block * kBlock < count; ++block) {
        uint64_t mix = seed ^ (index * 0x9e3779b97f4a7c15ULL);
        const uint64_t stream = SplitMix64(mix) ^ static_cast<uint64_t>(block);
        uint64_t stream_state = stream;
        jobs.push_back({values + block * kBlock, std::min(kBlock, count - block * kBlock),
                        stddev, SplitMix64(stream_state)});
      }
    }
    // The blocks on every core; the values do not depend on who drew them.
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t j; (j = next.fetch_add(1)) < jobs.size();) {
        FillNormalBlock(jobs[j].out, jobs[j].n, jobs[j].stddev, jobs[j].stream);
      }
    };
    std::vector<std::thread> threads;
    const unsigned helpers =
        static_cast<unsigned>(std::min(CoreCount(), 64)) - 1;
    try {
      for (unsigned t = 0; t < helpers && t < jobs.size(); ++t) threads.emplace_back(work);
    } catch (const std::system_error&) {
      // No more threads: the ones started and this one draw the rest.
    }
    work();
    for (std::thread& thread : threads) thread.join();
    return absl::OkStatus();
  });
}

}  // namespace nn
}  // namespace switchyard
