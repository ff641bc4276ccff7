#include "backends/dnnl/dnnl_op_table.h"

#include <algorithm>

#include "backends/dnnl/dnnl_lowering.h"

namespace switchyard {
namespace onednn {
namespace {

// The table, by op name. A row is {op, supports, lower, sum, relu, clip}.
const std::vector<DnnlOp>& Table() {
  static const auto* table = new std::vector<DnnlOp>{
      {"adaptive_avg_pool2d", &CheckAdaptiveAvgPool2d, &LowerAdaptiveAvgPool2d},
      {"add", &CheckAdd, &LowerAdd, false, /*relu_post_op=*/true, /*clip_post_op=*/true},
      {"avg_pool2d", &CheckAvgPool2d, &LowerAvgPool2d},
      {"batch_norm", &CheckBatchNorm, &LowerBatchNorm, false,
       /*relu_post_op=*/true},
      {"clip", &CheckClip, &LowerClip},
      {"conv2d", &CheckConv2d, &LowerConv2d, /*sum_post_op=*/true,
       /*relu_post_op=*/true, /*clip_post_op=*/true},
      {"dropout", nullptr, &LowerView},
      {"flatten", nullptr, &LowerView},
      {"linear", &CheckLinear, &LowerLinear, false, /*relu_post_op=*/true,
       /*clip_post_op=*/true},
      {"max_pool2d", &CheckPool2d, &LowerMaxPool2d},
      {"relu", nullptr, &LowerRelu},
      {"reshape", nullptr, &LowerView},
      {"softmax", nullptr, &LowerSoftmax},
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
