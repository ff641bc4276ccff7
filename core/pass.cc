#include "core/pass.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/graph_verifier.h"

namespace switchyard {

std::vector<std::string> PassPipeline::Names() const {
  std::vector<std::string> names;
  for (const std::unique_ptr<Pass>& pass : passes_) names.push_back(pass->name());
  return names;
}

absl::StatusOr<bool> PassPipeline::Run(Graph& graph) {
  if (!dump_after_.empty() && dump_after_ != "all") {
    const std::vector<std::string> names = Names();
    if (std::find(names.begin(), names.end(), dump_after_) == names.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot dump the graph after pass '", dump_after_,
          "': the pipeline's passes are ", absl::StrJoin(names, ", "),
          " (or 'all')"));
    }
  }
  bool changed = false;
  for (const std::unique_ptr<Pass>& pass : passes_) {
    absl::StatusOr<bool> result = pass->Run(graph);
    if (!result.ok()) {
      return absl::Status(result.status().code(),
                          absl::StrCat(pass->name(), ": ",
                                       result.status().message()));
    }
    changed = changed || *result;
    if (verify_) {
      absl::Status valid = VerifyGraph(graph);
      if (!valid.ok()) {
        return absl::Status(valid.code(),
                            absl::StrCat("after pass ", pass->name(), ": ",
                                         valid.message()));
      }
    }
    if (dump_to_ != nullptr &&
        (dump_after_ == "all" || dump_after_ == pass->name())) {
      std::fprintf(dump_to_, "after %s:\n%s", pass->name().c_str(),
                   graph.ToText().c_str());
    }
  }
  return changed;
}

}  // namespace switchyard
