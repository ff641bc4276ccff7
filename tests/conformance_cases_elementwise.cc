// The elementwise op family's conformance cases (see conformance_cases.h):
// add, sub, mul, div, pow, mod, max, min with every broadcasting pattern
// (same shape, scalar on either side, row, column, rank mismatch, both sides
// growing, empty, and outputs large enough to be split across threads); the
// unary ops, their attributes and integer forms; cast from every dtype to
// every dtype; the logical ops on bools; the comparisons in every dtype.
//
// Tolerances: exact (0, 0) for ops with one correctly rounded result
// (+ - * /, max, min, neg, abs, clip, leaky_relu, reciprocal, sqrt, cast); a
// few float32 ulps for the transcendental ones (kUlps below).

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "tests/conformance_cases.h"

namespace switchyard {
namespace conformance {
namespace {

constexpr Tolerance kExact = {0, 0};
// float32 has a 2^-24 unit roundoff; Eigen's vectorised exp, tanh, logistic
// and erf, glibc's powf and CUDA's expf/tanhf/erff/powf are within a few
// ulps of the correctly rounded value. atol covers results near 0, where
// an ulp of the argument is larger than one of the result.
constexpr Tolerance kUlps = {1e-7, 8 * 0x1p-24};
// gelu, 0.5 * x * (1 + erf(x / sqrt 2)) in float32 as torch and the fused
// ONNX decomposition compute it: for negative x, 1 + erf cancels, so the
// few ulps of erf near -1 (6e-8 each) come out as |x| / 2 times that, up to
// 5e-7 at the cases' |x| <= 4 (the reference rounds once, in double).
constexpr Tolerance kGeluUlps = {1e-6, 8 * 0x1p-24};

ConformanceCase With(ConformanceCase c, Tolerance t) {
  c.tolerance = t;
  return c;
}

// A case whose operands are all constants (params), each positive: pow's
// base, sqrt's and reciprocal's input. (Graph inputs cannot be made
// positive; constants can: ConformanceCase::positive_params.)
ConformanceCase Positive(std::string name, std::string op,
                         std::vector<Shape> operands,
                         std::vector<int> positive) {
  ConformanceCase c = Case(std::move(name), std::move(op), {}, std::move(operands));
  c.positive_params = std::move(positive);
  return c;
}

// The broadcasting patterns, as (suffix, input shape, other shape).
struct Pattern {
  const char* name;
  Shape input, other;
};
const std::vector<Pattern>& Patterns() {
  static const auto* patterns = new std::vector<Pattern>{
      {"same_shape", Shape({2, 3, 4}), Shape({2, 3, 4})},
      {"scalar_other", Shape({2, 3}), Shape()},
      {"scalar_input", Shape(), Shape({5})},
      {"row", Shape({3, 4, 5}), Shape({5})},
      {"column", Shape({3, 4, 5}), Shape({4, 1})},
      {"rank_mismatch", Shape({2, 3, 4, 5}), Shape({3, 1, 5})},
      {"both_sides", Shape({2, 1, 4}), Shape({3, 1})},
      {"leading_ones", Shape({1, 1, 6}), Shape({2, 3, 1})},
      {"empty", Shape({0, 3}), Shape({3})},
      // 2^16 outputs: split across the CPU's threads mid-row.
      {"threaded_same_shape", Shape({64, 1024}), Shape({64, 1024})},
      {"threaded_row", Shape({64, 1000}), Shape({1000})},
      {"threaded_column", Shape({2, 300, 111}), Shape({300, 1})},
  };
  return *patterns;
}

void AddBinaryCases(std::vector<ConformanceCase>& cases) {
  for (const char* op : {"add", "sub", "mul", "div", "max", "min"}) {
    for (const Pattern& p : Patterns()) {
      cases.push_back(
          With(Case(absl::StrCat(op, "_", p.name), op, {p.input, p.other}), kExact));
    }
    // Other dtypes: same shape and a broadcast row. Integer division: the
    // seeded divisors of these names hold no 0 (a 0 is a run-time error,
    // tested in backends/cpu/kernels/elementwise_kernels_test.cc).
    for (DType dtype : {DType::kFloat64, DType::kInt64, DType::kInt32,
                        DType::kInt8, DType::kUInt8}) {
      cases.push_back(With(InDType(Case(absl::StrCat(op, "_same_shape"), op,
                                        {Shape({2, 3}), Shape({2, 3})}),
                                   dtype),
                           kExact));
      cases.push_back(With(InDType(Case(absl::StrCat(op, "_row"), op,
                                        {Shape({3, 4}), Shape({4})}),
                                   dtype),
                           kExact));
    }
  }
  // pow: a positive base (constants), any exponent in [-2, 2).
  for (const Pattern& p : Patterns()) {
    ConformanceCase c =
        Positive(absl::StrCat("pow_", p.name), "pow", {p.input, p.other}, {0});
    c.scale = 2.0f;
    cases.push_back(With(c, kUlps));
  }
  // A negative base: NaN for a fractional exponent, as in C (both NaN
  // compare equal).
  cases.push_back(With(Case("pow_negative_base", "pow",
                            {Shape({3, 4}), Shape({4})}),
                       kUlps));
  ConformanceCase pow64 = Positive("pow_row", "pow", {Shape({3, 4}), Shape({4})}, {0});
  cases.push_back(With(InDType(pow64, DType::kFloat64), kUlps));
  // Integer powers of [-100, 100] wrap; 0 to a negative power (an error)
  // is not among these names' seeded values.
  for (DType dtype : {DType::kInt64, DType::kInt32}) {
    cases.push_back(InDType(
        Case("pow_ints", "pow", {Shape({2, 3}), Shape({3})}), dtype));
  }
  // mod in both modes: floats over the broadcast patterns (fmod is exact,
  // the sign fix-up one rounding); integer divisors of either sign, never 0
  // (a 0 is a run-time error).
  for (int64_t fmod : {0, 1}) {
    const std::string mode = fmod ? "mod_fmod" : "mod";
    for (const Pattern& p : Patterns()) {
      cases.push_back(With(Case(absl::StrCat(mode, "_", p.name), "mod",
                                {p.input, p.other}, {}, {{"fmod", fmod}}),
                           kExact));
    }
    cases.push_back(With(InDType(Case(absl::StrCat(mode, "_row"), "mod",
                                      {Shape({3, 4}), Shape({4})}, {},
                                      {{"fmod", fmod}}),
                                 DType::kFloat64),
                         kExact));
    for (DType dtype : {DType::kInt64, DType::kInt32, DType::kInt8,
                        DType::kUInt8}) {
      for (const auto& [sign, low, high] :
           {std::tuple<const char*, int64_t, int64_t>{"positive", 1, 9},
            {"negative", -9, -1}}) {
        if (dtype == DType::kUInt8 && low < 0) continue;
        ConformanceCase c = InDType(
            Case(absl::StrCat(mode, "_", sign, "_divisor"), "mod",
                 {Shape({4, 5}), Shape({5})}, {}, {{"fmod", fmod}}),
            dtype);
        c.operand_values[1] = {dtype, low, high};
        cases.push_back(c);
      }
    }
  }
}

void AddUnaryCases(std::vector<ConformanceCase>& cases) {
  const Shape shape({2, 3, 4, 5});
  const Shape threaded({4, 128, 80});  // 40960 elements: split across threads
  struct UnaryCase {
    const char* op;
    Tolerance tolerance;
    float scale;
    bool positive;
  };
  const std::vector<UnaryCase> unary = {
      {"sigmoid", kUlps, 8.0f, false},  {"erf", kUlps, 3.0f, false},
      {"gelu", kGeluUlps, 4.0f, false},
      {"sqrt", kExact, 10.0f, true},    {"exp", kUlps, 10.0f, false},
      {"log", kUlps, 10.0f, true},      {"floor", kExact, 10.0f, false},
      {"ceil", kExact, 10.0f, false},   {"round", kExact, 10.0f, false},
      {"tanh", kUlps, 4.0f, false},     {"neg", kExact, 1.0f, false},
      {"abs", kExact, 1.0f, false},     {"reciprocal", kExact, 3.0f, true},
      {"hard_sigmoid", kUlps, 5.0f, false},
      {"hard_swish", kUlps, 5.0f, false},
      {"clip", kExact, 2.0f, false},    {"leaky_relu", kExact, 2.0f, false},
      // The inverse functions' domains: asin, acos and atanh take [-1, 1],
      // acosh [1, inf) (values below 1 give NaN on every backend alike).
      {"sin", kUlps, 6.0f, false},      {"cos", kUlps, 6.0f, false},
      {"tan", kUlps, 1.5f, false},      {"asin", kUlps, 1.0f, false},
      {"acos", kUlps, 1.0f, false},     {"atan", kUlps, 5.0f, false},
      {"sinh", kUlps, 5.0f, false},     {"cosh", kUlps, 5.0f, false},
      {"asinh", kUlps, 5.0f, false},    {"acosh", kUlps, 10.0f, true},
      {"atanh", kUlps, 0.99f, false},
  };
  for (const UnaryCase& u : unary) {
    for (const auto& [suffix, s] :
         {std::pair<const char*, Shape>{"4d", shape}, {"threaded", threaded},
          {"scalar", Shape()}, {"empty", Shape({0, 4})}}) {
      ConformanceCase c =
          u.positive ? Positive(absl::StrCat(u.op, "_", suffix), u.op, {s}, {0})
                     : Case(absl::StrCat(u.op, "_", suffix), u.op, {s});
      c.scale = u.scale;
      cases.push_back(With(c, u.tolerance));
    }
    ConformanceCase f64 = u.positive
                              ? Positive(u.op, u.op, {Shape({3, 7})}, {0})
                              : Case(u.op, u.op, {Shape({3, 7})});
    f64.scale = u.scale;
    cases.push_back(With(InDType(f64, DType::kFloat64), u.tolerance));
  }
  // Negative inputs: NaN from sqrt, as in C; reciprocal of either sign.
  cases.push_back(With(Case("sqrt_any_sign", "sqrt", {Shape({4, 5})}), kExact));
  cases.push_back(
      With(Case("reciprocal_any_sign", "reciprocal", {Shape({4, 5})}), kExact));
  // Round's halves (2.5 -> 2, -2.5 -> -2) are ONNX's test_round node test;
  // uniform values here are almost never exactly half.

  // Attributes.
  using Attrs = std::vector<std::pair<std::string, AttrValue>>;
  const auto attr_case = [&](std::string name, std::string op, Attrs attrs,
                             float scale, Tolerance t) {
    ConformanceCase c = Case(std::move(name), std::move(op), {Shape({3, 4, 5})},
                             {}, std::move(attrs));
    c.scale = scale;
    cases.push_back(With(c, t));
  };
  attr_case("hard_sigmoid_onnx_example", "hard_sigmoid",
            {{"alpha", 0.5}, {"beta", 0.6}}, 3.0f, kUlps);
  attr_case("hard_sigmoid_negative_slope", "hard_sigmoid",
            {{"alpha", -0.25}, {"beta", 0.0}}, 6.0f, kUlps);
  attr_case("clip_relu6", "clip", {{"min", 0.0}, {"max", 6.0}}, 10.0f, kExact);
  attr_case("clip_min_only", "clip", {{"min", -0.3}}, 1.0f, kExact);
  attr_case("clip_max_only", "clip", {{"max", 0.1}}, 1.0f, kExact);
  attr_case("clip_min_above_max", "clip", {{"min", 0.5}, {"max", -0.5}}, 1.0f,
            kExact);
  attr_case("leaky_relu_alpha_0_1", "leaky_relu", {{"alpha", 0.1}}, 1.0f, kExact);
  attr_case("leaky_relu_alpha_2", "leaky_relu", {{"alpha", 2.0}}, 1.0f, kExact);

  // Integer forms: values in [-100, 100] (uint8: [0, 255]).
  for (DType dtype : {DType::kInt64, DType::kInt32, DType::kInt8}) {
    cases.push_back(InDType(Case("neg", "neg", {Shape({3, 7})}), dtype));
  }
  for (DType dtype : {DType::kInt64, DType::kInt32, DType::kInt8, DType::kUInt8}) {
    cases.push_back(InDType(Case("abs", "abs", {Shape({3, 7})}), dtype));
    cases.push_back(InDType(Case("clip_integer", "clip", {Shape({3, 7})}, {},
                                 {{"min", -20.5}, {"max", 40.5}}),
                            dtype));
    cases.push_back(
        InDType(Case("clip_integer_unbounded", "clip", {Shape({3, 7})}), dtype));
  }
}

void AddCastCases(std::vector<ConformanceCase>& cases) {
  // From every dtype to every dtype, "cast_<scale>_to_<to>_from_<from>":
  // floating values within [-1, 1) (most truncate to 0 in integers), and
  // wide ones that saturate every integer type but int64 (below float16's
  // largest finite value where float16 is involved: an infinity never
  // compares equal here). Integers are in [-100, 100] (uint8 [0, 255]):
  // int8 wraps from uint8.
  for (DType from : AllDTypes()) {
    for (DType to : AllDTypes()) {
      const bool half = from == DType::kFloat16 || to == DType::kFloat16;
      for (const auto& [suffix, scale] :
           {std::pair<const char*, float>{"unit", 1.0f},
            {"wide", half ? 6.0e4f : 3.0e9f}}) {
        if (!IsFloatingPoint(from) && std::string(suffix) == "wide") continue;
        ConformanceCase c =
            Case(absl::StrCat("cast_", suffix, "_to_", DTypeName(to), "_from"),
                 "cast", {Shape({4, 9})}, {}, {{"to", DTypeName(to)}});
        c.scale = scale;
        cases.push_back(With(InDType(c, from), kExact));
      }
    }
  }
  // Large: split across threads.
  ConformanceCase big = Case("cast_to_int32_threaded", "cast", {Shape({300, 200})},
                             {}, {{"to", std::string("int32")}});
  big.scale = 100.0f;
  cases.push_back(With(big, kExact));
}

// The logical ops: bool operands (random 0 or 1), every broadcasting
// pattern for the binary ones.
void AddLogicalCases(std::vector<ConformanceCase>& cases) {
  for (const char* op : {"logical_and", "logical_or", "logical_xor"}) {
    for (const Pattern& p : Patterns()) {
      cases.push_back(InDType(
          With(Case(absl::StrCat(op, "_", p.name), op, {p.input, p.other}), kExact),
          DType::kBool));
    }
  }
  for (const Shape& shape : {Shape({3, 4}), Shape(), Shape({0, 2}), Shape({300, 200})}) {
    cases.push_back(InDType(
        With(Case(absl::StrCat("logical_not_", shape.num_elements()), "logical_not",
                  {shape}),
             kExact),
        DType::kBool));
  }
}

// The comparisons: every broadcasting pattern in float32 (random floats
// are rarely equal, so equal's hits come from the integer cases: values in
// [-100, 100]) and both shapes of the other dtypes, bools included.
void AddComparisonCases(std::vector<ConformanceCase>& cases) {
  for (const char* op : {"equal", "less", "greater", "less_equal", "greater_equal"}) {
    for (const Pattern& p : Patterns()) {
      cases.push_back(With(Case(absl::StrCat(op, "_", p.name), op, {p.input, p.other}), kExact));
    }
    for (DType dtype : {DType::kFloat64, DType::kInt64, DType::kInt32, DType::kInt8,
                        DType::kUInt8, DType::kBool}) {
      cases.push_back(With(
          InDType(Case(absl::StrCat(op, "_same_shape"), op, {Shape({4, 5}), Shape({4, 5})}),
                  dtype),
          kExact));
      cases.push_back(With(
          InDType(Case(absl::StrCat(op, "_row"), op, {Shape({3, 4}), Shape({4})}), dtype),
          kExact));
    }
  }
}

}  // namespace

std::vector<ConformanceCase> ElementwiseConformanceCases() {
  std::vector<ConformanceCase> cases;
  AddBinaryCases(cases);
  AddUnaryCases(cases);
  AddCastCases(cases);
  AddLogicalCases(cases);
  AddComparisonCases(cases);
  return cases;
}

}  // namespace conformance
}  // namespace switchyard
