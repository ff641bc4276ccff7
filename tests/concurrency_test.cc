// Switchyard from many threads at once: one compiled model run from 8
// threads gives exactly the single-threaded results (on the CPU, and on CUDA
// where a GPU is present); the backend registry, the plan cache
// (Module::Compiled / Forward) and the device allocators stay consistent
// under contention. Run under `--config=tsan` to prove the absence of data
// races (docs/robustness.md); without TSan it still checks the results.
//
// The contract these tests hold the code to (models/module.h): Forward and
// Compiled may be called from any number of threads; changing parameters
// (To, LoadStateDict, LoadSafetensors, Initialize*) must not overlap them.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/backend_registry.h"
#include "core/device.h"
#include "core/tensor.h"
#include "core/testing/host_backend.h"
#include "gtest/gtest.h"
#include "models/vgg.h"

namespace switchyard {
namespace {

constexpr int kThreads = 8;
constexpr int kIterations = 16;

using nn::Vgg;
using nn::VggConfig;

// A small VGG (conv, relu, max pool, adaptive average pool, flatten,
// linear, dropout): every CPU kernel, in a fraction of a second.
VggConfig SmallVgg() {
  VggConfig c;
  c.layers = {8, VggConfig::kPool, 16, VggConfig::kPool};
  c.avgpool = 2;
  c.hidden = 32;
  c.num_classes = 10;
  return c;
}

// Starts every thread at the same moment, to maximize overlap.
class StartLine {
 public:
  void Wait() {
    ready_.fetch_add(1);
    while (!go_.load()) std::this_thread::yield();
  }
  void ReleaseWhen(int threads) {
    while (ready_.load() < threads) std::this_thread::yield();
    go_.store(true);
  }

 private:
  std::atomic<int> ready_{0};
  std::atomic<bool> go_{false};
};

std::vector<float> Pixels(int64_t n, int seed) {
  std::vector<float> values(n);
  for (int64_t i = 0; i < n; ++i) {
    values[i] = static_cast<float>((i * 7919 + seed * 104729) % 2001 - 1000) /
                1000.0f;
  }
  return values;
}

class ConcurrentForwardTest : public ::testing::TestWithParam<const char*> {};

// Each thread runs its own input (batch 1, 2 or 3, so three plans are
// compiled at once into an empty cache) kIterations times through one
// model, and every result must equal, bit for bit, what a single thread got
// for that input from a second model with the same weights.
TEST_P(ConcurrentForwardTest, EightThreadsGetTheSingleThreadedResults) {
  BackendRegistry& registry = BackendRegistry::Global();
  const Device device = *Device::Parse(GetParam());
  absl::StatusOr<BackendDevice*> available = registry.GetDevice(device);
  if (!available.ok()) {
    GTEST_SKIP() << device << " is not available here: "
                 << available.status().message();
  }
  ASSERT_TRUE(registry.SetOption("cpu", "threads", "2").ok());  // the pool is shared too

  Vgg reference_model(SmallVgg(), registry);
  Vgg shared_model(SmallVgg(), registry);
  for (Vgg* model : {&reference_model, &shared_model}) {
    ASSERT_TRUE(model->InitializeTorchvisionStyle(/*seed=*/3).ok());
    ASSERT_TRUE(model->To(device).ok());
  }

  std::vector<Tensor> inputs;
  std::vector<std::vector<float>> expected;
  for (int t = 0; t < kThreads; ++t) {
    const Shape shape({t % 3 + 1, 3, 32, 32});
    absl::StatusOr<Tensor> host =
        Tensor::FromVector(shape, Pixels(shape.num_elements(), t),
                           Device::Cpu(), registry);
    ASSERT_TRUE(host.ok()) << host.status();
    absl::StatusOr<Tensor> x = host->To(device, registry);
    ASSERT_TRUE(x.ok()) << x.status();
    inputs.push_back(*x);
    absl::StatusOr<Tensor> y = reference_model.Forward(*x);
    ASSERT_TRUE(y.ok()) << y.status();
    absl::StatusOr<std::vector<float>> values = y->ToVector();
    ASSERT_TRUE(values.ok()) << values.status();
    expected.push_back(*values);
  }

  StartLine start;
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.Wait();
      for (int i = 0; i < kIterations; ++i) {
        absl::StatusOr<Tensor> y = shared_model.Forward(inputs[t]);
        if (!y.ok()) {
          errors[t] = y.status().ToString();
          return;
        }
        absl::StatusOr<std::vector<float>> values = y->ToVector();
        if (!values.ok()) {
          errors[t] = values.status().ToString();
          return;
        }
        if (*values != expected[t]) ++mismatches[t];
      }
    });
  }
  start.ReleaseWhen(kThreads);
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(errors[t], "") << "thread " << t;
    EXPECT_EQ(mismatches[t], 0)
        << "thread " << t << ": " << mismatches[t] << " of " << kIterations
        << " results differ from the single-threaded run";
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, ConcurrentForwardTest,
                         ::testing::Values("cpu:0", "cuda:0"),
                         [](const auto& info) {
                           return std::string(Device::Parse(info.param)
                                                  ->type());
                         });

// Many threads asking for the same signature get the same plan, compiled
// once; asking for different ones fills the cache without losing any.
TEST(PlanCacheTest, ConcurrentCompiledReturnsOnePlanPerSignature) {
  BackendRegistry& registry = BackendRegistry::Global();
  Vgg model(SmallVgg(), registry);
  ASSERT_TRUE(model.InitializeTorchvisionStyle(0).ok());
  StartLine start;
  std::vector<ExecutablePlan*> plans(kThreads, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.Wait();
      absl::StatusOr<ExecutablePlan*> plan =
          model.Compiled(Shape({t % 2 + 1, 3, 32, 32}), Device::Cpu());
      if (plan.ok()) plans[t] = *plan;
    });
  }
  start.ReleaseWhen(kThreads);
  for (std::thread& thread : threads) thread.join();
  std::set<ExecutablePlan*> distinct;
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_NE(plans[t], nullptr) << "thread " << t;
    EXPECT_EQ(plans[t], plans[t % 2]) << "thread " << t;
    distinct.insert(plans[t]);
  }
  EXPECT_EQ(distinct.size(), 2u);
}

// The registry creates each backend once however many threads ask first,
// and lookups, listings and registrations may overlap.
TEST(BackendRegistryTest, ConcurrentFirstUseCreatesTheBackendOnce) {
  BackendRegistry registry;
  std::atomic<int> factory_calls{0};
  ASSERT_TRUE(registry
                  .Register("slow",
                            [&]() -> absl::StatusOr<std::unique_ptr<Backend>> {
                              ++factory_calls;
                              std::this_thread::sleep_for(
                                  std::chrono::milliseconds(20));
                              return testing::MakeHostBackend("slow", 2);
                            })
                  .ok());
  ASSERT_TRUE(registry
                  .Register("broken",
                            []() -> absl::StatusOr<std::unique_ptr<Backend>> {
                              return absl::InternalError("no device");
                            })
                  .ok());
  StartLine start;
  std::vector<BackendDevice*> devices(kThreads, nullptr);
  std::vector<int> listed(kThreads, 0);
  std::vector<absl::StatusCode> broken(kThreads, absl::StatusCode::kOk);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.Wait();
      absl::StatusOr<BackendDevice*> d =
          registry.GetDevice(*Device::Parse(absl::StrCat("slow:", t % 2)));
      if (d.ok()) devices[t] = *d;
      listed[t] = static_cast<int>(registry.AvailableDevices().size());
      broken[t] = registry.GetBackend("broken").status().code();
      // Registering while others look up: each thread its own new type.
      (void)registry.Register(absl::StrCat("extra", t), [] {
        return absl::StatusOr<std::unique_ptr<Backend>>(
            testing::MakeHostBackend("extra", 1));
      });
    });
  }
  start.ReleaseWhen(kThreads);
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(factory_calls.load(), 1);
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_NE(devices[t], nullptr) << "thread " << t;
    EXPECT_EQ(devices[t], devices[t % 2]) << "thread " << t;
    EXPECT_GE(listed[t], 2) << "thread " << t;
    EXPECT_EQ(broken[t], absl::StatusCode::kUnavailable) << "thread " << t;
  }
  EXPECT_NE(devices[0], devices[1]);
  EXPECT_EQ(registry.Types().size(), 2u + kThreads);
}

// The CPU allocator and host copies from 8 threads: every tensor keeps its
// own contents, across sizes from empty to a few MB.
TEST(AllocatorTest, ConcurrentAllocationsKeepTheirContents) {
  BackendRegistry& registry = BackendRegistry::Global();
  StartLine start;
  std::vector<int> bad(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.Wait();
      std::vector<Tensor> live;
      for (int i = 0; i < 60; ++i) {
        const int64_t n = (i * 131 + t * 17) % 5 == 0 ? 0 : (i * 997 + t) % 300'000;
        const std::vector<float> values = Pixels(n, t * 100 + i);
        absl::StatusOr<Tensor> x = Tensor::FromVector(
            Shape({n}), values, Device::Cpu(), registry);
        if (!x.ok()) {
          ++bad[t];
          continue;
        }
        live.push_back(*x);  // keep some alive while others are allocated
        if (live.size() > 4) live.erase(live.begin());
        absl::StatusOr<std::vector<float>> back = x->ToVector();
        if (!back.ok() || *back != values) ++bad[t];
      }
    });
  }
  start.ReleaseWhen(kThreads);
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(bad[t], 0) << "thread " << t;
}

// Changing the CPU thread count while models run affects only plans
// compiled afterwards; running ones keep their pool and finish correctly.
TEST(CpuThreadsTest, SetCpuThreadsWhileRunning) {
  BackendRegistry& registry = BackendRegistry::Global();
  Vgg model(SmallVgg(), registry);
  ASSERT_TRUE(model.InitializeTorchvisionStyle(1).ok());
  const Shape shape({1, 3, 32, 32});
  absl::StatusOr<Tensor> x =
      Tensor::FromVector(shape, Pixels(shape.num_elements(), 9), Device::Cpu(),
                         registry);
  ASSERT_TRUE(x.ok());
  absl::StatusOr<Tensor> y = model.Forward(*x);
  ASSERT_TRUE(y.ok()) << y.status();
  const std::vector<float> expected = *y->ToVector();

  std::atomic<bool> done{false};
  std::thread toggler([&] {
    int threads = 1;
    while (!done.load()) {
      (void)registry.SetOption("cpu", "threads", std::to_string(threads));
      threads = threads % 3 + 1;
      std::this_thread::yield();
    }
  });
  std::vector<std::thread> runners;
  std::vector<int> bad(4, 0);
  for (int t = 0; t < 4; ++t) {
    runners.emplace_back([&, t] {
      for (int i = 0; i < 4; ++i) {
        absl::StatusOr<Tensor> out = model.Forward(*x);
        if (!out.ok() || *out->ToVector() != expected) ++bad[t];
      }
    });
  }
  for (std::thread& r : runners) r.join();
  done.store(true);
  toggler.join();
  ASSERT_TRUE(registry.SetOption("cpu", "threads", "2").ok());
  for (int t = 0; t < 4; ++t) EXPECT_EQ(bad[t], 0) << "runner " << t;
}

}  // namespace
}  // namespace switchyard
