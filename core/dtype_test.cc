#include "core/dtype.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

using ::testing::HasSubstr;

TEST(DTypeTest, NamesSizesAndParsingRoundTrip) {
  EXPECT_EQ(AllDTypes().size(), 17u);
  for (DType d : AllDTypes()) {
    absl::StatusOr<DType> parsed = ParseDType(DTypeName(d));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, d);
    EXPECT_GT(DTypeSize(d), 0u);
  }
  EXPECT_EQ(DTypeSize(DType::kBFloat16), 2u);
  EXPECT_EQ(DTypeSize(DType::kInt64), 8u);
  EXPECT_EQ(DTypeSize(DType::kBool), 1u);
  EXPECT_EQ(*ParseDType("half"), DType::kFloat16);
  EXPECT_EQ(*ParseDType("long"), DType::kInt64);
  EXPECT_EQ(*ParseDType("short"), DType::kInt16);
  EXPECT_EQ(*ParseDType("float8e4m3fn"), DType::kFloat8E4M3FN);
  EXPECT_EQ(*ParseDType("float8_e5m2fnuz"), DType::kFloat8E5M2FNUZ);
  EXPECT_EQ(DTypeSize(DType::kInt4), 1u);
  EXPECT_EQ(DTypeSize(DType::kUInt16), 2u);
  EXPECT_TRUE(IsFloatingPoint(DType::kFloat8E5M2));
  EXPECT_FALSE(IsFloatingPoint(DType::kInt4));
  EXPECT_EQ(IntegerMin(DType::kInt4), -8);
  EXPECT_EQ(IntegerMax(DType::kUInt4), 15);
  EXPECT_EQ(IntegerMin(DType::kInt16), -32768);
  EXPECT_EQ(IntegerMax(DType::kUInt16), 65535);
  absl::StatusOr<DType> bad = ParseDType("complex64");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("bfloat16"));
}

TEST(DTypeTest, HalfConversionsAreExactWhereRepresentable) {
  // 1.0, -2.0, the largest half, the smallest normal and subnormal.
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);  // rounds to inf
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -14)), 0x0400);
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(NAN))));
  // Round to nearest even: 1 + 2^-11 is halfway between 1 and 1 + 2^-10.
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  for (uint32_t bits = 0; bits < 0x7c00; ++bits) {  // every finite positive half
    ASSERT_EQ(FloatToHalf(HalfToFloat(static_cast<uint16_t>(bits))), bits);
  }
}

TEST(DTypeTest, BFloat16RoundsToNearestEven) {
  EXPECT_EQ(FloatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(BFloat16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(FloatToBFloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);  // tie: even
  EXPECT_EQ(FloatToBFloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(FloatToBFloat16(NAN))));
}

TEST(DTypeTest, ElementAccessConvertsAndSaturates) {
  int8_t small[2] = {0, 0};
  SetElementFromDouble(small, DType::kInt8, 0, 300.0);
  SetElementFromDouble(small, DType::kInt8, 1, -7.9);
  EXPECT_EQ(small[0], 127);
  EXPECT_EQ(small[1], -7);
  EXPECT_EQ(ElementAsDouble(small, DType::kInt8, 1), -7.0);
  int64_t big = 0;
  SetElementFromDouble(&big, DType::kInt64, 0, 1e30);
  EXPECT_EQ(big, std::numeric_limits<int64_t>::max());
  uint8_t flag = 0;
  SetElementFromDouble(&flag, DType::kBool, 0, -0.5);
  EXPECT_EQ(flag, 1);
  uint16_t h = 0;
  SetElementFromDouble(&h, DType::kFloat16, 0, 0.5);
  EXPECT_EQ(ElementAsDouble(&h, DType::kFloat16, 0), 0.5);
}

TEST(DTypeTest, Float8EncodingsOfEachFormat) {
  // The largest finite values, one, the smallest subnormals, NaN patterns.
  EXPECT_EQ(Float8ToFloat(0x7e, DType::kFloat8E4M3FN), 448.0f);
  EXPECT_EQ(Float8ToFloat(0x38, DType::kFloat8E4M3FN), 1.0f);
  EXPECT_EQ(Float8ToFloat(0x01, DType::kFloat8E4M3FN), std::ldexp(1.0f, -9));
  EXPECT_TRUE(std::isnan(Float8ToFloat(0x7f, DType::kFloat8E4M3FN)));
  EXPECT_TRUE(std::isnan(Float8ToFloat(0xff, DType::kFloat8E4M3FN)));
  EXPECT_EQ(Float8ToFloat(0x7f, DType::kFloat8E4M3FNUZ), 240.0f);
  EXPECT_EQ(Float8ToFloat(0x40, DType::kFloat8E4M3FNUZ), 1.0f);
  EXPECT_TRUE(std::isnan(Float8ToFloat(0x80, DType::kFloat8E4M3FNUZ)));
  EXPECT_EQ(Float8ToFloat(0x7b, DType::kFloat8E5M2), 57344.0f);
  EXPECT_EQ(Float8ToFloat(0x3c, DType::kFloat8E5M2), 1.0f);
  EXPECT_EQ(Float8ToFloat(0x7c, DType::kFloat8E5M2), INFINITY);
  EXPECT_EQ(Float8ToFloat(0xfc, DType::kFloat8E5M2), -INFINITY);
  EXPECT_TRUE(std::isnan(Float8ToFloat(0x7d, DType::kFloat8E5M2)));
  EXPECT_EQ(Float8ToFloat(0x7f, DType::kFloat8E5M2FNUZ), 57344.0f);
  EXPECT_EQ(Float8ToFloat(0x40, DType::kFloat8E5M2FNUZ), 1.0f);
  EXPECT_EQ(Float8ToFloat(0x01, DType::kFloat8E5M2FNUZ), std::ldexp(1.0f, -17));
  EXPECT_TRUE(std::isnan(Float8ToFloat(0x80, DType::kFloat8E5M2FNUZ)));
}

TEST(DTypeTest, Float8RoundsToNearestEvenAndSaturates) {
  const DType fn = DType::kFloat8E4M3FN;
  // 1 + 1/16 is halfway between 1 (0x38) and 1 + 1/8 (0x39): even wins.
  EXPECT_EQ(FloatToFloat8(1.0625f, fn, true), 0x38);
  EXPECT_EQ(FloatToFloat8(1.1875f, fn, true), 0x3a);
  EXPECT_EQ(FloatToFloat8(-1.0f, fn, true), 0xb8);
  // 464 is halfway between 448 and the 480 the format lacks: 448.
  EXPECT_EQ(FloatToFloat8(464.0f, fn, false), 0x7e);
  EXPECT_EQ(FloatToFloat8(465.0f, fn, false), 0x7f);  // NaN: no infinity
  EXPECT_EQ(FloatToFloat8(1e6f, fn, true), 0x7e);
  EXPECT_EQ(FloatToFloat8(-INFINITY, fn, true), 0xfe);
  EXPECT_EQ(FloatToFloat8(-0.0f, fn, true), 0x80);
  EXPECT_EQ(FloatToFloat8(-0.0f, DType::kFloat8E4M3FNUZ, true), 0x00);
  EXPECT_EQ(FloatToFloat8(NAN, DType::kFloat8E4M3FNUZ, true), 0x80);
  EXPECT_EQ(FloatToFloat8(1e6f, DType::kFloat8E5M2, false), 0x7c);  // inf
  EXPECT_EQ(FloatToFloat8(-1e6f, DType::kFloat8E5M2, true), 0xfb);
  EXPECT_EQ(FloatToFloat8(1e6f, DType::kFloat8E5M2FNUZ, false), 0x80);  // NaN
  // Subnormals round to the nearest multiple of the smallest one.
  EXPECT_EQ(FloatToFloat8(std::ldexp(1.0f, -10), fn, true), 0x00);  // tie: 0
  EXPECT_EQ(FloatToFloat8(std::ldexp(1.5f, -9), fn, true), 0x02);   // tie: 2
  // Every finite pattern of every float8 type converts back to itself.
  for (DType type : {DType::kFloat8E4M3FN, DType::kFloat8E4M3FNUZ,
                     DType::kFloat8E5M2, DType::kFloat8E5M2FNUZ}) {
    for (int bits = 0; bits < 256; ++bits) {
      const float value = Float8ToFloat(static_cast<uint8_t>(bits), type);
      if (!std::isfinite(value)) continue;
      if (value == 0 && bits == 0x80) {
        EXPECT_EQ(FloatToFloat8(value, type, true), 0x80) << DTypeName(type);
        continue;
      }
      EXPECT_EQ(FloatToFloat8(value, type, false), bits)
          << DTypeName(type) << " " << value;
    }
  }
}

TEST(DTypeTest, NarrowIntegersSaturateToTheirRange) {
  int8_t nibbles[2] = {0, 0};
  SetElementFromDouble(nibbles, DType::kInt4, 0, 100.0);
  SetElementFromDouble(nibbles, DType::kInt4, 1, -9.0);
  EXPECT_EQ(nibbles[0], 7);
  EXPECT_EQ(nibbles[1], -8);
  uint16_t wide = 0;
  SetElementFromDouble(&wide, DType::kUInt16, 0, 70000.0);
  EXPECT_EQ(wide, 65535);
  uint8_t f8 = 0;
  SetElementFromDouble(&f8, DType::kFloat8E4M3FN, 0, 3.0);
  EXPECT_EQ(ElementAsDouble(&f8, DType::kFloat8E4M3FN, 0), 3.0);
}

}  // namespace
}  // namespace switchyard
