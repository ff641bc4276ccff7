#include "models/parameterless_layers.h"

namespace switchyard {
namespace nn {

absl::StatusOr<ValueId> ReLU::Trace(Graph& graph, ValueId x,
                                    const std::string& path) const {
  return graph.AddNode("relu", path, {x}, AttrMap());
}

absl::StatusOr<ValueId> MaxPool2d::Trace(Graph& graph, ValueId x,
                                         const std::string& path) const {
  return graph.AddNode("max_pool2d", path, {x}, options_.ToAttrMap());
}

absl::StatusOr<ValueId> AdaptiveAvgPool2d::Trace(
    Graph& graph, ValueId x, const std::string& path) const {
  return graph.AddNode("adaptive_avg_pool2d", path, {x}, attrs_.ToAttrMap());
}

absl::StatusOr<ValueId> Flatten::Trace(Graph& graph, ValueId x,
                                       const std::string& path) const {
  return graph.AddNode("flatten", path, {x}, attrs_.ToAttrMap());
}

absl::StatusOr<ValueId> Dropout::Trace(Graph& graph, ValueId x,
                                       const std::string& path) const {
  return graph.AddNode("dropout", path, {x}, attrs_.ToAttrMap());
}

absl::StatusOr<ValueId> Softmax::Trace(Graph& graph, ValueId x,
                                       const std::string& path) const {
  return graph.AddNode("softmax", path, {x}, attrs_.ToAttrMap());
}

}  // namespace nn
}  // namespace switchyard
