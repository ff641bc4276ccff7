#include "models/sequential.h"

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace switchyard {
namespace nn {

Module* Sequential::Add(std::unique_ptr<Module> module) {
  return RegisterChild(absl::StrCat(children().size()), std::move(module));
}

absl::StatusOr<ValueId> Sequential::Trace(Graph& graph, ValueId x,
                                          const std::string& path) const {
  for (const auto& [name, child] : children()) {
    SY_ASSIGN_OR_RETURN(
        x, child->Trace(graph, x, path.empty() ? name : absl::StrCat(path, ".", name)));
  }
  return x;
}

}  // namespace nn
}  // namespace switchyard
