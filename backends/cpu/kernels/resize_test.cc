// The CPU resize's bilinear path rounds as ONNX Runtime's does: quantized
// models feed its output to DynamicQuantizeLinear, which turns a one-ulp
// difference into a whole quantization step (a published background-removal
// model drifted 0.2 from ONNX Runtime's output before this).

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/compile.h"
#include "core/tensor.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

std::vector<float> Resize(const Shape& shape, const std::vector<float>& values,
                          const std::vector<int64_t>& sizes, const std::string& coordinate) {
  Graph graph;
  ValueId x = graph.AddInput("x", shape, Device::Cpu());
  AttrMap attrs;
  attrs.Set("mode", std::string("linear"));
  attrs.Set("coordinate_transformation_mode", coordinate);
  attrs.Set("sizes", sizes);
  graph.AddOutput(graph.AddNode("resize", "up", {x}, attrs));
  auto plan = Compile(std::move(graph));
  EXPECT_TRUE(plan.ok()) << plan.status();
  auto out = (*plan)->Run(
      {*Tensor::FromVector(shape, values, Device::Cpu(), BackendRegistry::Global())});
  EXPECT_TRUE(out.ok()) << out.status();
  return *(*out)[0].ToVector();
}

// One axis as ONNX Runtime's bilinear kernel takes it: the source
// coordinate in float, clamped into the input, its two pixels and weights
// (half each when both are the last pixel).
struct Taps {
  int64_t first, second;
  float to_first, to_second;
};

Taps HalfPixelTaps(int64_t o, int64_t in, int64_t out) {
  const float scale = static_cast<float>(out) / static_cast<float>(in);
  volatile float source = (static_cast<float>(o) + 0.5f) / scale - 0.5f;
  float x = std::fmax(0.0f, std::fmin(source, static_cast<float>(in - 1)));
  Taps t;
  t.first = std::min(static_cast<int64_t>(x), in - 1);
  t.second = std::min(t.first + 1, in - 1);
  t.to_second = std::fabs(x - static_cast<float>(t.first));
  t.to_first = std::fabs(x - static_cast<float>(t.second));
  if (t.first == t.second) t.to_first = t.to_second = 0.5f;
  return t;
}

int DifferFromOnnxRuntime(int64_t c, int64_t h, int64_t w, int64_t oh, int64_t ow) {
  std::vector<float> x(c * h * w);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 7.3f * std::sin(0.37f * i + 1.0f);
  std::vector<float> y = Resize({1, c, h, w}, x, {1, c, oh, ow}, "half_pixel");
  if (y.size() != static_cast<size_t>(c * oh * ow)) return -1;
  int differ = 0;
  for (int64_t k = 0; k < c; ++k) {
    const float* plane = x.data() + k * h * w;
    for (int64_t i = 0; i < oh; ++i) {
      const Taps r = HalfPixelTaps(i, h, oh);
      for (int64_t j = 0; j < ow; ++j) {
        const Taps q = HalfPixelTaps(j, w, ow);
        // Each product and sum stored, so that the compiler fuses none.
        volatile float a = q.to_first * r.to_first * plane[r.first * w + q.first];
        volatile float b = q.to_second * r.to_first * plane[r.first * w + q.second];
        volatile float d = q.to_first * r.to_second * plane[r.second * w + q.first];
        volatile float e = q.to_second * r.to_second * plane[r.second * w + q.second];
        volatile float ab = a + b;
        volatile float abd = ab + d;
        const float expected = abd + e;
        differ += y[(k * oh + i) * ow + j] != expected;
      }
    }
  }
  return differ;
}

TEST(ResizeKernelTest, BilinearRoundsAsOnnxRuntime) {
  EXPECT_EQ(DifferFromOnnxRuntime(3, 7, 5, 14, 9), 0);    // up, by 2 and by 1.8
  EXPECT_EQ(DifferFromOnnxRuntime(2, 16, 16, 32, 32), 0);  // a U-Net's 2x
  EXPECT_EQ(DifferFromOnnxRuntime(2, 14, 9, 5, 4), 0);     // down
}

}  // namespace
}  // namespace switchyard
