#include "core/op_def.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace switchyard {

OpRegistry& OpRegistry::Global() {
  static OpRegistry* registry = new OpRegistry();
  return *registry;
}

absl::Status OpRegistry::Register(std::unique_ptr<OpDef> op) {
  absl::MutexLock lock(&mu_);
  const std::string name = op->name();
  if (ops_.count(name) > 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("op '", name, "' is already registered"));
  }
  ops_[name] = std::move(op);
  return absl::OkStatus();
}

absl::StatusOr<const OpDef*> OpRegistry::Find(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto it = ops_.find(name);
  if (it == ops_.end()) {
    std::vector<std::string> names;
    for (const auto& [known, def] : ops_) names.push_back(known);
    return absl::NotFoundError(absl::StrCat(
        "unknown op '", name, "'; known ops: [", absl::StrJoin(names, ", "),
        "]"));
  }
  return it->second.get();
}

std::vector<std::string> OpRegistry::Names() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> names;
  for (const auto& [name, def] : ops_) names.push_back(name);
  return names;
}

bool RegisterOp(std::unique_ptr<OpDef> op) {
  absl::Status status = OpRegistry::Global().Register(std::move(op));
  if (!status.ok()) {
    std::fprintf(stderr, "switchyard: %s\n", status.ToString().c_str());
    return false;
  }
  return true;
}

}  // namespace switchyard
