// A model file's weights held once on dnnl:0 (core/releasable_weights.h):
// after its kernels have made their own copies, the plain parameters' memory
// is given back; a new shape and StateDict read them back from the file; a
// file changed in place or truncated is an error, not other weights.

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/plugin_loader.h"
#include "core/releasable_weights.h"
#include "core/tensor.h"
#include "models/host_array.h"
#include "gtest/gtest.h"
#include "onnx/onnx_model.h"
#include "onnx/testing/model_proto_builder.h"

namespace switchyard {
namespace {

using onnx_testing::AddInitializer;
using onnx_testing::AddNode;
using onnx_testing::AddValueInfo;
using onnx_testing::NewModel;
using onnx_testing::TmpPath;

constexpr char kPlugin[] = "backends/dnnl/libswitchyard_dnnl_plugin.so";
constexpr int64_t kIn = 512, kHidden = 512, kOut = 256;

Device Dnnl() {
  static const bool loaded = [] {
    absl::StatusOr<LoadedPlugin> plugin = LoadPlugin(kPlugin, BackendRegistry::Global());
    EXPECT_TRUE(plugin.ok()) << plugin.status();
    return plugin.ok();
  }();
  EXPECT_TRUE(loaded);
  return *Device::Parse("dnnl:0");
}

std::vector<float> Seeded(size_t n, int seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.05f, 0.05f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

// y = relu(x W1) W2, the weights 1 MiB and 512 KiB.
struct Mlp {
  std::vector<float> w1 = Seeded(kIn * kHidden, 1);
  std::vector<float> w2 = Seeded(kHidden * kOut, 2);

  std::string Save(const std::string& name) const {
    onnx::ModelProto m = NewModel(17);
    onnx::GraphProto& g = *m.mutable_graph();
    g.set_name("mlp");
    AddValueInfo(g.add_input(), "x", {-1, kIn});
    AddValueInfo(g.add_output(), "y", {-1, kOut});
    AddInitializer(g, "w1", {kIn, kHidden}, w1);
    AddInitializer(g, "w2", {kHidden, kOut}, w2);
    AddNode(g, "MatMul", {"x", "w1"}, {"h"});
    AddNode(g, "Relu", {"h"}, {"r"});
    AddNode(g, "MatMul", {"r", "w2"}, {"y"});
    const std::string path = TmpPath(name + ".onnx");
    std::FILE* f = std::fopen(path.c_str(), "wb");
    const std::string bytes = m.SerializeAsString();
    EXPECT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
    std::fclose(f);
    return path;
  }

  std::vector<float> Expected(const std::vector<float>& x, int64_t batch) const {
    std::vector<float> y(batch * kOut, 0.0f);
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<float> h(kHidden, 0.0f);
      for (int64_t k = 0; k < kIn; ++k) {
        for (int64_t j = 0; j < kHidden; ++j) h[j] += x[b * kIn + k] * w1[k * kHidden + j];
      }
      for (int64_t k = 0; k < kHidden; ++k) {
        const float r = std::max(h[k], 0.0f);
        for (int64_t j = 0; j < kOut; ++j) y[b * kOut + j] += r * w2[k * kOut + j];
      }
    }
    return y;
  }
};

// Runs `model` on a seeded batch and compares with the plain computation.
void ExpectRunsRight(OnnxModel& model, const Mlp& mlp, int64_t batch, const Device& device) {
  const std::vector<float> x = Seeded(batch * kIn, 10 + static_cast<int>(batch));
  absl::StatusOr<Tensor> in =
      Tensor::FromVector(Shape({batch, kIn}), x, device, BackendRegistry::Global());
  ASSERT_TRUE(in.ok()) << in.status();
  absl::StatusOr<std::vector<Tensor>> out = model.Run({*in});
  ASSERT_TRUE(out.ok()) << out.status();
  absl::StatusOr<std::vector<float>> y = (*out)[0].ToVector();
  ASSERT_TRUE(y.ok()) << y.status();
  const std::vector<float> want = mlp.Expected(x, batch);
  ASSERT_EQ(y->size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR((*y)[i], want[i], 1e-4f + 1e-3f * std::fabs(want[i])) << "batch " << batch;
  }
}

TEST(WeightsHeldOnceTest, PlainWeightsGoOnceTheKernelsHoldTheirOwnAndComeBackFromTheFile) {
  const Mlp mlp;
  const std::string path = mlp.Save("held_once");
  absl::StatusOr<std::unique_ptr<OnnxModel>> model = OnnxModel::Load(path);
  ASSERT_TRUE(model.ok()) << model.status();
  const Device dnnl = Dnnl();
  ASSERT_TRUE((*model)->To(dnnl).ok());

  const ReleasableWeights::Stats start = ReleasableWeights::Global().stats();
  ExpectRunsRight(**model, mlp, 1, dnnl);
  ReleasableWeights::Stats after = ReleasableWeights::Global().stats();
  EXPECT_EQ(after.released - start.released, 2);  // w1 and w2
  EXPECT_GE(after.released_bytes - start.released_bytes,
            static_cast<int64_t>((kIn * kHidden + kHidden * kOut) * 4 - 4 * 4096));

  // A new batch size compiles again: the weights are read back for it
  // (and kept from then on: the workload compiles shapes).
  ExpectRunsRight(**model, mlp, 3, dnnl);
  after = ReleasableWeights::Global().stats();
  EXPECT_EQ(after.restored - start.restored, 2);
  ExpectRunsRight(**model, mlp, 1, dnnl);  // the first plan, untouched
  ExpectRunsRight(**model, mlp, 2, dnnl);
  EXPECT_EQ(ReleasableWeights::Global().stats().restored - start.restored, 2);

  // The values as loaded, whatever their memory went through.
  absl::StatusOr<std::map<std::string, HostArray>> state = (*model)->StateDict();
  ASSERT_TRUE(state.ok()) << state.status();
  const absl::Span<const float> w1 = state->at("w1").values();
  const absl::Span<const float> w2 = state->at("w2").values();
  EXPECT_TRUE(std::equal(w1.begin(), w1.end(), mlp.w1.begin(), mlp.w1.end()));
  EXPECT_TRUE(std::equal(w2.begin(), w2.end(), mlp.w2.begin(), mlp.w2.end()));
}

TEST(WeightsHeldOnceTest, AFileChangedInPlaceIsAnErrorNotOtherWeights) {
  const Mlp mlp;
  const std::string path = mlp.Save("changed");
  absl::StatusOr<std::unique_ptr<OnnxModel>> model = OnnxModel::Load(path);
  ASSERT_TRUE(model.ok()) << model.status();
  const Device dnnl = Dnnl();
  ASSERT_TRUE((*model)->To(dnnl).ok());
  ExpectRunsRight(**model, mlp, 1, dnnl);  // w1 and w2 given back

  std::FILE* f = std::fopen(path.c_str(), "r+b");
  ASSERT_NE(f, nullptr);
  const std::vector<char> garbage(64 * 1024, 0x5a);
  std::fseek(f, 300 * 1024, SEEK_SET);  // inside w1's bytes
  std::fwrite(garbage.data(), 1, garbage.size(), f);
  std::fclose(f);
  const std::vector<float> x = Seeded(5 * kIn, 3);
  absl::StatusOr<std::vector<Tensor>> out = (*model)->Run(
      {*Tensor::FromVector(Shape({5, kIn}), x, dnnl, BackendRegistry::Global())});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kDataLoss) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), path)) << out.status();
  EXPECT_EQ((*model)->StateDict().status().code(), absl::StatusCode::kDataLoss);
  ExpectRunsRight(**model, mlp, 1, dnnl);  // compiled plans need no file

  // Truncated: the same, not a crash.
  ASSERT_EQ(truncate(path.c_str(), 1000), 0);
  out = (*model)->Run({*Tensor::FromVector(Shape({4, kIn}), Seeded(4 * kIn, 4), dnnl,
                                           BackendRegistry::Global())});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kDataLoss) << out.status();
}

TEST(WeightsHeldOnceTest, KernelsThatReadTheirWeightsKeepThem) {
  const Mlp mlp;
  const std::string path = mlp.Save("kept_on_cpu");
  absl::StatusOr<std::unique_ptr<OnnxModel>> model = OnnxModel::Load(path);
  ASSERT_TRUE(model.ok()) << model.status();
  const ReleasableWeights::Stats start = ReleasableWeights::Global().stats();
  ExpectRunsRight(**model, mlp, 2, Device::Cpu());  // cpu:0's matmul reads them
  EXPECT_EQ(ReleasableWeights::Global().stats().released, start.released);
}

}  // namespace
}  // namespace switchyard
