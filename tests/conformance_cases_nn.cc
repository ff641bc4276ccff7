// The nn op family's conformance cases (see conformance_cases.h):
// avg_pool2d, reduce_mean/sum/max/min/prod, argmax/argmin, cumsum, gemm,
// matmul, layer_norm, log_softmax and resize, with the attribute
// combinations the ONNX importer sends.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/conformance_cases.h"

namespace switchyard {
namespace conformance {
namespace {

using Ints = std::vector<int64_t>;

// Exact: max and min pick one of their inputs.
constexpr Tolerance kExact = {0, 0};

std::string Join(const Ints& values) {
  std::string s;
  for (int64_t v : values)
    absl::StrAppend(&s, v < 0 ? "m" : "", v < 0 ? -v : v);
  return s.empty() ? "all" : s;
}

void AddAvgPoolCases(std::vector<ConformanceCase>& cases) {
  const auto pool = [](std::string name, Shape input, Ints kernel, Ints stride,
                       Ints padding, bool ceil_mode, bool count_include_pad) {
    return Case(std::move(name), "avg_pool2d", {std::move(input)}, {},
                {{"kernel_size", kernel},
                 {"stride", stride},
                 {"padding", padding},
                 {"ceil_mode", ceil_mode},
                 {"count_include_pad", count_include_pad}});
  };
  cases.push_back(pool("avg_pool2d_2x2", Shape({2, 3, 8, 8}), {2, 2}, {2, 2},
                       {0, 0, 0, 0}, false, false));
  cases.push_back(pool("avg_pool2d_3x3_stride1_pad1_exclude_pad",
                       Shape({1, 2, 6, 7}), {3, 3}, {1, 1}, {1, 1, 1, 1}, false,
                       false));
  cases.push_back(pool("avg_pool2d_3x3_stride1_pad1_include_pad",
                       Shape({1, 2, 6, 7}), {3, 3}, {1, 1}, {1, 1, 1, 1}, false,
                       true));
  // More than half a kernel of padding (ONNX test_averagepool_2d_pads).
  cases.push_back(pool("avg_pool2d_pad2_kernel3_include_pad",
                       Shape({1, 2, 7, 7}), {3, 3}, {1, 1}, {2, 2, 2, 2}, false,
                       true));
  cases.push_back(pool("avg_pool2d_pad2_kernel3_exclude_pad",
                       Shape({1, 2, 7, 7}), {3, 3}, {1, 1}, {2, 2, 2, 2}, false,
                       false));
  // ceil_mode: the last window hangs past the input (and past the end
  // padding, which count_include_pad must not count).
  for (bool include : {false, true}) {
    const std::string suffix = include ? "_include_pad" : "_exclude_pad";
    cases.push_back(pool("avg_pool2d_ceil" + suffix, Shape({1, 2, 4, 4}),
                         {3, 3}, {2, 2}, {0, 0, 0, 0}, true, include));
    cases.push_back(pool("avg_pool2d_ceil_pad1" + suffix, Shape({2, 1, 6, 7}),
                         {3, 3}, {2, 2}, {1, 1, 1, 1}, true, include));
    // Asymmetric pads, as SAME_UPPER / SAME_LOWER give, with ceil_mode.
    cases.push_back(pool("avg_pool2d_ceil_asymmetric" + suffix,
                         Shape({1, 3, 7, 5}), {3, 2}, {2, 3}, {0, 1, 1, 0},
                         true, include));
    cases.push_back(pool("avg_pool2d_same_upper" + suffix, Shape({1, 2, 6, 6}),
                         {2, 2}, {1, 1}, {0, 0, 1, 1}, false, include));
    cases.push_back(pool("avg_pool2d_same_lower" + suffix, Shape({1, 2, 6, 6}),
                         {2, 2}, {1, 1}, {1, 1, 0, 0}, false, include));
    // A ceil window that would start in the end padding alone is dropped.
    cases.push_back(pool("avg_pool2d_ceil_drop_last" + suffix,
                         Shape({1, 1, 5, 5}), {2, 2}, {2, 2}, {1, 1, 1, 1},
                         true, include));
  }
  cases.push_back(pool("avg_pool2d_rectangular_strides", Shape({2, 2, 9, 11}),
                       {2, 4}, {3, 2}, {1, 0, 0, 3}, false, true));
  cases.push_back(pool("avg_pool2d_global_7x7", Shape({1, 4, 7, 7}), {7, 7},
                       {1, 1}, {0, 0, 0, 0}, false, false));
}

void AddReduceCases(std::vector<ConformanceCase>& cases) {
  const std::vector<std::pair<Shape, Ints>> shapes_axes = {
      {Shape({3, 2, 2}), {}},   // every axis
      {Shape({3, 2, 2}), {1}},  // ONNX's examples
      {Shape({3, 2, 2}), {-2}},
      {Shape({2, 3, 4, 5}), {-1}},       // contiguous rows
      {Shape({2, 3, 4, 5}), {1, 2}},     // a middle block
      {Shape({2, 3, 4, 5}), {0, 2}},     // two passes
      {Shape({2, 3, 4, 5}), {3, 0, 1}},  // unordered, non-adjacent
      {Shape({4, 1, 6}), {1}},           // a length-1 axis: a copy
      {Shape({3, 70, 40}), {1}},         // long enough to split over threads
      {Shape({2, 5, 1100}), {1}},        // rows wider than one column block
      {Shape({64, 600}), {-1}},
  };
  for (const char* op :
       {"reduce_mean", "reduce_sum", "reduce_max", "reduce_min"}) {
    for (const auto& [shape, axes] : shapes_axes) {
      for (bool keepdims : {true, false}) {
        std::string name =
            absl::StrCat(op, "_", absl::StrJoin(shape.dims(), "x"), "_axes_",
                         Join(axes), keepdims ? "_keepdims" : "");
        ConformanceCase c = Case(std::move(name), op, {shape}, {},
                                 {{"axes", axes}, {"keepdims", keepdims}});
        if (std::string(op) == "reduce_max" ||
            std::string(op) == "reduce_min") {
          c.tolerance = kExact;
        }
        cases.push_back(std::move(c));
      }
    }
  }
  // reduce_prod: few factors per product (and values up to 2 in size), so
  // products neither underflow nor overflow float32.
  const std::vector<std::pair<Shape, Ints>> prod_shapes_axes = {
      {Shape({3, 2, 2}), {}},       {Shape({3, 2, 2}), {1}},
      {Shape({2, 3, 4, 5}), {-1}},  {Shape({2, 3, 4, 5}), {1, 2}},
      {Shape({2, 3, 4, 5}), {3, 0}}, {Shape({4, 1, 6}), {1}},
      {Shape({600, 4, 3}), {1}},
  };
  for (const auto& [shape, axes] : prod_shapes_axes) {
    for (bool keepdims : {true, false}) {
      ConformanceCase c = Case(
          absl::StrCat("reduce_prod_", absl::StrJoin(shape.dims(), "x"), "_axes_",
                       Join(axes), keepdims ? "_keepdims" : ""),
          "reduce_prod", {shape}, {}, {{"axes", axes}, {"keepdims", keepdims}});
      c.scale = 2.0f;
      cases.push_back(std::move(c));
    }
  }
  // Integers (shape arithmetic): max and min in int64 and int32, prod in
  // int64 (wrapping when it overflows: 60 factors of up to 100 do).
  for (DType dtype : {DType::kInt64, DType::kInt32}) {
    for (const char* op : {"reduce_max", "reduce_min"}) {
      cases.push_back(InDType(Case(absl::StrCat(op, "_ints_axis1"), op,
                                   {Shape({2, 3, 4, 5})}, {},
                                   {{"axes", Ints{1}}, {"keepdims", true}}),
                              dtype));
      cases.push_back(InDType(Case(absl::StrCat(op, "_ints_all"), op, {Shape({4})},
                                   {}, {{"axes", Ints{}}, {"keepdims", false}}),
                              dtype));
    }
  }
  // float64 (ONNX's double reductions).
  for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"}) {
    cases.push_back(InDType(Case(absl::StrCat(op, "_f64_axes02"), op,
                                 {Shape({2, 3, 4, 5})}, {},
                                 {{"axes", Ints{0, 2}}, {"keepdims", true}}),
                            DType::kFloat64));
    cases.push_back(InDType(Case(absl::StrCat(op, "_f64_all"), op, {Shape({70, 40})},
                                 {}, {{"axes", Ints{}}, {"keepdims", false}}),
                            DType::kFloat64));
  }
  cases.push_back(InDType(Case("reduce_prod_ints_axis0", "reduce_prod",
                               {Shape({3, 4})}, {},
                               {{"axes", Ints{0}}, {"keepdims", false}}),
                          DType::kInt64));
  cases.push_back(InDType(Case("reduce_prod_ints_wraps", "reduce_prod",
                               {Shape({2, 60})}, {},
                               {{"axes", Ints{1}}, {"keepdims", true}}),
                          DType::kInt64));
  // A reduction over an empty axis: sum 0, mean NaN, max -inf, min +inf,
  // prod 1.
  for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
                         "reduce_prod"}) {
    ConformanceCase c =
        Case(absl::StrCat(op, "_empty_axis"), op, {Shape({3, 0, 2})}, {},
             {{"axes", Ints{1}}, {"keepdims", false}});
    c.tolerance = kExact;
    cases.push_back(std::move(c));
  }
}

// argmax, argmin: every axis kind, both tie rules; integers in [-100, 100]
// tie often, so the rule is checked against the reference.
void AddArgReduceCases(std::vector<ConformanceCase>& cases) {
  const std::vector<std::pair<Shape, int64_t>> shapes_axis = {
      {Shape({2, 2}), 0},     {Shape({3, 4, 5}), 1}, {Shape({3, 4, 5}), -1},
      {Shape({7}), 0},        {Shape({6, 1, 3}), 1}, {Shape({300, 200}), 0},
  };
  for (const char* op : {"argmax", "argmin"}) {
    for (const auto& [shape, axis] : shapes_axis) {
      for (bool keepdims : {true, false}) {
        for (bool last : {false, true}) {
          const std::string name = absl::StrCat(
              op, "_", absl::StrJoin(shape.dims(), "x"), "_axis", axis < 0 ? "_neg" : "",
              axis < 0 ? -axis : axis, keepdims ? "_keepdims" : "", last ? "_last" : "");
          ConformanceCase c = Case(name, op, {shape}, {},
                                   {{"axis", axis},
                                    {"keepdims", keepdims},
                                    {"select_last_index", last}});
          c.tolerance = kExact;
          cases.push_back(c);
          if (shape.num_elements() < 1000) {
            for (DType dtype : {DType::kFloat64, DType::kInt64, DType::kInt32}) {
              cases.push_back(InDType(c, dtype));
            }
          }
        }
      }
    }
  }
}

// cumsum: every direction on the first, middle and last dim; integers
// exactly (they wrap alike), floats within the default tolerance (float32
// running sums against the reference's double ones).
void AddCumSumCases(std::vector<ConformanceCase>& cases) {
  const std::vector<std::pair<Shape, int64_t>> shapes_axis = {
      {Shape({5}), 0}, {Shape({2, 3}), 0}, {Shape({2, 3}), -1},
      {Shape({3, 4, 5}), 1}, {Shape({0, 4}), 1}, {Shape({200, 300}), 0},
  };
  for (const auto& [shape, axis] : shapes_axis) {
    for (bool exclusive : {false, true}) {
      for (bool reverse : {false, true}) {
        ConformanceCase c = Case(
            absl::StrCat("cumsum_", absl::StrJoin(shape.dims(), "x"), "_axis",
                         axis < 0 ? "_neg" : "", axis < 0 ? -axis : axis,
                         exclusive ? "_exclusive" : "", reverse ? "_reverse" : ""),
            "cumsum", {shape}, {},
            {{"axis", axis}, {"exclusive", exclusive}, {"reverse", reverse}});
        cases.push_back(c);
        if (shape.num_elements() < 1000) {
          for (DType dtype : {DType::kFloat64, DType::kInt64, DType::kInt32}) {
            cases.push_back(InDType(c, dtype));
          }
        }
      }
    }
  }
}

void AddGemmCases(std::vector<ConformanceCase>& cases) {
  const int64_t m = 5, k = 7, n = 4;
  const std::vector<std::pair<std::string, Shape>> biases = {
      {"c_n", Shape({n})},   {"c_mn", Shape({m, n})},  {"c_1x1", Shape({1, 1})},
      {"c_scalar", Shape()}, {"c_1xn", Shape({1, n})}, {"c_mx1", Shape({m, 1})},
  };
  for (bool trans_a : {false, true}) {
    for (bool trans_b : {false, true}) {
      const Shape a = trans_a ? Shape({k, m}) : Shape({m, k});
      const Shape b = trans_b ? Shape({n, k}) : Shape({k, n});
      const std::string ab =
          absl::StrCat(trans_a ? "_ta" : "", trans_b ? "_tb" : "");
      // Every trans combination with each (alpha, beta) and each c shape.
      for (const auto& [alpha, beta] : std::vector<std::pair<double, double>>{
               {1.0, 1.0}, {0.25, 0.35}, {-2.0, 0.0}}) {
        const std::string ab_ = absl::StrCat(
            ab, alpha == 1.0 ? "" : (alpha < 0 ? "_alpha_neg" : "_alpha"),
            beta == 1.0 ? "" : (beta == 0.0 ? "_beta0" : "_beta"));
        for (const auto& [c_name, c_shape] : biases) {
          cases.push_back(Case(absl::StrCat("gemm", ab_, "_", c_name), "gemm",
                               {a, b}, {c_shape},
                               {{"trans_a", trans_a},
                                {"trans_b", trans_b},
                                {"alpha", alpha},
                                {"beta", beta}}));
        }
        cases.push_back(Case(absl::StrCat("gemm", ab_, "_no_c"), "gemm", {a, b},
                             {},
                             {{"trans_a", trans_a},
                              {"trans_b", trans_b},
                              {"alpha", alpha},
                              {"beta", beta}}));
      }
    }
  }
  // Large enough to split over threads, both ways (tall and wide).
  cases.push_back(Case("gemm_tall_threads", "gemm",
                       {Shape({96, 64}), Shape({64, 40})}, {Shape({40})},
                       {{"trans_b", false}, {"alpha", 0.5}, {"beta", 2.0}}));
  cases.push_back(Case("gemm_wide_threads_ta_tb", "gemm",
                       {Shape({64, 24}), Shape({200, 64})}, {Shape({24, 200})},
                       {{"trans_a", true}, {"trans_b", true}}));
}

void AddMatmulCases(std::vector<ConformanceCase>& cases) {
  const std::vector<std::pair<std::string, std::pair<Shape, Shape>>> shapes = {
      {"2d", {Shape({3, 4}), Shape({4, 3})}},
      {"3d", {Shape({2, 3, 4}), Shape({2, 4, 3})}},
      {"4d", {Shape({1, 2, 3, 4}), Shape({1, 2, 4, 3})}},
      {"1d_1d", {Shape({6}), Shape({6})}},
      {"1d_2d", {Shape({5}), Shape({5, 3})}},
      {"2d_1d", {Shape({3, 5}), Shape({5})}},
      {"1d_3d", {Shape({4}), Shape({2, 4, 3})}},
      {"3d_1d", {Shape({2, 3, 4}), Shape({4})}},
      {"3d_2d_shared_b", {Shape({2, 3, 4}), Shape({4, 5})}},
      {"2d_3d_shared_a", {Shape({3, 4}), Shape({2, 4, 5})}},
      {"broadcast_batch", {Shape({2, 1, 3, 4}), Shape({3, 4, 2})}},
      {"broadcast_both", {Shape({3, 1, 2, 5}), Shape({1, 4, 5, 3})}},
      {"attention_heads", {Shape({2, 4, 16, 8}), Shape({2, 4, 8, 16})}},
      {"threads_tall", {Shape({300, 64}), Shape({64, 48})}},
      {"threads_batched_b_shared", {Shape({4, 50, 32}), Shape({1, 32, 40})}},
  };
  for (const auto& [name, ab] : shapes) {
    cases.push_back(Case("matmul_" + name, "matmul", {ab.first, ab.second}));
  }
}

// matmul_integer and conv_integer: 8-bit operands (uint8 a or input with
// int8 weights, and all-int8), scalar and per-column zero points, int32
// results compared exactly. Long reductions reach sums a 16-bit pair sum
// would overflow.
void AddIntegerProductCases(std::vector<ConformanceCase>& cases) {
  for (DType dtype : {DType::kUInt8, DType::kInt8}) {
    ConformanceCase mm = InDType(
        Case("matmul_integer", "matmul_integer", {Shape({2, 3, 40})},
             {Shape({40, 5}), Shape({}), Shape({5})}),
        dtype);
    mm.operand_values[1] = {DType::kInt8, -128, 127};
    mm.operand_values[3] = {DType::kInt8, -128, 127};
    cases.push_back(mm);
    ConformanceCase long_k = InDType(
        Case("matmul_integer_long_k", "matmul_integer", {Shape({3, 300})},
             {Shape({300, 4}), Shape({}), Shape({})}),
        dtype);
    long_k.operand_values[1] = {DType::kInt8, -128, 127};
    long_k.operand_values[3] = {DType::kInt8, -128, 127};
    cases.push_back(long_k);
    // Symmetric int8 weights (zero point 0): the dynamically quantized
    // form oneDNN's int8 matmul runs; a batch of rows folded.
    ConformanceCase symmetric = InDType(
        Case("matmul_integer_symmetric", "matmul_integer", {Shape({2, 3, 300})},
             {Shape({300, 7}), Shape({}), Shape({})}),
        dtype);
    symmetric.operand_values[1] = {DType::kInt8, -127, 127};
    symmetric.operand_values[3] = {DType::kInt8, 0, 0, /*zeros=*/true};
    cases.push_back(symmetric);
    ConformanceCase conv = InDType(
        Case("conv_integer_pad1", "conv_integer", {Shape({1, 3, 6, 6})},
             {Shape({4, 3, 3, 3}), Shape({}), Shape({})}, {{"padding", Ints{1, 1}}}),
        dtype);
    conv.operand_values[1] = {DType::kInt8, -128, 127};
    conv.operand_values[3] = {DType::kInt8, -128, 127};
    cases.push_back(conv);
    ConformanceCase grouped = InDType(
        Case("conv_integer_groups2_stride2", "conv_integer", {Shape({2, 4, 7, 7})},
             {Shape({6, 2, 3, 3}), Shape({}), Shape({})},
             {{"groups", int64_t{2}}, {"stride", Ints{2, 2}}}),
        dtype);
    grouped.operand_values[1] = {DType::kInt8, -128, 127};
    grouped.operand_values[3] = {DType::kInt8, -128, 127};
    cases.push_back(grouped);
    // qlinear_conv: small operands so that the requantized outputs spread
    // over the 8-bit range, some saturating; multipliers in [0.1, 0.6). The
    // per-channel case has symmetric weights (zero points 0), the form
    // ONNX Runtime's quantizer writes and oneDNN's int8 convolutions take.
    for (bool per_channel : {false, true}) {
      ConformanceCase q = InDType(
          Case(per_channel ? "qlinear_conv_per_channel" : "qlinear_conv_pad1_stride2",
               "qlinear_conv", {Shape({2, 3, 7, 7})},
               {Shape({4, 3, 3, 3}), Shape({4}), Shape({}), Shape({}),
                Shape(per_channel ? std::vector<int64_t>{4} : std::vector<int64_t>{}),
                Shape({})},
               {{"padding", Ints{1, 1}}, {"stride", Ints{per_channel ? 1 : 2, 2}}}),
          dtype);
      q.operand_values[0] = {dtype, 0, 9};
      q.operand_values[1] = {DType::kInt8, -9, 9};
      q.operand_values[2] = {DType::kInt32, -60, 60};
      q.operand_values[3] = {dtype, 1, 5};
      q.operand_values[4] = {DType::kInt8, -3, 3, /*zeros=*/per_channel};
      q.operand_values[5] = {DType::kFloat32};
      q.operand_values[6] = {per_channel ? DType::kInt8 : DType::kUInt8, 3, 30};
      q.scale = 0.5f;
      q.positive_params = {4};
      cases.push_back(q);
    }
    // qlinear_add: zero points inside the range, scales in [0.1, 0.6); some
    // sums saturate. The output is int8 for the uint8 case (another dtype
    // than its operands'), uint8 for int8.
    ConformanceCase add = InDType(
        Case("qlinear_add", "qlinear_add", {Shape({2, 3, 5, 7}), Shape({2, 3, 5, 7})},
             {Shape({}), Shape({}), Shape({}), Shape({}), Shape({}), Shape({})}),
        dtype);
    add.operand_values[2] = {DType::kFloat32};
    add.operand_values[3] = {dtype, dtype == DType::kUInt8 ? 100 : -20, dtype == DType::kUInt8 ? 150 : 20};
    add.operand_values[4] = {DType::kFloat32};
    add.operand_values[5] = {dtype, dtype == DType::kUInt8 ? 100 : -20, dtype == DType::kUInt8 ? 150 : 20};
    add.operand_values[6] = {DType::kFloat32};
    add.operand_values[7] = {dtype == DType::kUInt8 ? DType::kInt8 : DType::kUInt8, 0, 30};
    add.scale = 0.5f;
    add.positive_params = {0, 2, 4};
    cases.push_back(add);
  }
}

// quantize_linear over values that land on ties, saturate both ways and
// include zero; dequantize_linear over every 8-bit value's range;
// dynamic_quantize_linear over data of both signs, in [-1, 1) and in
// [-30, 30).
void AddLinearQuantizationCases(std::vector<ConformanceCase>& cases) {
  cases.push_back(Case("dynamic_quantize_linear", "dynamic_quantize_linear",
                       {Shape({3, 5, 70})}));
  ConformanceCase wide = Case("dynamic_quantize_linear_wide", "dynamic_quantize_linear",
                              {Shape({2, 40})});
  wide.scale = 30.0f;
  cases.push_back(wide);
  for (DType dtype : {DType::kUInt8, DType::kInt8}) {
    ConformanceCase q = Case(absl::StrCat("quantize_linear_", DTypeName(dtype)),
                             "quantize_linear", {Shape({2, 3, 40})}, {Shape({}), Shape({})});
    q.scale = 40.0f;  // x and the scale up to 40: small and saturated results
    q.positive_params = {0};
    q.operand_values[2] = {dtype, dtype == DType::kUInt8 ? 100 : -20,
                           dtype == DType::kUInt8 ? 140 : 20};
    cases.push_back(q);
    ConformanceCase dq = InDType(
        Case("dequantize_linear", "dequantize_linear", {Shape({4, 70})}, {Shape({}), Shape({})}),
        dtype);
    dq.operand_values[1] = {DType::kFloat32};
    dq.positive_params = {0};
    cases.push_back(dq);
  }
}

void AddLayerNormCases(std::vector<ConformanceCase>& cases) {
  cases.push_back(Case("layer_norm_last_axis", "layer_norm", {Shape({2, 3, 8})},
                       {Shape({8}), Shape({8})},
                       {{"axis", int64_t{-1}}, {"epsilon", 1e-5}}));
  cases.push_back(Case("layer_norm_axis_m2", "layer_norm",
                       {Shape({2, 3, 4, 5})}, {Shape({4, 5}), Shape({4, 5})},
                       {{"axis", int64_t{-2}}, {"epsilon", 1e-5}}));
  cases.push_back(Case("layer_norm_axis0", "layer_norm", {Shape({3, 4})},
                       {Shape({3, 4}), Shape({3, 4})},
                       {{"axis", int64_t{0}}, {"epsilon", 1e-5}}));
  cases.push_back(Case("layer_norm_no_bias_epsilon", "layer_norm",
                       {Shape({4, 6})}, {Shape({6})},
                       {{"axis", int64_t{1}}, {"epsilon", 0.1}}));
  cases.push_back(Case("layer_norm_transformer_rows", "layer_norm",
                       {Shape({2, 64, 96})}, {Shape({96}), Shape({96})},
                       {{"axis", int64_t{-1}}, {"epsilon", 1e-5}}));
  // A large mean: a one-pass variance would cancel.
  ConformanceCase shifted = Case("layer_norm_wide_values", "layer_norm",
                                 {Shape({3, 16})}, {Shape({16}), Shape({16})},
                                 {{"axis", int64_t{-1}}, {"epsilon", 1e-5}});
  shifted.scale = 100.0f;
  cases.push_back(std::move(shifted));
}

void AddLogSoftmaxCases(std::vector<ConformanceCase>& cases) {
  cases.push_back(Case("log_softmax_last_dim", "log_softmax",
                       {Shape({3, 4, 5})}, {}, {{"dim", int64_t{-1}}}));
  cases.push_back(Case("log_softmax_middle_dim", "log_softmax",
                       {Shape({3, 4, 5})}, {}, {{"dim", int64_t{1}}}));
  cases.push_back(Case("log_softmax_first_dim", "log_softmax",
                       {Shape({3, 4, 5})}, {}, {{"dim", int64_t{0}}}));
  cases.push_back(Case("log_softmax_1d", "log_softmax", {Shape({7})}, {},
                       {{"dim", int64_t{0}}}));
  cases.push_back(Case("log_softmax_long_rows", "log_softmax",
                       {Shape({40, 1000})}, {}, {{"dim", int64_t{-1}}}));
  // exp(200) overflows float: only the shifted form gets this right.
  ConformanceCase huge = Case("log_softmax_huge_values", "log_softmax",
                              {Shape({2, 6})}, {}, {{"dim", int64_t{-1}}});
  huge.scale = 200.0f;
  huge.tolerance = Tolerance{1e-4, 1e-5};
  cases.push_back(std::move(huge));
}

}  // namespace

// resize: every mode, coordinate mode and nearest mode, up and down,
// scales that are not out / in (as ONNX models give), identity axes, and
// the cpu kernel's two paths (only the last two axes change, or others).
void AddResizeCases(std::vector<ConformanceCase>& cases) {
  using Doubles = std::vector<double>;
  const auto resize = [](std::string name, Shape input, Ints sizes,
                         std::string mode, std::string coordinate,
                         Doubles scales = {}, std::string nearest =
                                                  "round_prefer_floor") {
    ConformanceCase c = Case(std::move(name), "resize", {std::move(input)}, {},
                             {{"sizes", sizes},
                              {"scales", scales},
                              {"mode", mode},
                              {"coordinate_transformation_mode", coordinate},
                              {"nearest_mode", nearest}});
    // Nearest copies one element: every backend picks the same one.
    if (mode == "nearest") c.tolerance = kExact;
    return c;
  };
  const std::vector<std::string> coordinates = {
      "half_pixel",   "pytorch_half_pixel",   "align_corners",
      "asymmetric",   "tf_half_pixel_for_nn", "half_pixel_symmetric"};
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    for (const std::string& coordinate : coordinates) {
      const std::string base = absl::StrCat("resize_", mode, "_", coordinate);
      cases.push_back(resize(base + "_up", Shape({1, 2, 4, 5}), {1, 2, 7, 10},
                             mode, coordinate));
      cases.push_back(resize(base + "_down", Shape({2, 1, 9, 8}), {2, 1, 4, 3},
                             mode, coordinate));
    }
  }
  // Scales given, so length_resized is a fraction: ONNX's
  // test_resize_downsample_scales_*; and scales of 2 and 0.5, whose
  // asymmetric coordinates fall on .5 (nearest_mode's ties).
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    for (const char* coordinate :
         {"half_pixel", "align_corners", "half_pixel_symmetric"}) {
      cases.push_back(resize(absl::StrCat("resize_", mode, "_", coordinate,
                                          "_scales_0p6"),
                             Shape({1, 1, 2, 4}), {1, 1, 1, 2}, mode,
                             coordinate, {1, 1, 0.6, 0.6}));
    }
  }
  for (const std::string nearest :
       {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
    cases.push_back(resize("resize_nearest_" + nearest + "_asymmetric_x2",
                           Shape({1, 3, 3, 4}), {1, 3, 6, 8}, "nearest",
                           "asymmetric", {1, 1, 2, 2}, nearest));
    cases.push_back(resize("resize_nearest_" + nearest + "_half_pixel_x0p5",
                           Shape({1, 2, 8, 6}), {1, 2, 4, 3}, "nearest",
                           "half_pixel", {1, 1, 0.5, 0.5}, nearest));
    cases.push_back(resize("resize_nearest_" + nearest + "_align_corners",
                           Shape({1, 1, 5, 4}), {1, 1, 8, 7}, "nearest",
                           "align_corners", {}, nearest));
  }
  // Cubic's parameter and exclude_outside.
  for (bool exclude : {false, true}) {
    ConformanceCase c = resize(
        absl::StrCat("resize_cubic_a_m0p5", exclude ? "_exclude_outside" : ""),
        Shape({1, 1, 4, 4}), {1, 1, 8, 8}, "cubic", "half_pixel");
    c.attrs.Set("cubic_coeff_a", -0.5);
    c.attrs.Set("exclude_outside", exclude);
    cases.push_back(c);
    c = resize(absl::StrCat("resize_cubic_down", exclude ? "_exclude_outside" : ""),
               Shape({2, 6, 7}), {2, 3, 3}, "cubic", "asymmetric");
    c.attrs.Set("exclude_outside", exclude);
    cases.push_back(c);
  }
  // Ranks, identity axes and the generic (axis by axis) path.
  cases.push_back(resize("resize_linear_identity", Shape({2, 3, 4, 5}),
                         {2, 3, 4, 5}, "linear", "half_pixel"));
  cases.push_back(resize("resize_linear_only_width", Shape({2, 3, 4, 5}),
                         {2, 3, 4, 9}, "linear", "half_pixel"));
  cases.push_back(resize("resize_linear_only_height", Shape({2, 3, 4, 5}),
                         {2, 3, 7, 5}, "linear", "align_corners"));
  cases.push_back(resize("resize_linear_rank1", Shape({7}), {12}, "linear",
                         "half_pixel"));
  cases.push_back(resize("resize_linear_rank2", Shape({5, 6}), {3, 11},
                         "linear", "pytorch_half_pixel"));
  cases.push_back(resize("resize_linear_rank3_all_axes", Shape({2, 5, 6}),
                         {3, 4, 9}, "linear", "half_pixel"));
  cases.push_back(resize("resize_nearest_rank3_first_axis", Shape({3, 4, 5}),
                         {5, 4, 5}, "nearest", "asymmetric"));
  cases.push_back(resize("resize_linear_channels", Shape({1, 3, 4, 4}),
                         {1, 6, 4, 8}, "linear", "half_pixel"));
  cases.push_back(resize("resize_linear_rank5", Shape({1, 2, 3, 4, 5}),
                         {1, 2, 6, 3, 8}, "linear", "half_pixel"));
  cases.push_back(resize("resize_cubic_rank5", Shape({1, 1, 4, 3, 5}),
                         {1, 1, 5, 6, 3}, "cubic", "half_pixel"));
  cases.push_back(resize("resize_nearest_rank5", Shape({2, 1, 3, 4, 2}),
                         {2, 1, 6, 2, 4}, "nearest", "half_pixel"));
  // Scale 1 with the size unchanged is identity, whatever the mode.
  cases.push_back(resize("resize_linear_scale1_axes_tf_half_pixel",
                         Shape({1, 2, 3, 4}), {1, 2, 6, 4}, "linear",
                         "tf_half_pixel_for_nn", {1, 1, 2, 1}));
  // Large enough for the cpu kernel's threads, on both paths.
  cases.push_back(resize("resize_linear_large", Shape({2, 3, 48, 64}),
                         {2, 3, 96, 120}, "linear", "half_pixel"));
  cases.push_back(resize("resize_nearest_large_generic", Shape({4, 40, 50}),
                         {8, 60, 50}, "nearest", "half_pixel"));
  // float64: every path once.
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    cases.push_back(InDType(resize(absl::StrCat("resize_", mode, "_nchw"),
                                   Shape({1, 2, 5, 4}), {1, 2, 8, 3}, mode,
                                   "half_pixel"),
                            DType::kFloat64));
    cases.push_back(InDType(resize(absl::StrCat("resize_", mode, "_generic"),
                                   Shape({3, 4, 5}), {5, 2, 5}, mode,
                                   "align_corners"),
                            DType::kFloat64));
  }
}

// roi_align: two images (batch indices 0 or 1; OperandValues needs a
// range), RoIs uniform in [-8, 8) on 8x8 (and 5x7) maps, so some are
// reversed, some reach past the edges and some are smaller than a pixel;
// both coordinate modes, fixed and adaptive sampling, both pooling modes,
// a scale below 1, and no RoIs at all. Float32 on the CPU against the
// reference's doubles: a few ulps.
void AddRoiAlignCases(std::vector<ConformanceCase>& cases) {
  struct Setup {
    const char* name;
    Shape input;
    int64_t rois, oh, ow, ratio;
    double scale;
    bool aligned;
    const char* mode;
  };
  for (const Setup& s : std::vector<Setup>{
           {"fixed_grid", Shape({2, 3, 8, 8}), 5, 3, 3, 2, 1.0, false, "avg"},
           {"adaptive_grid", Shape({2, 3, 8, 8}), 5, 2, 2, 0, 1.0, false, "avg"},
           {"aligned", Shape({2, 4, 5, 7}), 6, 2, 3, 2, 1.0, true, "avg"},
           {"aligned_adaptive", Shape({2, 2, 8, 8}), 4, 3, 2, 0, 1.0, true, "avg"},
           {"scaled", Shape({2, 2, 8, 8}), 4, 2, 2, 2, 0.5, false, "avg"},
           {"max", Shape({2, 3, 8, 8}), 5, 2, 2, 2, 1.0, false, "max"},
           {"max_aligned", Shape({2, 2, 5, 7}), 3, 3, 3, 0, 1.0, true, "max"},
           {"no_rois", Shape({2, 3, 8, 8}), 0, 2, 2, 2, 1.0, false, "avg"},
       }) {
    ConformanceCase c = Case(absl::StrCat("roi_align_", s.name), "roi_align",
                             {s.input, Shape({s.rois, 4}), Shape({s.rois})}, {},
                             {{"output_height", s.oh},
                              {"output_width", s.ow},
                              {"sampling_ratio", s.ratio},
                              {"spatial_scale", s.scale},
                              {"aligned", s.aligned},
                              {"mode", std::string(s.mode)}});
    c.scale = 8.0f;
    c.operand_values[2] = {DType::kInt64, 0, s.input.dim(0) - 1};
    c.tolerance = Tolerance{1e-5, 1e-5};
    cases.push_back(c);
  }
}

// conv_transpose2d: Mask R-CNN's 2x2 stride-2 upsampling, a 3x3 stride 2
// with padding and output_padding (the classic exact 2x), dilation, groups,
// asymmetric padding, no bias, float64. Sums of products in another order
// than the reference's doubles: a float32 tolerance.
void AddConvTransposeCases(std::vector<ConformanceCase>& cases) {
  using Pad = std::vector<int64_t>;
  struct Setup {
    const char* name;
    Shape input, weight;
    Pad stride, padding, dilation, output_padding;
    int64_t groups;
    bool bias;
  };
  for (const Setup& s : std::vector<Setup>{
           {"k2_stride2", Shape({2, 4, 5, 5}), Shape({4, 3, 2, 2}), {2, 2}, {0, 0, 0, 0},
            {1, 1}, {0, 0}, 1, true},
           {"k3_stride1", Shape({1, 3, 6, 7}), Shape({3, 2, 3, 3}), {1, 1}, {0, 0, 0, 0},
            {1, 1}, {0, 0}, 1, true},
           {"k3_stride2_pad1_outpad1", Shape({1, 2, 4, 5}), Shape({2, 3, 3, 3}), {2, 2},
            {1, 1, 1, 1}, {1, 1}, {1, 1}, 1, true},
           {"dilation2", Shape({1, 2, 5, 4}), Shape({2, 2, 3, 2}), {1, 2}, {0, 0, 0, 0},
            {2, 2}, {0, 1}, 1, false},
           {"groups2", Shape({2, 4, 3, 3}), Shape({4, 3, 2, 3}), {2, 1}, {0, 1, 0, 1},
            {1, 1}, {1, 0}, 2, true},
           {"asymmetric_pads", Shape({1, 3, 4, 4}), Shape({3, 2, 3, 3}), {2, 2},
            {0, 1, 2, 1}, {1, 1}, {0, 0}, 1, true},
       }) {
    std::vector<Shape> params = {s.weight};
    if (s.bias) params.push_back(Shape({s.weight.dim(1) * s.groups}));
    ConformanceCase c = Case(absl::StrCat("conv_transpose2d_", s.name), "conv_transpose2d",
                             {s.input}, params,
                             {{"stride", s.stride},
                              {"padding", s.padding},
                              {"dilation", s.dilation},
                              {"output_padding", s.output_padding},
                              {"groups", s.groups}});
    c.tolerance = Tolerance{1e-5, 1e-4};
    cases.push_back(c);
    if (std::string(s.name) == "k2_stride2") {
      cases.push_back(InDType(c, DType::kFloat64));
    }
  }
}

std::vector<ConformanceCase> NnConformanceCases() {
  std::vector<ConformanceCase> cases;
  AddAvgPoolCases(cases);
  AddReduceCases(cases);
  AddArgReduceCases(cases);
  AddCumSumCases(cases);
  AddGemmCases(cases);
  AddMatmulCases(cases);
  AddIntegerProductCases(cases);
  AddLinearQuantizationCases(cases);
  AddLayerNormCases(cases);
  AddLogSoftmaxCases(cases);
  AddResizeCases(cases);
  AddRoiAlignCases(cases);
  AddConvTransposeCases(cases);
  return cases;
}

}  // namespace conformance
}  // namespace switchyard
