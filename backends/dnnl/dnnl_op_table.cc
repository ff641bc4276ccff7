#include "backends/dnnl/dnnl_op_table.h"

#include <algorithm>

#include "backends/dnnl/dnnl_lowering.h"

namespace switchyard {
namespace onednn {
namespace {

// The table, by op name. A row is {op, supports, lower, sum_post_op,
// eltwise_post_op, norm_relu_post_op, bias_add, any_dtype, outputs,
// scalar_output}.
const std::vector<DnnlOp>& Table() {
  static const auto* table = new std::vector<DnnlOp>{
      {"adaptive_avg_pool2d", &CheckAdaptiveAvgPool2d, &LowerAdaptiveAvgPool2d},
      {"abs", &CheckUnary, &LowerUnary},
      {"add", &CheckBinary, &LowerBinary, false, /*eltwise_post_op=*/true, false, false,
       false, 1, /*scalar_output=*/true},
      {"avg_pool2d", &CheckAvgPool2d, &LowerAvgPool2d},
      {"batch_norm", &CheckBatchNorm, &LowerBatchNorm, false, false,
       /*norm_relu_post_op=*/true},
      {"cast", &CheckCast, &LowerCast, false, false, false, false, /*any_dtype=*/true},
      {"clip", &CheckUnary, &LowerUnary},
      {"concat", &CheckConcat, &LowerConcat},
      {"conv2d", &CheckConv2d, &LowerConv2d, /*sum_post_op=*/true,
       /*eltwise_post_op=*/true},
      {"dequantize_linear", &CheckLinearQuantization, &LowerLinearQuantization, false, false,
       false, false, /*any_dtype=*/true},
      {"div", &CheckBinary, &LowerBinary, false, /*eltwise_post_op=*/true, false, false,
       false, 1, /*scalar_output=*/true},
      {"dropout", nullptr, &LowerView},
      {"dynamic_quantize_linear", nullptr, &LowerDynamicQuantizeLinear, false, false, false,
       false, /*any_dtype=*/true, /*outputs=*/3},
      {"flatten", nullptr, &LowerView},
      {"gelu", &CheckUnary, &LowerUnary},
      {"hard_sigmoid", &CheckUnary, &LowerUnary},
      {"hard_swish", &CheckUnary, &LowerUnary},
      {"layer_norm", &CheckLayerNorm, &LowerLayerNorm},
      {"leaky_relu", &CheckUnary, &LowerUnary},
      {"linear", &CheckLinear, &LowerLinear, false, /*eltwise_post_op=*/true},
      {"matmul", &CheckMatmul, &LowerMatmul, false, /*eltwise_post_op=*/true, false,
       /*bias_add=*/true},
      {"matmul_integer", &CheckMatmulInteger, &LowerMatmulInteger, false,
       /*eltwise_post_op=*/true, false, /*bias_add=*/true, /*any_dtype=*/true},
      {"max_pool2d", &CheckPool2d, &LowerMaxPool2d},
      {"mul", &CheckBinary, &LowerBinary, false, /*eltwise_post_op=*/true, false, false,
       false, 1, /*scalar_output=*/true},
      {"pad", &CheckPad, &LowerPad},
      {"reduce_mean", &CheckReduceMean, &LowerReduceMean},
      {"qlinear_add", &CheckQLinearAdd, &LowerQLinearAdd, false, false, false, false,
       /*any_dtype=*/true},
      {"qlinear_conv", &CheckQLinearConv, &LowerQLinearConv, false, false, false, false,
       /*any_dtype=*/true},
      {"quantize_linear", &CheckLinearQuantization, &LowerLinearQuantization, false, false,
       false, false, /*any_dtype=*/true},
      {"relu", &CheckUnary, &LowerUnary},
      {"reshape", nullptr, &LowerView},
      {"resize", &CheckResize, &LowerResize},
      {"sigmoid", &CheckUnary, &LowerUnary},
      {"slice", &CheckSlice, &LowerSlice},
      {"softmax", nullptr, &LowerSoftmax},
      {"sqrt", &CheckUnary, &LowerUnary},
      {"sub", &CheckBinary, &LowerBinary, false, /*eltwise_post_op=*/true, false, false,
       false, 1, /*scalar_output=*/true},
      {"tanh", &CheckUnary, &LowerUnary},
      {"transpose", &CheckTranspose, &LowerTranspose},
  };
  return *table;
}

}  // namespace

const DnnlOp* FindDnnlOp(const std::string& op) {
  for (const DnnlOp& row : Table()) {
    if (op == row.op) return &row;
  }
  return nullptr;
}

const std::vector<std::string>& SupportedOps() {
  static const auto* ops = [] {
    auto* names = new std::vector<std::string>;
    for (const DnnlOp& row : Table()) names->push_back(row.op);
    std::sort(names->begin(), names->end());
    return names;
  }();
  return *ops;
}

}  // namespace onednn
}  // namespace switchyard
