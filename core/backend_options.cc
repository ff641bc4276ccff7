// Backend options: the default Backend::SetOption and the registry's
// "type.key=value" entry point.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/backend.h"
#include "core/backend_registry.h"

namespace switchyard {

absl::Status Backend::SetOption(const std::string& key,
                                const std::string& value) {
  return absl::InvalidArgumentError(absl::StrCat(
      "backend '", type(), "' has no option '", key, "'; it takes no options"));
}

absl::Status BackendRegistry::SetOption(absl::string_view type,
                                        const std::string& key,
                                        const std::string& value) {
  absl::StatusOr<Backend*> backend = GetBackend(type);
  if (!backend.ok()) return backend.status();
  absl::Status status = (*backend)->SetOption(key, value);
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat("backend option ", type, ".", key, "=",
                                   value, ": ", status.message()));
}

absl::Status BackendRegistry::SetOption(absl::string_view spec) {
  const size_t dot = spec.find('.');
  const size_t equals = spec.find('=');
  if (dot == absl::string_view::npos || equals == absl::string_view::npos ||
      dot == 0 || dot > equals || equals == dot + 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "backend option '", spec,
        "' is not of the form type.key=value (for example cpu.threads=2)"));
  }
  return SetOption(spec.substr(0, dot),
                   std::string(spec.substr(dot + 1, equals - dot - 1)),
                   std::string(spec.substr(equals + 1)));
}

absl::StatusOr<std::string> BackendRegistry::GetOption(absl::string_view type,
                                                       absl::string_view key) {
  absl::StatusOr<Backend*> backend = GetBackend(type);
  if (!backend.ok()) return backend.status();
  std::vector<std::string> keys;
  for (const BackendOption& option : (*backend)->Options()) {
    if (option.key == key) return option.value;
    keys.push_back(option.key);
  }
  return absl::NotFoundError(absl::StrCat(
      "backend '", type, "' has no option '", key, "'; its options: ",
      keys.empty() ? "(none)" : absl::StrJoin(keys, ", ")));
}

}  // namespace switchyard
