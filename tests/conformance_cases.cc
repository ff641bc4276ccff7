#include "tests/conformance_cases.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/op_def.h"
#include "core/partition.h"
#include "core/status_macros.h"
#include "core/tensor.h"

namespace switchyard {
namespace conformance {
namespace {

using Ints = std::vector<int64_t>;

// The case followed by a relu that alone reads its output, "<name>_relu".
ConformanceCase ThenRelu(ConformanceCase c) {
  c.name = absl::StrCat(c.name, "_relu");
  c.then_relu = true;
  return c;
}

// `value` as the nearest value of `dtype` (C++ conversion rules for
// integers), read back as a double.
double RoundTo(double value, DType dtype) {
  alignas(8) char element[8];
  SetElementFromDouble(element, dtype, 0, value);
  return ElementAsDouble(element, dtype, 0);
}

// FNV-1a: a seed from the case name, the same on every platform.
uint32_t Seed(const std::string& name) {
  uint32_t hash = 2166136261u;
  for (unsigned char ch : name) hash = (hash ^ ch) * 16777619u;
  return hash;
}

// Values of `dtype`: floating ones uniform in [-scale, scale), from 24
// random bits so every value is an exact float (std::uniform_real_distribution
// differs between libraries) and then rounded to the dtype; integers and
// bools as ConformanceCase says. Every value is exact in float32 too.
std::vector<double> RandomValues(const Shape& shape, DType dtype, float scale,
                                 bool positive, std::mt19937& rng,
                                 const OperandValues* range = nullptr) {
  std::vector<double> values(shape.num_elements());
  const bool ranged = range != nullptr && range->low < range->high &&
                      !IsFloatingPoint(dtype) && dtype != DType::kBool;
  for (double& v : values) {
    if (range != nullptr && range->zeros) {
      v = 0;
    } else if (ranged) {
      const uint64_t span =
          static_cast<uint64_t>(range->high - range->low) + 1;
      v = static_cast<double>(range->low +
                              static_cast<int64_t>(rng() % span));
    } else if (dtype == DType::kBool) {
      v = rng() & 1;
    } else if (dtype == DType::kUInt8) {
      v = rng() % 256;
    } else if (!IsFloatingPoint(dtype)) {
      v = static_cast<double>(rng() % 201) - 100;
    } else {
      const float unit = static_cast<float>(rng() >> 8) / 16777216.0f;
      float f = scale * (2.0f * unit - 1.0f);
      if (positive) f = std::abs(f) + 0.1f;
      v = RoundTo(f, dtype);
    }
  }
  return values;
}

// `values` as host bytes of `dtype`.
std::vector<char> ToBytes(const std::vector<double>& values, DType dtype) {
  std::vector<char> bytes(values.size() * DTypeSize(dtype));
  for (size_t i = 0; i < values.size(); ++i) {
    SetElementFromDouble(bytes.data(), dtype, static_cast<int64_t>(i),
                         values[i]);
  }
  return bytes;
}

bool Has(const std::vector<std::pair<std::string, DType>>& keys,
         const std::string& op, DType dtype) {
  return std::find(keys.begin(), keys.end(), std::make_pair(op, dtype)) !=
         keys.end();
}

}  // namespace

ConformanceCase Case(std::string name, std::string op, std::vector<Shape> inputs,
                     std::vector<Shape> params,
                     std::vector<std::pair<std::string, AttrValue>> attrs) {
  ConformanceCase c;
  c.name = std::move(name);
  c.op = std::move(op);
  c.inputs = std::move(inputs);
  c.params = std::move(params);
  for (auto& [key, value] : attrs) c.attrs.Set(key, std::move(value));
  return c;
}

ConformanceCase InDType(ConformanceCase c, DType dtype) {
  c.name = absl::StrCat(c.name, "_", DTypeName(dtype));
  c.dtype = dtype;
  return c;
}

void PrintTo(const ConformanceCase& c, std::ostream* os) { *os << c.name; }

std::vector<ConformanceCase> ConformanceCases() {
  std::vector<ConformanceCase> cases = {
      // linear: input [..., in], weight [out, in], bias [out].
      Case("linear_bias", "linear", {Shape({3, 5})}, {Shape({4, 5}), Shape({4})}),
      Case("linear_no_bias", "linear", {Shape({2, 6})}, {Shape({3, 6})}),
      Case("linear_3d_input", "linear", {Shape({2, 3, 6})},
           {Shape({7, 6}), Shape({7})}),
      Case("linear_1d_input", "linear", {Shape({5})}, {Shape({3, 5}), Shape({3})}),
      Case("linear_long_reduction", "linear", {Shape({1, 300})},
           {Shape({10, 300}), Shape({10})}),

      // conv2d: input [N, C, H, W], weight [O, C/groups, kH, kW], bias [O].
      Case("conv2d_3x3", "conv2d", {Shape({1, 2, 5, 5})},
           {Shape({3, 2, 3, 3}), Shape({3})}),
      Case("conv2d_pad1_no_bias", "conv2d", {Shape({1, 3, 6, 6})},
           {Shape({4, 3, 3, 3})}, {{"padding", Ints{1, 1}}}),
      Case("conv2d_stride2_pad1_batch2", "conv2d", {Shape({2, 3, 7, 7})},
           {Shape({4, 3, 3, 3}), Shape({4})},
           {{"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}}),
      Case("conv2d_dilation2", "conv2d", {Shape({1, 2, 7, 7})},
           {Shape({2, 2, 3, 3}), Shape({2})},
           {{"dilation", Ints{2, 2}}, {"padding", Ints{2, 2}}}),
      Case("conv2d_groups2", "conv2d", {Shape({1, 4, 5, 5})},
           {Shape({6, 2, 3, 3}), Shape({6})},
           {{"groups", int64_t{2}}, {"padding", Ints{1, 1}}}),
      Case("conv2d_depthwise", "conv2d", {Shape({1, 3, 6, 6})},
           {Shape({3, 1, 3, 3})},
           {{"groups", int64_t{3}}, {"padding", Ints{1, 1}}}),
      // Depthwise with stride, dilation, a depth multiplier of 2, wide
      // padding (taps wholly in padding) and rows long enough to vectorise.
      Case("conv2d_depthwise_stride2_batch2", "conv2d", {Shape({2, 4, 9, 21})},
           {Shape({4, 1, 3, 3}), Shape({4})},
           {{"groups", int64_t{4}}, {"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}}),
      Case("conv2d_depthwise_5x5_dilation2_multiplier2", "conv2d", {Shape({1, 3, 11, 19})},
           {Shape({6, 1, 5, 5}), Shape({6})},
           {{"groups", int64_t{3}}, {"dilation", Ints{2, 2}}, {"padding", Ints{4, 4}}}),
      Case("conv2d_depthwise_wide_pad_stride3", "conv2d", {Shape({1, 2, 5, 6})},
           {Shape({2, 1, 3, 2})},
           {{"groups", int64_t{2}}, {"stride", Ints{3, 3}}, {"padding", Ints{3, 4}}}),
      Case("conv2d_pointwise", "conv2d", {Shape({2, 8, 4, 4})},
           {Shape({5, 8, 1, 1}), Shape({5})}),
      Case("conv2d_rectangular", "conv2d", {Shape({1, 2, 6, 7})},
           {Shape({3, 2, 2, 3}), Shape({3})},
           {{"stride", Ints{2, 1}}, {"padding", Ints{1, 0}}}),
      Case("conv2d_vgg_block", "conv2d", {Shape({1, 16, 8, 8})},
           {Shape({16, 16, 3, 3}), Shape({16})}, {{"padding", Ints{1, 1}}}),

      Case("relu_4d", "relu", {Shape({2, 3, 4, 5})}),
      Case("relu_1d", "relu", {Shape({7})}),

      // max_pool2d: stride defaults to the kernel size.
      Case("max_pool2d_2x2", "max_pool2d", {Shape({1, 3, 8, 8})}, {},
           {{"kernel_size", Ints{2, 2}}}),
      Case("max_pool2d_3x3_stride2_pad1", "max_pool2d", {Shape({2, 2, 9, 9})}, {},
           {{"kernel_size", Ints{3, 3}}, {"stride", Ints{2, 2}},
            {"padding", Ints{1, 1}}}),
      Case("max_pool2d_ceil_mode", "max_pool2d", {Shape({1, 2, 7, 7})}, {},
           {{"kernel_size", Ints{2, 2}}, {"ceil_mode", true}}),
      Case("max_pool2d_ceil_mode_pad", "max_pool2d", {Shape({1, 1, 6, 6})}, {},
           {{"kernel_size", Ints{3, 3}}, {"stride", Ints{2, 2}},
            {"padding", Ints{1, 1}}, {"ceil_mode", true}}),
      Case("max_pool2d_dilation2", "max_pool2d", {Shape({1, 1, 9, 9})}, {},
           {{"kernel_size", Ints{3, 3}}, {"stride", Ints{1, 1}},
            {"dilation", Ints{2, 2}}}),
      Case("max_pool2d_rectangular", "max_pool2d", {Shape({1, 2, 6, 9})}, {},
           {{"kernel_size", Ints{2, 3}}, {"stride", Ints{1, 2}},
            {"padding", Ints{1, 1}}}),

      Case("adaptive_avg_pool2d_global", "adaptive_avg_pool2d",
           {Shape({2, 3, 5, 5})}, {}, {{"output_size", Ints{1, 1}}}),
      Case("adaptive_avg_pool2d_3x2_from_7x5", "adaptive_avg_pool2d",
           {Shape({1, 2, 7, 5})}, {}, {{"output_size", Ints{3, 2}}}),
      Case("adaptive_avg_pool2d_7x7_from_14x14", "adaptive_avg_pool2d",
           {Shape({1, 1, 14, 14})}, {}, {{"output_size", Ints{7, 7}}}),
      Case("adaptive_avg_pool2d_7x7_from_2x2", "adaptive_avg_pool2d",
           {Shape({1, 2, 2, 2})}, {}, {{"output_size", Ints{7, 7}}}),
      Case("adaptive_avg_pool2d_4x4_from_6x6", "adaptive_avg_pool2d",
           {Shape({1, 2, 6, 6})}, {}, {{"output_size", Ints{4, 4}}}),

      Case("flatten_default", "flatten", {Shape({2, 3, 4, 5})}),
      Case("flatten_all", "flatten", {Shape({2, 3, 4})}, {},
           {{"start_dim", int64_t{0}}}),
      Case("flatten_middle", "flatten", {Shape({2, 3, 4, 5})}, {},
           {{"start_dim", int64_t{1}}, {"end_dim", int64_t{2}}}),
      Case("flatten_negative_dims", "flatten", {Shape({2, 3, 4, 5})}, {},
           {{"start_dim", int64_t{-2}}, {"end_dim", int64_t{-1}}}),

      Case("dropout_p_half", "dropout", {Shape({2, 3, 4})}, {},
           {{"p", 0.5}}),
      Case("dropout_p_zero", "dropout", {Shape({5})}, {}, {{"p", 0.0}}),

      Case("softmax_last_dim", "softmax", {Shape({3, 5})}, {},
           {{"dim", int64_t{-1}}}),
      Case("softmax_middle_dim", "softmax", {Shape({2, 4, 3})}, {},
           {{"dim", int64_t{1}}}),
      Case("softmax_first_dim", "softmax", {Shape({4, 3})}, {},
           {{"dim", int64_t{0}}}),
      // Rows as long as attention's (197 tokens): the vectorised row path
      // and its scalar tail.
      Case("softmax_long_rows", "softmax", {Shape({3, 197})}, {},
           {{"dim", int64_t{-1}}}),

      Case("add_3d", "add", {Shape({2, 3, 4}), Shape({2, 3, 4})}),
      Case("add_one_element", "add", {Shape({1}), Shape({1})}),
      Case("add_4d", "add", {Shape({2, 3, 5, 7}), Shape({2, 3, 5, 7})}),
  };
  // exp(200) overflows float: only a max-shifted softmax gets this right.
  ConformanceCase huge = Case("softmax_huge_values", "softmax", {Shape({2, 6})},
                              {}, {{"dim", int64_t{-1}}});
  huge.scale = 200.0f;
  cases.push_back(std::move(huge));

  // batch_norm: input [N, C, ...], then weight, bias, running_mean and
  // running_var [C] (the variance positive).
  const auto batch_norm = [](std::string name, Shape input, double epsilon) {
    const Shape channel({input.dim(1)});
    ConformanceCase c =
        Case(std::move(name), "batch_norm", {input},
             {channel, channel, channel, channel}, {{"epsilon", epsilon}});
    c.positive_params = {3};
    return c;
  };
  cases.push_back(batch_norm("batch_norm_4d", Shape({2, 3, 4, 5}), 1e-5));
  cases.push_back(batch_norm("batch_norm_2d", Shape({4, 6}), 1e-5));
  cases.push_back(batch_norm("batch_norm_3d", Shape({2, 3, 7}), 1e-5));
  cases.push_back(batch_norm("batch_norm_epsilon", Shape({1, 8, 3, 3}), 1e-3));
  ConformanceCase wide =
      batch_norm("batch_norm_wide_values", Shape({2, 4, 3, 3}), 1e-5);
  wide.scale = 50.0f;
  cases.push_back(std::move(wide));

  // Other dtypes: the data-movement ops in every dtype their op takes, the
  // float64 arithmetic the reference has.
  for (DType dtype : AllDTypes()) {
    if (dtype == DType::kFloat32) continue;
    cases.push_back(
        InDType(Case("flatten", "flatten", {Shape({2, 3, 4})}), dtype));
    if (IsFloatingPoint(dtype) && !IsFloat8(dtype)) {  // dropout's dtypes
      cases.push_back(
          InDType(Case("dropout", "dropout", {Shape({2, 5})}, {}, {{"p", 0.5}}),
                  dtype));
    }
  }
  cases.push_back(
      InDType(Case("relu", "relu", {Shape({2, 3, 4, 5})}), DType::kFloat64));
  cases.push_back(
      InDType(Case("add", "add", {Shape({2, 3, 4}), Shape({2, 3, 4})}),
              DType::kFloat64));

  // Fusable groups: a backend may run each as one partition.
  cases.push_back(ThenRelu(Case("conv2d_bias", "conv2d", {Shape({2, 3, 6, 6})},
                                {Shape({4, 3, 3, 3}), Shape({4})},
                                {{"padding", Ints{1, 1}}})));
  cases.push_back(
      ThenRelu(Case("conv2d_no_bias_stride2", "conv2d", {Shape({1, 4, 7, 7})},
                    {Shape({5, 4, 3, 3})}, {{"stride", Ints{2, 2}}})));
  cases.push_back(
      ThenRelu(Case("conv2d_groups2", "conv2d", {Shape({1, 4, 5, 5})},
                    {Shape({6, 2, 3, 3}), Shape({6})},
                    {{"groups", int64_t{2}}, {"padding", Ints{1, 1}}})));
  cases.push_back(
      ThenRelu(Case("conv2d_depthwise", "conv2d", {Shape({1, 6, 10, 12})},
                    {Shape({6, 1, 3, 3}), Shape({6})},
                    {{"groups", int64_t{6}}, {"padding", Ints{1, 1}}})));
  cases.push_back(ThenRelu(Case("linear_bias", "linear", {Shape({3, 20})},
                                {Shape({7, 20}), Shape({7})})));
  cases.push_back(ThenRelu(
      Case("linear_no_bias", "linear", {Shape({4, 9})}, {Shape({5, 9})})));
  cases.push_back(
      ThenRelu(Case("linear_3d_input", "linear", {Shape({2, 3, 16})},
                    {Shape({8, 16}), Shape({8})})));

  // non_max_suppression: boxes [N, B, 4] and scores [N, C, B], uniform in
  // [-scale, scale): corners in any order, many overlaps; in center format
  // about half the sizes are negative (boxes that overlap nothing). Integer
  // outputs, compared exactly: the selected rows and their count.
  const auto nms = [](std::string name, int64_t batches, int64_t classes,
                      int64_t boxes,
                      std::vector<std::pair<std::string, AttrValue>> attrs) {
    return Case(std::move(name), "non_max_suppression",
                {Shape({batches, boxes, 4}), Shape({batches, classes, boxes})},
                {}, std::move(attrs));
  };
  cases.push_back(nms("nms_one_class", 1, 1, 24,
                      {{"max_output_boxes_per_class", int64_t{24}},
                       {"iou_threshold", 0.5}}));
  cases.push_back(nms("nms_batches_classes_score_threshold", 2, 3, 16,
                      {{"max_output_boxes_per_class", int64_t{5}},
                       {"iou_threshold", 0.3},
                       {"score_threshold", 0.0}}));
  cases.push_back(nms("nms_center_point_box", 1, 2, 20,
                      {{"max_output_boxes_per_class", int64_t{20}},
                       {"iou_threshold", 0.4},
                       {"center_point_box", int64_t{1}}}));
  cases.push_back(nms("nms_iou_zero_any_overlap", 1, 1, 12,
                      {{"max_output_boxes_per_class", int64_t{12}}}));
  cases.push_back(nms("nms_onnx_defaults_select_nothing", 1, 2, 8, {}));
  cases.push_back(nms("nms_many_boxes", 1, 2, 300,
                      {{"max_output_boxes_per_class", int64_t{1000}},
                       {"iou_threshold", 0.6}}));
  ConformanceCase wide_nms = nms("nms_wide_coordinates", 2, 1, 40,
                                 {{"max_output_boxes_per_class", int64_t{10}},
                                  {"iou_threshold", 0.7}});
  wide_nms.scale = 1000.0f;
  cases.push_back(std::move(wide_nms));
  for (auto family : {ElementwiseConformanceCases, ShapeConformanceCases,
                      NnConformanceCases, BitwiseConformanceCases}) {
    for (ConformanceCase& c : family()) cases.push_back(std::move(c));
  }
  return cases;
}

Tolerance ToleranceFor(const ConformanceCase& c) {
  // Per op, against the reference backend (double accumulation), float32:
  //   relu, add, max_pool2d, flatten, dropout: one correctly rounded float
  //     result, so every backend must agree bit for bit.
  //   adaptive_avg_pool2d, softmax: short float sums, exp: a few ulps.
  //   batch_norm: a handful of float operations per element on values of
  //     a few units (a backend may fold it to x * scale + shift).
  //   linear, conv2d: float sums of up to 300 products of values in [-1, 1)
  //     in any order. A backend using TF32 (CUDA tensor cores) would need
  //     ~1e-2; keep it off for conformance or widen here with the reason.
  //   non_max_suppression: integer indices; every backend makes the same
  //     decisions (ops/non_max_suppression.cc), so they match exactly.
  //   A fused op+relu: the op's (relu is exact).
  static const auto* table = new std::map<std::string, Tolerance>{
      {"relu", {0, 0}},          {"add", {0, 0}},
      {"max_pool2d", {0, 0}},    {"flatten", {0, 0}},
      {"dropout", {0, 0}},       {"adaptive_avg_pool2d", {1e-6, 1e-5}},
      {"softmax", {1e-6, 1e-5}}, {"batch_norm", {1e-5, 1e-5}},
      {"linear", {1e-4, 1e-4}},  {"conv2d", {1e-4, 1e-4}},
      {"non_max_suppression", {0, 0}},  // integer outputs
  };
  auto it = table->find(c.op);
  Tolerance t = it != table->end() ? it->second : Tolerance{1e-4, 1e-4};
  if (c.tolerance.has_value()) t = *c.tolerance;
  // Integers and bools: exact. float16 and bfloat16: one rounding of the
  // result to their 11 and 8 significant bits (2^-10, 2^-7 relative) for the
  // exact ops; sums may round in the narrow type along the way: 10x that.
  const bool exact = t.atol == 0 && t.rtol == 0;
  if (!IsFloatingPoint(c.dtype)) return {0, 0};
  if (c.dtype == DType::kFloat16 || c.dtype == DType::kBFloat16) {
    const double ulp = c.dtype == DType::kFloat16 ? 0x1p-10 : 0x1p-7;
    const double widened = exact ? ulp : 10 * ulp;
    t.atol = std::max(t.atol, widened);
    t.rtol = std::max(t.rtol, widened);
  }
  return t;
}

absl::StatusOr<OpResult> RunCase(const ConformanceCase& c, const Device& device,
                                 BackendRegistry& registry,
                                 std::optional<DType> run_as) {
  const DType dtype = run_as.value_or(c.dtype);
  SY_ASSIGN_OR_RETURN(BackendDevice * backend_device,
                      registry.GetDevice(device));
  std::mt19937 rng(Seed(c.name));
  Graph graph;
  std::vector<ValueId> operands;
  std::vector<Tensor> inputs;
  // Operand `index`'s dtype: its own when the case gives one, else the
  // case's (or run_as).
  auto dtype_of = [&](int index) {
    auto it = c.operand_values.find(index);
    return it != c.operand_values.end() ? it->second.dtype : dtype;
  };
  auto make = [&](const Shape& shape, bool positive,
                  int index) -> absl::StatusOr<Tensor> {
    auto it = c.operand_values.find(index);
    const OperandValues* own =
        it != c.operand_values.end() ? &it->second : nullptr;
    const DType values_dtype = own != nullptr ? own->dtype : c.dtype;
    const std::vector<char> bytes = ToBytes(
        RandomValues(shape, values_dtype, c.scale, positive, rng, own),
        dtype_of(index));
    return Tensor::FromBytes(shape, dtype_of(index), bytes.data(),
                             bytes.size(), *backend_device);
  };
  std::vector<TensorType> operand_types;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const int index = static_cast<int>(i);
    SY_ASSIGN_OR_RETURN(Tensor tensor, make(c.inputs[i], false, index));
    operands.push_back(graph.AddInput(absl::StrCat("input", i), c.inputs[i],
                                      device, dtype_of(index)));
    operand_types.push_back({c.inputs[i], dtype_of(index)});
    inputs.push_back(std::move(tensor));
  }
  for (size_t i = 0; i < c.params.size(); ++i) {
    const int index = static_cast<int>(c.inputs.size() + i);
    const bool positive =
        std::find(c.positive_params.begin(), c.positive_params.end(),
                  static_cast<int>(i)) != c.positive_params.end();
    SY_ASSIGN_OR_RETURN(Tensor tensor, make(c.params[i], positive, index));
    operands.push_back(graph.AddConstant(absl::StrCat("param", i), tensor));
    operand_types.push_back({c.params[i], dtype_of(index)});
  }
  SY_ASSIGN_OR_RETURN(const OpDef* def, OpRegistry::Global().Find(c.op));
  // As many outputs as shape inference gives (split: one per size); the
  // schema's count when it fails, so that compiling reports the error.
  absl::StatusOr<std::vector<TensorType>> types =
      def->InferTypes(c.attrs, operand_types);
  const int num_outputs = types.ok()
                              ? static_cast<int>(types->size())
                              : static_cast<int>(def->schema().outputs.size());
  std::vector<ValueId> outs =
      graph.AddNodeWithOutputs(c.op, c.name, operands, c.attrs, num_outputs);
  if (c.then_relu) {
    outs[0] = graph.AddNode("relu", c.name + "_relu", {outs[0]}, AttrMap());
  }
  for (ValueId out : outs) graph.AddOutput(out);

  CompileOptions options;
  options.backends = &registry;
  SY_ASSIGN_OR_RETURN(std::unique_ptr<ExecutablePlan> plan,
                      Compile(std::move(graph), options));
  SY_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, plan->Run(inputs));
  if (outputs.size() != outs.size()) {
    return absl::InternalError(absl::StrCat("expected ", outs.size(),
                                            " outputs, got ", outputs.size()));
  }
  OpResult result;
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Tensor& output = outputs[o];
    if (output.device() != device) {
      return absl::InternalError(
          absl::StrCat("expected output ", o, " on ", device.ToString(),
                       ", got it on ", output.device().ToString()));
    }
    SY_ASSIGN_OR_RETURN(std::vector<char> bytes, output.ToBytes());
    OpResult& r = o == 0 ? result : result.more.emplace_back();
    r.shape = output.shape();
    r.dtype = output.dtype();
    r.values.resize(output.num_elements());
    for (size_t i = 0; i < r.values.size(); ++i) {
      r.values[i] =
          ElementAsDouble(bytes.data(), r.dtype, static_cast<int64_t>(i));
    }
  }
  for (const Partition& p : plan->partitions())
    result.partitions.push_back(p.name);
  return result;
}

absl::StatusOr<OpResult> ReferenceResult(
    const ConformanceCase& c, BackendRegistry& registry,
    const std::vector<std::pair<std::string, DType>>& reference_keys) {
  const Device ref0 = *Device::Parse("ref:0");
  if (Has(reference_keys, c.op, c.dtype) &&
      (!c.then_relu || Has(reference_keys, "relu", c.dtype))) {
    return RunCase(c, ref0, registry);
  }
  // No kernel of that dtype in the reference: the same values in float32,
  // the result rounded to the dtype.
  SY_ASSIGN_OR_RETURN(OpResult result,
                      RunCase(c, ref0, registry, DType::kFloat32));
  for (double& v : result.values) v = RoundTo(v, c.dtype);
  result.dtype = c.dtype;
  for (OpResult& other : result.more) {
    if (other.dtype != DType::kFloat32) continue;  // not computed in c.dtype
    for (double& v : other.values) v = RoundTo(v, c.dtype);
    other.dtype = c.dtype;
  }
  return result;
}

std::string CompareResults(const OpResult& got, const OpResult& want,
                           Tolerance tolerance) {
  if (got.more.size() != want.more.size()) {
    return absl::StrCat(got.more.size() + 1, " outputs, the reference's ",
                        want.more.size() + 1);
  }
  for (size_t o = 0; o < got.more.size(); ++o) {
    const std::string mismatch =
        CompareResults(got.more[o], want.more[o], tolerance);
    if (!mismatch.empty()) return absl::StrCat("output ", o + 1, ": ", mismatch);
  }
  if (got.shape != want.shape || got.values.size() != want.values.size() ||
      got.dtype != want.dtype) {
    return absl::StrCat("output ", DTypeName(got.dtype), " ",
                        got.shape.ToString(), ", the reference's ",
                        DTypeName(want.dtype), " ", want.shape.ToString());
  }
  int64_t bad = 0, worst = -1;
  double worst_excess = 0;
  for (size_t i = 0; i < got.values.size(); ++i) {
    const double g = got.values[i], w = want.values[i];
    const double allowed = tolerance.atol + tolerance.rtol * std::abs(w);
    const bool both_nan = std::isnan(g) && std::isnan(w);
    const double error = std::abs(g - w);
    // g == w: equal infinities too, whose difference is NaN.
    if (both_nan || g == w || error <= allowed) continue;  // NaN error fails
    ++bad;
    const double excess = std::isnan(error) ? INFINITY : error - allowed;
    if (worst < 0 || excess > worst_excess) {
      worst = static_cast<int64_t>(i);
      worst_excess = excess;
    }
  }
  if (bad == 0) return "";
  return absl::StrCat(bad, " of ", got.values.size(),
                      " elements out of tolerance (atol ", tolerance.atol,
                      ", rtol ", tolerance.rtol, "); worst: element ", worst,
                      " is ", got.values[worst], ", the reference says ",
                      want.values[worst], " (|diff| ",
                      std::abs(got.values[worst] - want.values[worst]), ")");
}

}  // namespace conformance
}  // namespace switchyard
