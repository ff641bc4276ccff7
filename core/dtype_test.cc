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
  EXPECT_EQ(AllDTypes().size(), 9u);
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

}  // namespace
}  // namespace switchyard
