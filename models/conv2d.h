#ifndef SWITCHYARD_MODELS_CONV2D_H_
#define SWITCHYARD_MODELS_CONV2D_H_

#include <cstdint>
#include <string>

#include "models/module.h"
#include "ops/conv_attrs.h"

namespace switchyard {
namespace nn {

// The op's attributes (stride_h, pad_h, dilation_h, groups, ...; defaults
// and checks in ops/conv_attrs.h) and whether the layer has a bias.
struct Conv2dOptions : Conv2dAttrs {
  bool bias = true;
};

// torch.nn.Conv2d over NCHW. Parameters "weight"
// [out, in / groups, kernel_h, kernel_w] and, unless options.bias is false,
// "bias" [out]. Attribute checks (groups dividing channels, ...) happen in
// shape inference, with the layer's path in the error.
//
//   Conv2dOptions o; o.pad_h = o.pad_w = 1;
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
