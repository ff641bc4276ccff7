#include "core/shape.h"

#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace switchyard {
namespace {

TEST(ShapeTest, CountsAndPrints) {
  Shape s({1, 3, 224, 224});
  EXPECT_EQ(s.rank(), 4);
  EXPECT_EQ(s.num_elements(), 150528);
  EXPECT_EQ(s.ToString(), "[1, 3, 224, 224]");
  EXPECT_EQ(Shape().num_elements(), 1);
  EXPECT_EQ(Shape({0, 5}).num_elements(), 0);
}

TEST(ShapeTest, CreateRejectsNegativeAndOverflow) {
  EXPECT_EQ(Shape::Create({2, -1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  const int64_t big = std::numeric_limits<int64_t>::max() / 2;
  EXPECT_EQ(Shape::Create({big, 4}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Shape::Create({big}, 4).status().code(),
            absl::StatusCode::kInvalidArgument);
  // Empty, but flatten would merge big * big: the non-zero dimensions must
  // fit too (found by tests/fuzz/graph_fuzzer).
  EXPECT_EQ(Shape::Create({0, big, big}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Shape::Create({0, big}, 1).ok());
}

}  // namespace
}  // namespace switchyard
