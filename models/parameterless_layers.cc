#include "models/parameterless_layers.h"

namespace switchyard {
namespace nn {

absl::StatusOr<ValueId> ReLU::Trace(Graph& graph, ValueId x,
                                    const std::string& path) const {
  return graph.AddNode("relu", path, {x}, AttrMap());
}

MaxPool2d::MaxPool2d(int64_t kernel, int64_t stride) {
  options_.kernel_h = options_.kernel_w = kernel;
  options_.stride_h = options_.stride_w = stride;
}

absl::StatusOr<ValueId> MaxPool2d::Trace(Graph& graph, ValueId x,
                                         const std::string& path) const {
  const MaxPool2dOptions& o = options_;
  AttrMap attrs;
  attrs.Set("kernel_size", std::vector<int64_t>{o.kernel_h, o.kernel_w});
  attrs.Set("stride", std::vector<int64_t>{o.stride_h < 0 ? o.kernel_h : o.stride_h,
                                           o.stride_w < 0 ? o.kernel_w : o.stride_w});
  attrs.Set("padding", std::vector<int64_t>{o.padding_h, o.padding_w});
  attrs.Set("dilation", std::vector<int64_t>{o.dilation_h, o.dilation_w});
  attrs.Set("ceil_mode", o.ceil_mode);
  return graph.AddNode("max_pool2d", path, {x}, std::move(attrs));
}

absl::StatusOr<ValueId> AdaptiveAvgPool2d::Trace(Graph& graph, ValueId x,
                                                 const std::string& path) const {
  AttrMap attrs;
  attrs.Set("output_size", std::vector<int64_t>{output_h_, output_w_});
  return graph.AddNode("adaptive_avg_pool2d", path, {x}, std::move(attrs));
}

absl::StatusOr<ValueId> Flatten::Trace(Graph& graph, ValueId x,
                                       const std::string& path) const {
  AttrMap attrs;
  attrs.Set("start_dim", start_dim_);
  attrs.Set("end_dim", end_dim_);
  return graph.AddNode("flatten", path, {x}, std::move(attrs));
}

absl::StatusOr<ValueId> Dropout::Trace(Graph& graph, ValueId x,
                                       const std::string& path) const {
  AttrMap attrs;
  attrs.Set("p", p_);
  return graph.AddNode("dropout", path, {x}, std::move(attrs));
}

absl::StatusOr<ValueId> Softmax::Trace(Graph& graph, ValueId x,
                                       const std::string& path) const {
  AttrMap attrs;
  attrs.Set("dim", dim_);
  return graph.AddNode("softmax", path, {x}, std::move(attrs));
}

}  // namespace nn
}  // namespace switchyard
