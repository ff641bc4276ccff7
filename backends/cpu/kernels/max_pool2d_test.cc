// The CPU max pool's fast paths against its padded path, and NaN handling.

#include <cmath>
#include <limits>
#include <vector>

#include "core/compile.h"
#include "core/tensor.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

std::vector<float> Pool(const Shape& shape, const std::vector<float>& values,
                        std::vector<int64_t> kernel, std::vector<int64_t> stride,
                        std::vector<int64_t> padding) {
  Graph graph;
  ValueId x = graph.AddInput("x", shape, Device::Cpu());
  AttrMap attrs;
  attrs.Set("kernel_size", kernel);
  attrs.Set("stride", stride);
  attrs.Set("padding", padding);
  graph.AddOutput(graph.AddNode("max_pool2d", "pool", {x}, attrs));
  auto plan = Compile(std::move(graph));
  EXPECT_TRUE(plan.ok()) << plan.status();
  auto out = (*plan)->Run(
      {*Tensor::FromVector(shape, values, Device::Cpu(), BackendRegistry::Global())});
  EXPECT_TRUE(out.ok()) << out.status();
  return *(*out)[0].ToVector();
}

TEST(MaxPool2dKernelTest, TwoByTwoFastPathPicksTheMaximum) {
  // 1x1x2x4: windows {1, 5, -2, 0} and {3, -1, 7, 2}.
  EXPECT_EQ(Pool({1, 1, 2, 4}, {1, 5, 3, -1, -2, 0, 7, 2}, {2, 2}, {2, 2}, {0, 0}),
            (std::vector<float>{5, 7}));
}

TEST(MaxPool2dKernelTest, NanPropagatesOnEveryPath) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // 2x2 fast path: NaN in the first and in the last position of a window.
  std::vector<float> fast = Pool({1, 1, 2, 4}, {nan, 1, 2, 3, 4, 5, 6, nan},
                                 {2, 2}, {2, 2}, {0, 0});
  EXPECT_TRUE(std::isnan(fast[0]));
  EXPECT_TRUE(std::isnan(fast[1]));
  // General 3x3 path and the padded border path.
  std::vector<float> values(16, 1.0f);
  values[5] = nan;
  std::vector<float> general = Pool({1, 1, 4, 4}, values, {3, 3}, {1, 1}, {0, 0});
  EXPECT_TRUE(std::isnan(general[0]));
  std::vector<float> padded = Pool({1, 1, 4, 4}, values, {3, 3}, {3, 3}, {1, 1});
  EXPECT_TRUE(std::isnan(padded[0]));
  EXPECT_FALSE(std::isnan(padded[3]));
}

}  // namespace
}  // namespace switchyard
