// Resource faults: an allocation the device cannot satisfy is
// ResourceExhausted, names the device and the size, leaves nothing cached
// and nothing half-changed, and the model keeps working for requests that
// fit. Two ways in: requests larger than any machine's address space (the
// allocator refuses at once, without touching memory), and a test device
// that fails its N-th allocation, for every N a compile and a run make.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_backend.h"
#include "core/backend.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "core/testing/host_backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/linear.h"
#include "models/parameterless_layers.h"
#include "models/sequential.h"
#include "models/vgg.h"

namespace switchyard {
namespace {

using ::testing::HasSubstr;

// 2^40 rows: Linear(4, 1024)'s intermediate would be 2^52 bytes (4 PiB),
// beyond the 2^47-byte user address space of x86-64, so aligned_alloc
// fails at once on any machine and under any overcommit setting.
constexpr int64_t kHugeBatch = int64_t{1} << 40;

TEST(ResourceExhaustedTest, HugeBatchFailsToCompileAndTheModelStaysUsable) {
  BackendRegistry& registry = BackendRegistry::Global();
  nn::Sequential net(registry);
  net.Add(std::make_unique<nn::Linear>(4, 1024));
  net.Add(std::make_unique<nn::ReLU>());
  net.Add(std::make_unique<nn::Linear>(1024, 2));
  ASSERT_TRUE(net.InitializeParameters(/*seed=*/0).ok());
  absl::StatusOr<Tensor> x = Tensor::FromVector(
      Shape({2, 4}), std::vector<float>{1, -2, 3, -4, 0.5, 0.25, -1, 2},
      Device::Cpu(), registry);
  ASSERT_TRUE(x.ok());
  absl::StatusOr<Tensor> before = net.Forward(*x);
  ASSERT_TRUE(before.ok()) << before.status();
  const std::vector<float> expected = *before->ToVector();

  for (int attempt = 0; attempt < 2; ++attempt) {  // the failure is not cached
    absl::StatusOr<ExecutablePlan*> plan =
        net.Compiled(Shape({kHugeBatch, 4}), Device::Cpu());
    EXPECT_EQ(plan.status().code(), absl::StatusCode::kResourceExhausted)
        << plan.status();
    EXPECT_THAT(plan.status().message(), HasSubstr("cpu:0 is out of memory: cannot allocate"));
    EXPECT_THAT(plan.status().message(),
                HasSubstr(absl::StrCat(kHugeBatch * 1024 * 4, " bytes")));
  }
  absl::StatusOr<Tensor> after = net.Forward(*x);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(*after->ToVector(), expected);

  // A tensor that large cannot be made either, with the same code.
  absl::StatusOr<Tensor> huge =
      Tensor::Empty(Shape({kHugeBatch, 1024}), DType::kFloat32, Device::Cpu(),
                    BackendRegistry::Global());
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(ResourceExhaustedTest, VggWithAnImpossibleBatchStaysUsable) {
  BackendRegistry& registry = BackendRegistry::Global();
  nn::VggConfig config;
  config.layers = {8, nn::VggConfig::kPool, 16, nn::VggConfig::kPool};
  config.avgpool = 2;
  config.hidden = 16;
  config.num_classes = 5;
  nn::Vgg vgg(config, registry);
  ASSERT_TRUE(vgg.InitializeTorchvisionStyle(0).ok());
  // Batch 2^34 of 3x32x32: the first conv's output alone is 2^49 bytes.
  absl::StatusOr<ExecutablePlan*> plan =
      vgg.Compiled(Shape({int64_t{1} << 34, 3, 32, 32}), Device::Cpu());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kResourceExhausted)
      << plan.status();
  const Shape shape({1, 3, 32, 32});
  absl::StatusOr<Tensor> x =
      Tensor::FromVector(shape, std::vector<float>(shape.num_elements(), 0.5f),
                         Device::Cpu(), registry);
  ASSERT_TRUE(x.ok());
  absl::StatusOr<Tensor> y = vgg.Forward(*x);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->shape(), Shape({1, 5}));
}

// A device of the host test backend whose allocations fail on demand:
// `fail_at` counts down the allocations still allowed (negative: never
// fail).
struct FaultPlan {
  std::atomic<int> fail_at{-1};
  std::atomic<int> failures{0};
};

class FaultyDevice : public BackendDevice {
 public:
  FaultyDevice(BackendDevice& inner, std::shared_ptr<FaultPlan> faults)
      : inner_(inner), faults_(std::move(faults)) {}
  const Device& device() const override { return inner_.device(); }
  DeviceInfo Info() const override { return inner_.Info(); }
  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t bytes) override {
    if (faults_->fail_at.load() == 0) {
      ++faults_->failures;
      return absl::ResourceExhaustedError(absl::StrCat(
          device().ToString(), " could not allocate ", bytes,
          " bytes (injected fault)"));
    }
    if (faults_->fail_at.load() > 0) --faults_->fail_at;
    return inner_.Allocate(bytes);
  }
  absl::Status CopyFromHost(const void* src, Buffer& dst,
                            size_t bytes) override {
    return inner_.CopyFromHost(src, dst, bytes);
  }
  absl::Status CopyToHost(const Buffer& src, void* dst, size_t bytes) override {
    return inner_.CopyToHost(src, dst, bytes);
  }
  absl::Status Supports(const Node& node, const Graph& graph) const override {
    return inner_.Supports(node, graph);
  }
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(
      const Node& node, const Graph& graph) override {
    return inner_.CreateKernel(node, graph);
  }

 private:
  BackendDevice& inner_;
  std::shared_ptr<FaultPlan> faults_;
};

class FaultyBackend : public Backend {
 public:
  explicit FaultyBackend(std::shared_ptr<FaultPlan> faults)
      : inner_(testing::MakeHostBackend("faulty", 1)),
        device_(inner_->GetDevice(0), std::move(faults)) {}
  std::string type() const override { return "faulty"; }
  int DeviceCount() const override { return 1; }
  BackendDevice& GetDevice(int index) override { return device_; }

 private:
  std::unique_ptr<Backend> inner_;
  FaultyDevice device_;
};

// relu -> add(itself) -> relu -> relu on faulty:0, as a Module-free graph:
// allocations for the input, two planned slots and the output.
Graph FaultyGraph() {
  const Device device = *Device::Parse("faulty:0");
  Graph graph;
  const ValueId x = graph.AddInput("input", Shape({4, 8}), device);
  const ValueId a = graph.AddNode("relu", "a", {x}, AttrMap());
  const ValueId b = graph.AddNode("add", "b", {a, a}, AttrMap());
  const ValueId c = graph.AddNode("relu", "c", {b}, AttrMap());
  graph.AddOutput(graph.AddNode("relu", "d", {c}, AttrMap()));
  return graph;
}

// Fails the 1st, 2nd, ... allocation of compiling and running; each failure
// must be ResourceExhausted, and afterwards the same plan (when it was
// built) and a fresh one must both give the right answer.
TEST(ResourceExhaustedTest, EveryAllocationFailureIsReportedAndRecoverable) {
  auto faults = std::make_shared<FaultPlan>();
  BackendRegistry registry;
  ASSERT_TRUE(registry
                  .Register("faulty",
                            [faults]() -> absl::StatusOr<std::unique_ptr<Backend>> {
                              return std::make_unique<FaultyBackend>(faults);
                            })
                  .ok());
  const Device device = *Device::Parse("faulty:0");
  std::vector<float> values(32);
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<float>(i % 5) - 2;
  }
  std::vector<float> expected;
  for (float v : values) expected.push_back(v > 0 ? 2 * v : 0);
  CompileOptions options;
  options.backends = &registry;

  bool some_step_failed = true;
  int k = 0;
  for (; some_step_failed && k < 20; ++k) {
    faults->failures = 0;
    faults->fail_at = k;
    absl::Status first_error;
    std::unique_ptr<ExecutablePlan> plan;
    absl::StatusOr<Tensor> x =
        Tensor::FromVector(Shape({4, 8}), values, device, registry);
    if (!x.ok()) {
      first_error = x.status();
    } else {
      absl::StatusOr<std::unique_ptr<ExecutablePlan>> compiled =
          Compile(FaultyGraph(), options);
      if (!compiled.ok()) {
        first_error = compiled.status();
      } else {
        plan = *std::move(compiled);
        absl::StatusOr<std::vector<Tensor>> out = plan->Run({*x});
        if (!out.ok()) first_error = out.status();
      }
    }
    some_step_failed = faults->failures.load() > 0;
    if (!some_step_failed) {
      EXPECT_TRUE(first_error.ok()) << first_error;
      break;
    }
    EXPECT_EQ(first_error.code(), absl::StatusCode::kResourceExhausted)
        << "allocation " << k << ": " << first_error;
    EXPECT_THAT(first_error.message(), HasSubstr("injected fault"));

    // Recovery: no more faults; the plan that saw the failure (if any) and
    // a new one both work.
    faults->fail_at = -1;
    absl::StatusOr<Tensor> input =
        Tensor::FromVector(Shape({4, 8}), values, device, registry);
    ASSERT_TRUE(input.ok()) << input.status();
    if (plan != nullptr) {
      absl::StatusOr<std::vector<Tensor>> again = plan->Run({*input});
      ASSERT_TRUE(again.ok()) << "allocation " << k << ": " << again.status();
      EXPECT_EQ(*(*again)[0].ToVector(), expected);
    }
    absl::StatusOr<std::unique_ptr<ExecutablePlan>> fresh =
        Compile(FaultyGraph(), options);
    ASSERT_TRUE(fresh.ok()) << fresh.status();
    absl::StatusOr<std::vector<Tensor>> out = (*fresh)->Run({*input});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(*(*out)[0].ToVector(), expected);
  }
  // Input, the intermediates' workspace and output: every one of them was
  // made to fail once.
  EXPECT_GE(k, 3);
  EXPECT_FALSE(some_step_failed) << "still failing after " << k << " steps";
}

// The same through Module::Forward: a failed run leaves a cached plan that
// the next Forward uses successfully.
TEST(ResourceExhaustedTest, ForwardRecoversAfterAFailedRun) {
  auto faults = std::make_shared<FaultPlan>();
  BackendRegistry registry;
  ASSERT_TRUE(registry
                  .Register("faulty",
                            [faults]() -> absl::StatusOr<std::unique_ptr<Backend>> {
                              return std::make_unique<FaultyBackend>(faults);
                            })
                  .ok());
  const Device device = *Device::Parse("faulty:0");
  nn::Sequential net(registry);
  net.Add(std::make_unique<nn::ReLU>());
  net.Add(std::make_unique<nn::ReLU>());
  ASSERT_TRUE(net.To(device).ok());
  absl::StatusOr<Tensor> x = Tensor::FromVector(
      Shape({3}), std::vector<float>{-1, 2, -3}, device, registry);
  ASSERT_TRUE(x.ok());
  ASSERT_TRUE(net.Compiled(Shape({3}), device).ok());  // slot allocated
  faults->fail_at = 0;  // the run's output allocation fails
  absl::StatusOr<Tensor> failed = net.Forward(*x);
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kResourceExhausted)
      << failed.status();
  faults->fail_at = -1;
  absl::StatusOr<Tensor> y = net.Forward(*x);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(*y->ToVector(), std::vector<float>({0, 2, 0}));
}

}  // namespace
}  // namespace switchyard
