#include "models/batch_norm.h"

#include "core/status_macros.h"

namespace switchyard {
namespace nn {

BatchNorm2d::BatchNorm2d(int64_t num_features, double eps)
    : num_features_(num_features) {
  attrs_.epsilon = eps;
  const Shape channels({num_features});
  RegisterParameter("weight", channels);
  RegisterParameter("bias", channels);
  RegisterBuffer("running_mean", channels);
  RegisterBuffer("running_var", channels);
  RegisterBuffer("num_batches_tracked", Shape(), DType::kInt64);
}

absl::StatusOr<ValueId> BatchNorm2d::Trace(Graph& graph, ValueId x,
                                           const std::string& path) const {
  std::vector<ValueId> operands = {x};
  for (const char* name : {"weight", "bias", "running_mean", "running_var"}) {
    SY_ASSIGN_OR_RETURN(ValueId v, ParameterValue(graph, name, path));
    operands.push_back(v);
  }
  return graph.AddNode("batch_norm", path, std::move(operands),
                       attrs_.ToAttrMap());
}

std::vector<float> BatchNorm2d::InitialValues(const std::string& name,
                                              const Shape& shape,
                                              std::mt19937_64& rng) const {
  // PyTorch's reset_parameters: ones and zeros, nothing drawn.
  return std::vector<float>(shape.num_elements(), name == "weight" ? 1 : 0);
}

std::vector<float> BatchNorm2d::InitialBufferValues(const std::string& name,
                                                    const Shape& shape) const {
  return std::vector<float>(shape.num_elements(),
                            name == "running_var" ? 1 : 0);
}

}  // namespace nn
}  // namespace switchyard
