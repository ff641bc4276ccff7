#ifndef SWITCHYARD_MODELS_CONV2D_H_
#define SWITCHYARD_MODELS_CONV2D_H_

#include <cstdint>
#include <string>

#include "models/module.h"

namespace switchyard {
namespace nn {

struct Conv2dOptions {
  int64_t stride_h = 1, stride_w = 1;
  int64_t padding_h = 0, padding_w = 0;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t groups = 1;
  bool bias = true;
};

// torch.nn.Conv2d over NCHW. Parameters "weight"
// [out, in / groups, kernel_h, kernel_w] and, unless options.bias is false,
// "bias" [out]. Attribute checks (groups dividing channels, ...) happen in
// shape inference, with the layer's path in the error.
//
//   Conv2dOptions o; o.padding_h = o.padding_w = 1;
//   Conv2d conv(3, 64, 3, 3, o);
class Conv2d : public Module {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, int64_t kernel_h,
         int64_t kernel_w, Conv2dOptions options = Conv2dOptions());
  std::string type_name() const override { return "Conv2d"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override;

 private:
  Conv2dOptions options_;
};

}  // namespace nn
}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_CONV2D_H_
