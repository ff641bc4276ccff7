#include "core/optimization_pass_registry.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace switchyard {

OptimizationPassRegistry& OptimizationPassRegistry::Global() {
  static auto* registry = new OptimizationPassRegistry;
  return *registry;
}

absl::Status OptimizationPassRegistry::Register(int order, Factory make) {
  const std::string name = make()->name();
  absl::MutexLock lock(&mu_);
  for (const Entry& entry : entries_) {
    if (entry.name == name) {
      return absl::AlreadyExistsError(absl::StrCat(
          "optimisation pass '", name, "' is registered twice"));
    }
  }
  entries_.push_back({name, order, std::move(make)});
  return absl::OkStatus();
}

std::vector<OptimizationPassRegistry::Entry> OptimizationPassRegistry::Entries()
    const {
  std::vector<Entry> entries;
  {
    absl::MutexLock lock(&mu_);
    entries = entries_;
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) {
              return a.order != b.order ? a.order < b.order : a.name < b.name;
            });
  return entries;
}

bool OptimizationPassRegistry::Contains(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const Entry& entry) { return entry.name == name; });
}

}  // namespace switchyard
