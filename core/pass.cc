#include "core/pass.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace switchyard {

absl::StatusOr<bool> PassPipeline::Run(Graph& graph) {
  bool changed = false;
  for (const std::unique_ptr<Pass>& pass : passes_) {
    absl::StatusOr<bool> result = pass->Run(graph);
    if (!result.ok()) {
      return absl::Status(result.status().code(),
                          absl::StrCat(pass->name(), ": ",
                                       result.status().message()));
    }
    changed = changed || *result;
  }
  return changed;
}

}  // namespace switchyard
