#ifndef SWITCHYARD_CORE_OPTIMIZATION_PASS_REGISTRY_H_
#define SWITCHYARD_CORE_OPTIMIZATION_PASS_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "core/pass.h"

namespace switchyard {

// The optimisation passes the standard pipeline (core/compile.h) runs
// between shape inference and placement. Core knows none of them: they
// know ops (batch-norm folding reads batch_norm's attributes), so they live
// above ops (//passes) and register themselves here at static init, from a
// library with alwayslink. Each is known by its Pass's name(), runs in
// ascending `order`, and CompileOptions can switch it off by name.
//
//   // passes/fold_batch_norm.cc
//   SY_REGISTER_OPTIMIZATION_PASS(100, FoldBatchNormPass);
//
//   for (const auto& entry : OptimizationPassRegistry::Global().Entries()) {
//     pipeline.Add(entry.make());
//   }
//
// A test can construct an empty registry of its own.
class OptimizationPassRegistry {
 public:
  using Factory = std::function<std::unique_ptr<Pass>()>;
  struct Entry {
    std::string name;
    int order = 0;
    Factory make;
  };

  // The registry Compile uses by default.
  static OptimizationPassRegistry& Global();

  // Registers the pass `make` builds under its name(); AlreadyExists when
  // a pass of that name is registered.
  absl::Status Register(int order, Factory make);
  // By ascending order, then name.
  std::vector<Entry> Entries() const;
  bool Contains(const std::string& name) const;

 private:
  mutable absl::Mutex mu_;
  std::vector<Entry> entries_ ABSL_GUARDED_BY(mu_);
};

#define SY_OPTIMIZATION_PASS_CONCAT_INNER(a, b) a##b
#define SY_OPTIMIZATION_PASS_CONCAT(a, b) SY_OPTIMIZATION_PASS_CONCAT_INNER(a, b)

// Registers `PassClass` (default-constructible) in the global registry at
// static init: SY_REGISTER_OPTIMIZATION_PASS(100, FoldBatchNormPass);
#define SY_REGISTER_OPTIMIZATION_PASS(order, PassClass)                      \
  [[maybe_unused]] static const bool SY_OPTIMIZATION_PASS_CONCAT(            \
      sy_optimization_pass_registered_, __COUNTER__) =                       \
      ::switchyard::OptimizationPassRegistry::Global()                       \
          .Register((order),                                                 \
                    []() -> std::unique_ptr<::switchyard::Pass> {            \
                      return std::make_unique<PassClass>();                  \
                    })                                                       \
          .ok()

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_OPTIMIZATION_PASS_REGISTRY_H_
