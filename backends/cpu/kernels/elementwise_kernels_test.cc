// The CPU elementwise kernels on hand-picked values the conformance suite's
// random inputs do not reach: broadcasting values, integer wrap-around and
// division by zero, NaN through every bound and through max and min, the
// logical ops' truth tables, and cast's rules for NaN, out-of-range floats,
// narrowing integers and bool.

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

BackendDevice& Cpu() { return **BackendRegistry::Global().GetDevice(Device::Cpu()); }

template <typename T>
Tensor Make(const Shape& shape, std::vector<T> values) {
  absl::StatusOr<Tensor> t =
      Tensor::FromValues<T>(shape, absl::MakeConstSpan(values), Cpu());
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

// A bool tensor from 0s and 1s.
Tensor MakeBools(const Shape& shape, std::vector<uint8_t> values) {
  absl::StatusOr<Tensor> t = Tensor::FromBytes(shape, DType::kBool, values.data(),
                                               values.size(), Cpu());
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

// One node of `op` over `operands` on the CPU, compiled as any graph is.
absl::StatusOr<Tensor> RunOp(const std::string& op, const AttrMap& attrs,
                             const std::vector<Tensor>& operands) {
  Graph graph;
  std::vector<ValueId> ids;
  for (size_t i = 0; i < operands.size(); ++i) {
    ids.push_back(graph.AddInput("x" + std::to_string(i), operands[i].shape(),
                                 Device::Cpu(), operands[i].dtype()));
  }
  graph.AddOutput(graph.AddNode(op, op, ids, attrs));
  CompileOptions options;
  options.backends = &BackendRegistry::Global();
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
      Compile(std::move(graph), options);
  if (!plan.ok()) return plan.status();
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run(operands);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

template <typename T>
std::vector<T> Values(const absl::StatusOr<Tensor>& t) {
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok()) return {};
  absl::StatusOr<std::vector<T>> v = t->ToHost<T>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::vector<T>{};
}

// A bool tensor's bytes (0 or 1 each).
std::vector<int> Bools(const absl::StatusOr<Tensor>& t) {
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok()) return {};
  EXPECT_EQ(t->dtype(), DType::kBool);
  absl::StatusOr<std::vector<char>> bytes = t->ToBytes();
  EXPECT_TRUE(bytes.ok());
  return std::vector<int>(bytes->begin(), bytes->end());
}

AttrMap To(const std::string& dtype) {
  AttrMap a;
  a.Set("to", dtype);
  return a;
}

TEST(ElementwiseFamilyTest, BroadcastsBothWays) {
  // [2, 1] - [3]: rows minus the row.
  const Tensor col = Make<float>(Shape({2, 1}), {10, 20});
  const Tensor row = Make<float>(Shape({3}), {1, 2, 3});
  EXPECT_THAT(Values<float>(RunOp("sub", {}, {col, row})),
              ElementsAre(9, 8, 7, 19, 18, 17));
  EXPECT_THAT(Values<float>(RunOp("div", {}, {row, Make<float>(Shape(), {2})})),
              ElementsAre(0.5f, 1, 1.5f));
  EXPECT_THAT(Values<float>(RunOp("pow", {}, {row, Make<float>(Shape({1}), {2})})),
              ElementsAre(1, 4, 9));
  const Tensor a = Make<int64_t>(Shape({2, 2}), {7, -7, 9, 100});
  EXPECT_THAT(Values<int64_t>(RunOp("div", {}, {a, Make<int64_t>(Shape({2}), {2, 2})})),
              ElementsAre(3, -3, 4, 50));  // truncation toward zero
}

// pow by a constant 2 takes a multiply instead of std::pow: the same values,
// including NaN, infinities, -0, overflow to inf and underflow to 0, over a
// run long enough to take the vectorised path.
TEST(ElementwiseFamilyTest, PowByTwoMatchesStdPow) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {-3.5f, -0.0f, 0.0f, 1e-30f, 3e19f, -3e19f, inf, -inf,
                          std::nanf(""), 1.1f, -7.25f, 65504.f};
  for (int i = 0; i < 100; ++i) x.push_back(0.37f * static_cast<float>(i) - 17.f);
  const std::vector<float> got = Values<float>(RunOp(
      "pow", {}, {Make<float>(Shape({static_cast<int64_t>(x.size())}), x),
                  Make<float>(Shape({1}), {2})}));
  ASSERT_EQ(got.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = std::pow(x[i], 2.0f);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got[i])) << x[i];
    } else {
      EXPECT_EQ(got[i], want) << x[i];
    }
  }
}

TEST(ElementwiseFamilyTest, IntegersWrapAndDivisionByZeroIsAnError) {
  const int32_t max = std::numeric_limits<int32_t>::max();
  const int32_t min = std::numeric_limits<int32_t>::min();
  const Tensor a = Make<int32_t>(Shape({3}), {max, min, min});
  const Tensor b = Make<int32_t>(Shape({3}), {1, -1, -1});
  EXPECT_THAT(Values<int32_t>(RunOp("add", {}, {a, b})),
              ElementsAre(min, max, max));
  EXPECT_THAT(Values<int32_t>(RunOp("div", {}, {a, b})),
              ElementsAre(max, min, min));  // min / -1 wraps to min
  EXPECT_THAT(Values<int32_t>(RunOp("neg", {}, {a})), ElementsAre(-max, min, min));
  EXPECT_THAT(Values<uint8_t>(RunOp("mul", {},
                                    {Make<uint8_t>(Shape({2}), {200, 16}),
                                     Make<uint8_t>(Shape({2}), {2, 16})})),
              ElementsAre(144, 0));
  EXPECT_THAT(Values<int64_t>(RunOp("pow", {},
                                    {Make<int64_t>(Shape({4}), {2, -1, 3, 5}),
                                     Make<int64_t>(Shape({4}), {10, 3, 0, -1})})),
              ElementsAre(1024, -1, 1, 0));

  absl::StatusOr<Tensor> zero = RunOp(
      "div", {}, {Make<int64_t>(Shape({2}), {1, 2}), Make<int64_t>(Shape(), {0})});
  EXPECT_EQ(zero.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(zero.status().message(),
              HasSubstr("div (int64): integer division by zero"));
  absl::StatusOr<Tensor> zero_pow = RunOp(
      "pow", {}, {Make<int32_t>(Shape({1}), {0}), Make<int32_t>(Shape({1}), {-2})});
  EXPECT_EQ(zero_pow.status().code(), absl::StatusCode::kInvalidArgument);
  // Floats divide by zero into infinities.
  EXPECT_THAT(Values<float>(RunOp("div", {}, {Make<float>(Shape({2}), {1, -1}),
                                              Make<float>(Shape({2}), {0, 0})})),
              ElementsAre(kInf, -kInf));
}

TEST(ElementwiseFamilyTest, UnaryValuesAndNaN) {
  const Tensor x = Make<float>(Shape({5}), {-4, -1, 0, 2, kNaN});
  auto values = [&](const std::string& op, AttrMap attrs = {}) {
    return Values<float>(RunOp(op, attrs, {x}));
  };
  AttrMap relu6;
  relu6.Set("min", 0.0);
  relu6.Set("max", 6.0);
  std::vector<float> clip = values("clip", relu6);
  EXPECT_THAT(std::vector<float>(clip.begin(), clip.end() - 1),
              ElementsAre(0, 0, 0, 2));
  EXPECT_TRUE(std::isnan(clip.back()));
  AttrMap crossed;  // min > max: max wins
  crossed.Set("min", 1.0);
  crossed.Set("max", -1.0);
  EXPECT_THAT(Values<float>(RunOp("clip", crossed, {Make<float>(Shape({2}), {-5, 5})})),
              ElementsAre(-1, -1));
  std::vector<float> leaky = values("leaky_relu");
  EXPECT_THAT(std::vector<float>(leaky.begin(), leaky.end() - 1),
              ElementsAre(-4 * 0.01f, -0.01f, 0, 2));
  EXPECT_TRUE(std::isnan(leaky.back()));
  std::vector<float> hs = values("hard_sigmoid");  // 0.2 x + 0.5
  EXPECT_FLOAT_EQ(hs[0], 0);
  EXPECT_FLOAT_EQ(hs[1], 0.3f);
  EXPECT_FLOAT_EQ(hs[2], 0.5f);
  EXPECT_FLOAT_EQ(hs[3], 0.9f);
  EXPECT_TRUE(std::isnan(hs[4]));
  std::vector<float> swish = values("hard_swish");  // x * clamp(x / 6 + 0.5)
  EXPECT_FLOAT_EQ(swish[0], 0);
  EXPECT_FLOAT_EQ(swish[1], -1 * (0.5f - 1 / 6.0f));
  EXPECT_FLOAT_EQ(swish[3], 2 * (0.5f + 2 / 6.0f));
  EXPECT_TRUE(std::isnan(swish[4]));
  // gelu, 0.5 x (1 + erf(x / sqrt 2)), against the formula in double: 0 at
  // 0, about x for large x, a small negative value for negative x.
  const std::vector<float> gelu = values("gelu");
  const float inputs[] = {-4, -1, 0, 2};
  for (int i = 0; i < 4; ++i) {
    const double x = inputs[i];
    const double exact = 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    EXPECT_NEAR(gelu[i], exact, 1e-6 * (1 + std::fabs(exact))) << x;
  }
  EXPECT_EQ(gelu[2], 0.0f);
  for (const char* op : {"sigmoid", "erf", "gelu", "exp", "tanh", "neg", "abs",
                         "reciprocal", "sqrt"}) {
    EXPECT_TRUE(std::isnan(values(op)[4])) << op;
  }
  EXPECT_FLOAT_EQ(values("sigmoid")[2], 0.5f);
  EXPECT_FLOAT_EQ(values("erf")[3], std::erf(2.0f));
  EXPECT_FLOAT_EQ(values("tanh")[1], std::tanh(-1.0f));
  EXPECT_EQ(values("reciprocal")[2], kInf);
  // The trigonometric family on the same inputs (-4, -1, 0, 2, NaN): C's
  // values, NaN outside a function's domain.
  EXPECT_FLOAT_EQ(values("sin")[0], std::sin(-4.0f));
  EXPECT_FLOAT_EQ(values("cos")[3], std::cos(2.0f));
  EXPECT_FLOAT_EQ(values("tan")[1], std::tan(-1.0f));
  EXPECT_FLOAT_EQ(values("asin")[1], std::asin(-1.0f));
  EXPECT_TRUE(std::isnan(values("asin")[3]));
  EXPECT_FLOAT_EQ(values("acos")[2], std::acos(0.0f));
  EXPECT_FLOAT_EQ(values("atan")[0], std::atan(-4.0f));
  EXPECT_FLOAT_EQ(values("sinh")[3], std::sinh(2.0f));
  EXPECT_FLOAT_EQ(values("cosh")[0], std::cosh(-4.0f));
  EXPECT_FLOAT_EQ(values("asinh")[1], std::asinh(-1.0f));
  EXPECT_FLOAT_EQ(values("acosh")[3], std::acosh(2.0f));
  EXPECT_TRUE(std::isnan(values("acosh")[2]));
  EXPECT_EQ(values("atanh")[1], -kInf);
  for (const char* op : {"sin", "cos", "tan", "asin", "acos", "atan", "sinh",
                         "cosh", "asinh", "acosh", "atanh"}) {
    EXPECT_TRUE(std::isnan(values(op)[4])) << op;
  }

  AttrMap bounds;  // integer bounds round inward: [-2.5, 3.5] -> [-2, 3]
  bounds.Set("min", -2.5);
  bounds.Set("max", 3.5);
  EXPECT_THAT(Values<int8_t>(RunOp("clip", bounds,
                                   {Make<int8_t>(Shape({4}), {-128, -2, 3, 127})})),
              ElementsAre(-2, -2, 3, 3));
  EXPECT_THAT(Values<int8_t>(RunOp("abs", {}, {Make<int8_t>(Shape({2}), {-128, -5})})),
              ElementsAre(-128, 5));  // wraps
}

TEST(ElementwiseFamilyTest, MaxAndMinPropagateNaN) {
  const Tensor a = Make<float>(Shape({4}), {1, kNaN, -kInf, 3});
  const Tensor b = Make<float>(Shape({4}), {2, 0, 5, kNaN});
  const std::vector<float> max = Values<float>(RunOp("max", {}, {a, b}));
  const std::vector<float> min = Values<float>(RunOp("min", {}, {a, b}));
  ASSERT_EQ(max.size(), 4u);
  ASSERT_EQ(min.size(), 4u);
  EXPECT_EQ(max[0], 2);
  EXPECT_EQ(min[0], 1);
  EXPECT_EQ(max[2], 5);
  EXPECT_EQ(min[2], -kInf);
  for (int i : {1, 3}) {
    EXPECT_TRUE(std::isnan(max[i])) << i;
    EXPECT_TRUE(std::isnan(min[i])) << i;
  }
  // Broadcast, integers.
  const Tensor col = Make<int64_t>(Shape({2, 1}), {-5, 7});
  const Tensor row = Make<int64_t>(Shape({3}), {0, 6, 9});
  EXPECT_THAT(Values<int64_t>(RunOp("max", {}, {col, row})),
              ElementsAre(0, 6, 9, 7, 7, 9));
  EXPECT_THAT(Values<int64_t>(RunOp("min", {}, {col, row})),
              ElementsAre(-5, -5, -5, 0, 6, 7));
}

TEST(ElementwiseFamilyTest, LogicalTruthTables) {
  const Tensor a = MakeBools(Shape({4}), {0, 0, 1, 1});
  const Tensor b = MakeBools(Shape({4}), {0, 1, 0, 1});
  EXPECT_THAT(Bools(RunOp("logical_and", {}, {a, b})), ElementsAre(0, 0, 0, 1));
  EXPECT_THAT(Bools(RunOp("logical_or", {}, {a, b})), ElementsAre(0, 1, 1, 1));
  EXPECT_THAT(Bools(RunOp("logical_xor", {}, {a, b})), ElementsAre(0, 1, 1, 0));
  EXPECT_THAT(Bools(RunOp("logical_not", {}, {a})), ElementsAre(1, 1, 0, 0));
  // [2, 1] against [2]: broadcast both ways.
  const Tensor col = MakeBools(Shape({2, 1}), {0, 1});
  const Tensor row = MakeBools(Shape({2}), {0, 1});
  EXPECT_THAT(Bools(RunOp("logical_xor", {}, {col, row})), ElementsAre(0, 1, 1, 0));
  // Not bool: refused by shape inference.
  absl::StatusOr<Tensor> wrong =
      RunOp("logical_and", {}, {Make<float>(Shape({1}), {1}), Make<float>(Shape({1}), {1})});
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().message(), HasSubstr("logical_and takes bool"));
}

TEST(ElementwiseFamilyTest, CastRules) {
  const Tensor f = Make<float>(Shape({7}), {2.9f, -2.9f, kNaN, 1e10f, -1e10f, kInf, 0.0f});
  EXPECT_THAT(Values<int32_t>(RunOp("cast", To("int32"), {f})),
              ElementsAre(2, -2, 0, std::numeric_limits<int32_t>::max(),
                          std::numeric_limits<int32_t>::min(),
                          std::numeric_limits<int32_t>::max(), 0));
  EXPECT_THAT(Values<uint8_t>(RunOp("cast", To("uint8"), {f})),
              ElementsAre(2, 0, 0, 255, 0, 255, 0));
  // bool: nonzero (NaN too) is true.
  EXPECT_THAT(Bools(RunOp("cast", To("bool"), {f})),
              ElementsAre(1, 1, 1, 1, 1, 1, 0));
  // Integer narrowing wraps, as numpy.
  const Tensor i = Make<int64_t>(Shape({4}), {300, -1, 128, int64_t{1} << 40});
  EXPECT_THAT(Values<int8_t>(RunOp("cast", To("int8"), {i})),
              ElementsAre(44, -1, -128, 0));
  EXPECT_THAT(Values<uint8_t>(RunOp("cast", To("uint8"), {i})),
              ElementsAre(44, 255, 128, 0));
  EXPECT_THAT(Values<float>(RunOp("cast", To("float32"), {i})),
              ElementsAre(300, -1, 128, 1099511627776.0f));
  // float32 -> float16 rounds to nearest even and overflows to inf.
  absl::StatusOr<Tensor> half = RunOp(
      "cast", To("float16"), {Make<float>(Shape({3}), {1.0f + 0x1p-11f, 70000, 0.1f})});
  ASSERT_TRUE(half.ok()) << half.status();
  absl::StatusOr<std::vector<float>> back = half->ToVector();
  ASSERT_TRUE(back.ok());
  EXPECT_THAT(*back, ElementsAre(1.0f, kInf, HalfToFloat(FloatToHalf(0.1f))));
  // float64 beyond float32's range: inf, not undefined behaviour.
  EXPECT_THAT(Values<float>(RunOp("cast", To("float32"),
                                  {Make<double>(Shape({2}), {1e300, -1e300})})),
              ElementsAre(kInf, -kInf));
  const char flags[] = {1, 0};
  absl::StatusOr<Tensor> b =
      Tensor::FromBytes(Shape({2}), DType::kBool, flags, sizeof(flags), Cpu());
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_THAT(Values<double>(RunOp("cast", To("float64"), {*b})),
              ElementsAre(1.0, 0.0));
}

}  // namespace
}  // namespace switchyard
