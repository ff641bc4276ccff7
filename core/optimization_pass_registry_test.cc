// OptimizationPassRegistry and how Compile's options switch its passes, on
// a registry of toy passes (core knows no real optimisation pass).

#include "core/optimization_pass_registry.h"

#include <memory>
#include <string>
#include <vector>

#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/testing/host_backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Appends its name to `log` each time it runs; changes nothing.
class LoggingPass : public Pass {
 public:
  LoggingPass(std::string name, std::vector<std::string>* log)
      : name_(std::move(name)), log_(log) {}
  std::string name() const override { return name_; }
  absl::StatusOr<bool> Run(Graph&) override {
    log_->push_back(name_);
    return false;
  }

 private:
  std::string name_;
  std::vector<std::string>* log_;
};

class OptimizationPassRegistryTest : public ::testing::Test {
 protected:
  OptimizationPassRegistryTest() {
    EXPECT_TRUE(backends_
                    .Register("host",
                              [] { return testing::MakeHostBackend("host", 1); })
                    .ok());
  }

  absl::Status Add(OptimizationPassRegistry& registry, int order,
                   const std::string& name) {
    return registry.Register(
        order, [this, name] { return std::make_unique<LoggingPass>(name, &log_); });
  }

  // An input that is the output: nothing for shape inference or placement
  // to do, so only the optimisation passes show in the log.
  absl::Status Run(const OptimizationPassRegistry& registry,
                   CompileOptions options = CompileOptions()) {
    Graph graph;
    graph.AddOutput(
        graph.AddInput("x", Shape({2}), *Device::Create("host", 0)));
    options.backends = &backends_;
    options.optimizations = &registry;
    log_.clear();
    return InferAndPlace(graph, options);
  }

  BackendRegistry backends_;
  std::vector<std::string> log_;
};

TEST_F(OptimizationPassRegistryTest, RunsByOrderThenName) {
  OptimizationPassRegistry registry;
  ASSERT_TRUE(Add(registry, 200, "late").ok());
  ASSERT_TRUE(Add(registry, 100, "early-b").ok());
  ASSERT_TRUE(Add(registry, 100, "early-a").ok());
  std::vector<std::string> names;
  for (const auto& entry : registry.Entries()) names.push_back(entry.name);
  EXPECT_THAT(names, ElementsAre("early-a", "early-b", "late"));
  EXPECT_TRUE(registry.Contains("late"));
  EXPECT_FALSE(registry.Contains("other"));

  ASSERT_TRUE(Run(registry).ok());
  EXPECT_THAT(log_, ElementsAre("early-a", "early-b", "late"));
}

TEST_F(OptimizationPassRegistryTest, ANameRegistersOnce) {
  OptimizationPassRegistry registry;
  ASSERT_TRUE(Add(registry, 1, "twice").ok());
  absl::Status again = Add(registry, 2, "twice");
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(again.message(), HasSubstr("'twice' is registered twice"));
  EXPECT_EQ(registry.Entries().size(), 1u);
}

TEST_F(OptimizationPassRegistryTest, DisabledByName) {
  OptimizationPassRegistry registry;
  ASSERT_TRUE(Add(registry, 1, "a").ok());
  ASSERT_TRUE(Add(registry, 2, kFoldBatchNormPassName).ok());
  CompileOptions options;
  options.disabled_passes = {"a"};
  ASSERT_TRUE(Run(registry, options).ok());
  EXPECT_THAT(log_, ElementsAre(kFoldBatchNormPassName));

  // fold_batch_norm = false switches off the pass of that name.
  options.disabled_passes.clear();
  options.fold_batch_norm = false;
  ASSERT_TRUE(Run(registry, options).ok());
  EXPECT_THAT(log_, ElementsAre("a"));
}

TEST_F(OptimizationPassRegistryTest, DisablingAnUnknownPassIsAnError) {
  OptimizationPassRegistry registry;
  ASSERT_TRUE(Add(registry, 1, "a").ok());
  CompileOptions options;
  options.disabled_passes = {"typo"};
  absl::Status status = Run(registry, options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("cannot disable optimisation pass 'typo'"));
  EXPECT_THAT(status.message(), HasSubstr("registered ones are: a"));
  EXPECT_TRUE(log_.empty());
}

TEST_F(OptimizationPassRegistryTest, FoldingOffWithoutThePassIsFine) {
  // A binary that does not link //passes has no fold-batch-norm to switch.
  OptimizationPassRegistry empty;
  CompileOptions options;
  options.fold_batch_norm = false;
  EXPECT_TRUE(Run(empty, options).ok());
  EXPECT_TRUE(Run(empty).ok());
}

}  // namespace
}  // namespace switchyard
