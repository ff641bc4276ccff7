#include "onnx/op_versions.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace switchyard {
namespace onnx_import {

// From ONNX's operator sets (onnx/defs/operator_sets.h), opsets 18 to 26:
// each version that opset introduced. A converter that learns a version's
// forms flips its entry to kHandled; kTypesOnly versions keep the previous
// version's meaning.
const std::vector<OpVersion>& OpVersions() {
  static const auto* versions = new std::vector<OpVersion>{
      {"Acos", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Acosh", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"AffineGrid", 20, VersionSupport::kHandled, "new op"},
      {"Asin", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Asinh", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Atan", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Atanh", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Attention", 23, VersionSupport::kHandled, "new op"},
      {"Attention", 24, VersionSupport::kNotYet, "nonpad_kv_seqlen input"},
      {"Attention", 25, VersionSupport::kNotYet, "left_window_size and right_window_size"},
      {"AveragePool", 19, VersionSupport::kHandled, "dilations"},
      {"AveragePool", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Bernoulli", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"BitCast", 26, VersionSupport::kNotYet, "new op"},
      {"BitwiseAnd", 18, VersionSupport::kHandled, "new op"},
      {"BitwiseNot", 18, VersionSupport::kHandled, "new op"},
      {"BitwiseOr", 18, VersionSupport::kHandled, "new op"},
      {"BitwiseXor", 18, VersionSupport::kHandled, "new op"},
      {"Cast", 19, VersionSupport::kHandled, "the saturate attribute and float8 types"},
      {"Cast", 21, VersionSupport::kTypesOnly, "new element types only"},
      {"Cast", 23, VersionSupport::kTypesOnly, "new element types only"},
      {"Cast", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"Cast", 25, VersionSupport::kTypesOnly, "new element types only"},
      {"CastLike", 19, VersionSupport::kHandled, "the saturate attribute and float8 types"},
      {"CastLike", 21, VersionSupport::kTypesOnly, "new element types only"},
      {"CastLike", 23, VersionSupport::kTypesOnly, "new element types only"},
      {"CastLike", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"CastLike", 25, VersionSupport::kTypesOnly, "new element types only"},
      {"CenterCropPad", 18, VersionSupport::kHandled, "new op"},
      {"Col2Im", 18, VersionSupport::kHandled, "new op"},
      {"Constant", 19, VersionSupport::kTypesOnly, "new element types only"},
      {"Constant", 21, VersionSupport::kTypesOnly, "new element types only"},
      {"Constant", 23, VersionSupport::kTypesOnly, "new element types only"},
      {"Constant", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"Constant", 25, VersionSupport::kTypesOnly, "new element types only"},
      {"ConstantOfShape", 20, VersionSupport::kTypesOnly, "new element types only"},
      {"ConstantOfShape", 21, VersionSupport::kTypesOnly, "new element types only"},
      {"ConstantOfShape", 23, VersionSupport::kTypesOnly, "new element types only"},
      {"ConstantOfShape", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"ConstantOfShape", 25, VersionSupport::kTypesOnly, "new element types only"},
      {"Conv", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"ConvTranspose", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Cos", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Cosh", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"CumProd", 26, VersionSupport::kNotYet, "new op"},
      {"DFT", 20, VersionSupport::kNotYet, "dft_length and axis as inputs"},
      {"DeformConv", 19, VersionSupport::kNotYet, "new op"},
      {"DeformConv", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"DequantizeLinear", 19, VersionSupport::kHandled, "float8 types"},
      {"DequantizeLinear", 21, VersionSupport::kHandled, "blocked quantization (block_size), int4 types"},
      {"DequantizeLinear", 23, VersionSupport::kHandled, "float4 types, output_dtype"},
      {"DequantizeLinear", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"DequantizeLinear", 25, VersionSupport::kTypesOnly, "new element types only"},
      {"Det", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Dropout", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Elu", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Equal", 19, VersionSupport::kTypesOnly, "new element types only"},
      {"EyeLike", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Flatten", 21, VersionSupport::kTypesOnly, "new element types only"},
      {"Flatten", 23, VersionSupport::kTypesOnly, "new element types only"},
      {"Flatten", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"Flatten", 25, VersionSupport::kTypesOnly, "new element types only"},
      {"GRU", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Gelu", 20, VersionSupport::kHandled, "new op"},
      {"GlobalAveragePool", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"GlobalLpPool", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"GlobalMaxPool", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"GridSample", 20, VersionSupport::kHandled, "mode names 'linear' and 'cubic', N-D inputs (5-D refused)"},
      {"GridSample", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"GroupNormalization", 18, VersionSupport::kHandled, "new op"},
      {"GroupNormalization", 21, VersionSupport::kHandled, "scale and bias per channel, stash_type"},
      {"HardSigmoid", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"HardSwish", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Identity", 19, VersionSupport::kTypesOnly, "new element types only"},
      {"Identity", 21, VersionSupport::kTypesOnly, "new element types only"},
      {"Identity", 23, VersionSupport::kTypesOnly, "new element types only"},
      {"Identity", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"Identity", 25, VersionSupport::kTypesOnly, "new element types only"},
      {"If", 19, VersionSupport::kTypesOnly, "new element types only"},
      {"If", 21, VersionSupport::kTypesOnly, "new element types only"},
      {"If", 23, VersionSupport::kTypesOnly, "new element types only"},
      {"If", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"If", 25, VersionSupport::kTypesOnly, "new element types only"},
      {"ImageDecoder", 20, VersionSupport::kNotYet, "new op"},
      {"InstanceNormalization", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"IsInf", 20, VersionSupport::kTypesOnly, "new element types only"},
      {"IsNaN", 20, VersionSupport::kTypesOnly, "new element types only"},
      {"LSTM", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Loop", 19, VersionSupport::kTypesOnly, "new element types only"},
      {"Loop", 21, VersionSupport::kTypesOnly, "new element types only"},
      {"Loop", 23, VersionSupport::kTypesOnly, "new element types only"},
      {"Loop", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"Loop", 25, VersionSupport::kTypesOnly, "new element types only"},
      {"LpNormalization", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"LpPool", 18, VersionSupport::kHandled, "ceil_mode and dilations"},
      {"LpPool", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"MaxPool", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"MaxRoiPool", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"MaxUnpool", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Mish", 18, VersionSupport::kHandled, "new op"},
      {"Mish", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Multinomial", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"NegativeLogLikelihoodLoss", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"OptionalGetElement", 18, VersionSupport::kNotYet, "tensor and sequence inputs"},
      {"OptionalHasElement", 18, VersionSupport::kNotYet, "tensor and sequence inputs, an optional input"},
      {"Pad", 18, VersionSupport::kHandled, "axes as an optional input 3"},
      {"Pad", 19, VersionSupport::kHandled, "the 'wrap' mode"},
      {"Pad", 21, VersionSupport::kTypesOnly, "new element types only"},
      {"Pad", 23, VersionSupport::kTypesOnly, "new element types only"},
      {"Pad", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"Pad", 25, VersionSupport::kTypesOnly, "new element types only"},
      {"QLinearMatMul", 21, VersionSupport::kTypesOnly, "float8 and int4 types"},
      {"QuantizeLinear", 19, VersionSupport::kHandled, "float8 types and saturate"},
      {"QuantizeLinear", 21, VersionSupport::kHandled, "blocked quantization (block_size), output_dtype, int4 types"},
      {"QuantizeLinear", 23, VersionSupport::kHandled, "float4 types, precision"},
      {"QuantizeLinear", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"QuantizeLinear", 25, VersionSupport::kTypesOnly, "new element types only"},
      {"RMSNormalization", 23, VersionSupport::kHandled, "new op"},
      {"RNN", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"RandomNormal", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"RandomNormalLike", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"RandomUniform", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"RandomUniformLike", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"ReduceL1", 18, VersionSupport::kHandled, "axes as an optional input 1, noop_with_empty_axes"},
      {"ReduceL2", 18, VersionSupport::kHandled, "axes as an optional input 1, noop_with_empty_axes"},
      {"ReduceLogSum", 18, VersionSupport::kHandled, "axes as an optional input 1, noop_with_empty_axes"},
      {"ReduceLogSumExp", 18, VersionSupport::kHandled, "axes as an optional input 1, noop_with_empty_axes"},
      {"ReduceMax", 18, VersionSupport::kHandled, "axes as an optional input 1, noop_with_empty_axes"},
      {"ReduceMax", 20, VersionSupport::kHandled, "bool inputs"},
      {"ReduceMean", 18, VersionSupport::kHandled, "axes as an optional input 1, noop_with_empty_axes"},
      {"ReduceMin", 18, VersionSupport::kHandled, "axes as an optional input 1, noop_with_empty_axes"},
      {"ReduceMin", 20, VersionSupport::kHandled, "bool inputs"},
      {"ReduceProd", 18, VersionSupport::kHandled, "axes as an optional input 1, noop_with_empty_axes"},
      {"ReduceSumSquare", 18, VersionSupport::kHandled, "axes as an optional input 1, noop_with_empty_axes"},
      {"RegexFullMatch", 20, VersionSupport::kNotYet, "new op"},
      {"Reshape", 19, VersionSupport::kTypesOnly, "new element types only"},
      {"Reshape", 21, VersionSupport::kTypesOnly, "new element types only"},
      {"Reshape", 23, VersionSupport::kTypesOnly, "new element types only"},
      {"Reshape", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"Reshape", 25, VersionSupport::kTypesOnly, "new element types only"},
      {"Resize", 18, VersionSupport::kHandled, "antialias, axes, keep_aspect_ratio_policy"},
      {"Resize", 19, VersionSupport::kHandled, "coordinate_transformation_mode 'half_pixel_symmetric'"},
      {"RoiAlign", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"RotaryEmbedding", 23, VersionSupport::kHandled, "new op"},
      {"Round", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Scan", 19, VersionSupport::kTypesOnly, "new element types only"},
      {"Scan", 21, VersionSupport::kTypesOnly, "new element types only"},
      {"Scan", 23, VersionSupport::kTypesOnly, "new element types only"},
      {"Scan", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"Scan", 25, VersionSupport::kTypesOnly, "new element types only"},
      {"ScatterElements", 18, VersionSupport::kHandled, "reduction 'max' and 'min'"},
      {"ScatterND", 18, VersionSupport::kHandled, "reduction 'max' and 'min'"},
      {"Selu", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Shape", 19, VersionSupport::kTypesOnly, "new element types only"},
      {"Shape", 21, VersionSupport::kTypesOnly, "new element types only"},
      {"Shape", 23, VersionSupport::kTypesOnly, "new element types only"},
      {"Shape", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"Shape", 25, VersionSupport::kTypesOnly, "new element types only"},
      {"Sin", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Sinh", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Size", 19, VersionSupport::kTypesOnly, "new element types only"},
      {"Size", 21, VersionSupport::kTypesOnly, "new element types only"},
      {"Size", 23, VersionSupport::kTypesOnly, "new element types only"},
      {"Size", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"Size", 25, VersionSupport::kTypesOnly, "new element types only"},
      {"Softplus", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Softsign", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"Split", 18, VersionSupport::kHandled, "the num_outputs attribute"},
      {"SplitToSequence", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"Squeeze", 21, VersionSupport::kTypesOnly, "new element types only"},
      {"Squeeze", 23, VersionSupport::kTypesOnly, "new element types only"},
      {"Squeeze", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"Squeeze", 25, VersionSupport::kTypesOnly, "new element types only"},
      {"StringConcat", 20, VersionSupport::kNotYet, "new op"},
      {"StringSplit", 20, VersionSupport::kNotYet, "new op"},
      {"Swish", 24, VersionSupport::kNotYet, "new op"},
      {"Tan", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"TensorScatter", 24, VersionSupport::kNotYet, "new op"},
      {"ThresholdedRelu", 22, VersionSupport::kTypesOnly, "new element types only"},
      {"TopK", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"Transpose", 21, VersionSupport::kTypesOnly, "new element types only"},
      {"Transpose", 23, VersionSupport::kTypesOnly, "new element types only"},
      {"Transpose", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"Transpose", 25, VersionSupport::kTypesOnly, "new element types only"},
      {"Unsqueeze", 21, VersionSupport::kTypesOnly, "new element types only"},
      {"Unsqueeze", 23, VersionSupport::kTypesOnly, "new element types only"},
      {"Unsqueeze", 24, VersionSupport::kTypesOnly, "new element types only"},
      {"Unsqueeze", 25, VersionSupport::kTypesOnly, "new element types only"},
  };
  return *versions;
}

const OpVersion* SelectedVersion(const std::string& op_type, int opset) {
  const OpVersion* selected = nullptr;
  for (const OpVersion& v : OpVersions()) {
    if (v.op_type == op_type && v.since <= opset &&
        (selected == nullptr || v.since > selected->since)) {
      selected = &v;
    }
  }
  return selected;
}

absl::Status CheckOpVersion(const std::string& op_type, int opset) {
  // A types-only version keeps the meaning of the one before it, so every
  // version up to the selected one must be readable.
  const OpVersion* newest_refused = nullptr;
  for (const OpVersion& v : OpVersions()) {
    if (v.op_type != op_type || v.since > opset) continue;
    if (v.support == VersionSupport::kNotYet &&
        (newest_refused == nullptr || v.since > newest_refused->since)) {
      newest_refused = &v;
    }
  }
  if (newest_refused == nullptr) return absl::OkStatus();
  const OpVersion* selected = SelectedVersion(op_type, opset);
  return absl::UnimplementedError(absl::StrCat(
      "opset ", opset, " selects ", op_type, "-", selected->since,
      selected == newest_refused ? "" : absl::StrCat(", which keeps ", op_type, "-",
                                                     newest_refused->since, "'s meaning"),
      "; ", op_type, "-", newest_refused->since, " (", newest_refused->change,
      ") is not supported by Switchyard's ", op_type,
      " import yet. Export the model at opset ", newest_refused->since - 1,
      " or lower, or see docs/onnx.md for the versions of each op Switchyard reads"));
}

}  // namespace onnx_import
}  // namespace switchyard
