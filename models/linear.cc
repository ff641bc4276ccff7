#include "models/linear.h"

#include "core/status_macros.h"

namespace switchyard {
namespace nn {

Linear::Linear(int64_t in_features, int64_t out_features, bool bias)
    : bias_(bias) {
  RegisterParameter("weight", Shape({out_features, in_features}));
  if (bias_) RegisterParameter("bias", Shape({out_features}));
}

absl::StatusOr<ValueId> Linear::Trace(Graph& graph, ValueId x,
                                      const std::string& path) const {
  std::vector<ValueId> operands = {x};
  SY_ASSIGN_OR_RETURN(ValueId w, ParameterValue(graph, "weight", path));
  operands.push_back(w);
  if (bias_) {
    SY_ASSIGN_OR_RETURN(ValueId b, ParameterValue(graph, "bias", path));
    operands.push_back(b);
  }
  return graph.AddNode("linear", path, std::move(operands), AttrMap());
}

}  // namespace nn
}  // namespace switchyard
