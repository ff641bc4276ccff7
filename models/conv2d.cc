#include "models/conv2d.h"

#include "core/status_macros.h"

namespace switchyard {
namespace nn {

Conv2d::Conv2d(int64_t in_channels, int64_t out_channels, int64_t kernel_h,
               int64_t kernel_w, Conv2dOptions options)
    : options_(options) {
  const int64_t per_group =
      options.groups > 0 ? in_channels / options.groups : in_channels;
  RegisterParameter("weight",
                    Shape({out_channels, per_group, kernel_h, kernel_w}));
  if (options_.bias) RegisterParameter("bias", Shape({out_channels}));
}

absl::StatusOr<ValueId> Conv2d::Trace(Graph& graph, ValueId x,
                                      const std::string& path) const {
  std::vector<ValueId> operands = {x};
  SY_ASSIGN_OR_RETURN(ValueId w, ParameterValue(graph, "weight", path));
  operands.push_back(w);
  if (options_.bias) {
    SY_ASSIGN_OR_RETURN(ValueId b, ParameterValue(graph, "bias", path));
    operands.push_back(b);
  }
  return graph.AddNode("conv2d", path, std::move(operands),
                       options_.ToAttrMap());
}

}  // namespace nn
}  // namespace switchyard
