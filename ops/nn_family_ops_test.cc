// avg_pool2d, reduce_mean/sum/max/min, gemm, matmul, layer_norm,
// log_softmax and resize, looked up through OpRegistry::Global() (so the
// tests also prove the ops registered themselves), and their geometry
// helpers (ops/pool_geometry.h, ops/reduce_geometry.h,
// ops/matmul_geometry.h, ops/resize_geometry.h).
// Expected shapes are what ONNX's shape inference (and numpy) give.

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "core/attributes.h"
#include "core/shape.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/gemm_attrs.h"
#include "ops/matmul_geometry.h"
#include "ops/norm_attrs.h"
#include "ops/op_test_util.h"
#include "ops/pool_attrs.h"
#include "ops/pool_geometry.h"
#include "ops/reduce_attrs.h"
#include "ops/reduce_geometry.h"
#include "ops/resize_attrs.h"
#include "ops/resize_geometry.h"

namespace switchyard {
namespace op_testing {
namespace {

using ::testing::ElementsAre;

// ------------------------------------------------------------ avg_pool2d

TEST(AvgPoolGeometryTest, AsymmetricPooledLength) {
  // ONNX test_averagepool_2d_same_upper: 32, kernel 2, pads 0 / 1.
  EXPECT_EQ(PooledLength(32, 2, 1, 0, 1, 1, false), 32);
  // test_averagepool_2d_ceil: 4, kernel 3, stride 2.
  EXPECT_EQ(PooledLength(4, 3, 2, 0, 0, 1, true), 2);
  // A window that would start in the end padding alone is dropped:
  // ceil((5 + 1 - 2) / 2) + 1 = 3 windows start at 0, 2, 4; a 4th would
  // start at 6 >= 5 + 0.
  EXPECT_EQ(PooledLength(5, 2, 2, 0, 1, 1, true), 3);
  EXPECT_EQ(PooledLength(5, 2, 2, 1, 1, 1, true), 3);
  // The symmetric form is the asymmetric one with equal pads.
  EXPECT_EQ(PooledLength(7, 3, 2, 1, 1, true),
            PooledLength(7, 3, 2, 1, 1, 1, true));
}

TEST(AvgPoolGeometryTest, SpanDivisor) {
  // in 5, kernel 3, stride 2, pads 1 / 1: windows start at -1, 1, 3.
  PoolSpan first = AvgPoolSpan(0, 5, 3, 2, 1, 1, /*count_include_pad=*/true);
  EXPECT_EQ(first.begin, 0);
  EXPECT_EQ(first.end, 2);
  EXPECT_EQ(first.extent, 3);  // the padded row counts
  PoolSpan excl = AvgPoolSpan(0, 5, 3, 2, 1, 1, false);
  EXPECT_EQ(excl.extent, 2);
  // ceil_mode past the end padding: in 4, kernel 3, stride 2, no pads; the
  // second window covers rows 2, 3 and a 4th row beyond any padding: it
  // counts 2 either way.
  PoolSpan last = AvgPoolSpan(1, 4, 3, 2, 0, 0, true);
  EXPECT_EQ(last.begin, 2);
  EXPECT_EQ(last.end, 4);
  EXPECT_EQ(last.extent, 2);
  // With an end pad of 1 the padded row counts, the one past it does not.
  EXPECT_EQ(AvgPoolSpan(2, 5, 3, 2, 0, 1, true).extent, 2);
  EXPECT_EQ(AvgPoolSpan(2, 6, 3, 2, 1, 1, true).extent, 3);
}

TEST(AvgPool2dTest, Shapes) {
  const Shape x({1, 3, 32, 32});
  EXPECT_THAT(Infer("avg_pool2d", Attrs({{"kernel_size", Ints{2, 2}}}), {x}),
              IsOkAndHolds(Shape({1, 3, 16, 16})));
  // ONNX test_averagepool_2d_default: stride 1.
  EXPECT_THAT(
      Infer("avg_pool2d",
            Attrs({{"kernel_size", Ints{2, 2}}, {"stride", Ints{1, 1}}}), {x}),
      IsOkAndHolds(Shape({1, 3, 31, 31})));
  // test_averagepool_2d_same_lower: pads [1, 1, 0, 0].
  EXPECT_THAT(Infer("avg_pool2d",
                    Attrs({{"kernel_size", Ints{2, 2}},
                           {"stride", Ints{1, 1}},
                           {"padding", Ints{1, 1, 0, 0}}}),
                    {x}),
              IsOkAndHolds(Shape({1, 3, 32, 32})));
  // test_averagepool_2d_pads: kernel 3, pads 2 (more than half a kernel).
  EXPECT_THAT(Infer("avg_pool2d",
                    Attrs({{"kernel_size", Ints{3, 3}},
                           {"stride", Ints{1, 1}},
                           {"padding", Ints{2, 2, 2, 2}}}),
                    {Shape({1, 3, 28, 28})}),
              IsOkAndHolds(Shape({1, 3, 30, 30})));
  // test_averagepool_2d_ceil.
  EXPECT_THAT(Infer("avg_pool2d",
                    Attrs({{"kernel_size", Ints{3, 3}},
                           {"stride", Ints{2, 2}},
                           {"ceil_mode", true}}),
                    {Shape({1, 1, 4, 4})}),
              IsOkAndHolds(Shape({1, 1, 2, 2})));
  // Rectangular, asymmetric, ceil: H: (7 + 0 + 1 - 3) / 2 -> ceil 2.5 = 3,
  // + 1 = 4; W: (5 + 1 + 0 - 2) / 3 -> ceil 1.33 = 2, + 1 = 3, but the third
  // window would start at 6 >= 5 + 1: 2.
  EXPECT_THAT(Infer("avg_pool2d",
                    Attrs({{"kernel_size", Ints{3, 2}},
                           {"stride", Ints{2, 3}},
                           {"padding", Ints{0, 1, 1, 0}},
                           {"ceil_mode", true}}),
                    {Shape({2, 3, 7, 5})}),
              IsOkAndHolds(Shape({2, 3, 4, 2})));
}

TEST(AvgPool2dTest, FlopsAndAttrs) {
  EXPECT_EQ(FlopsOf("avg_pool2d", Attrs({{"kernel_size", Ints{2, 2}}}),
                    {Shape({1, 1, 4, 4})}),
            4 * (4 + 1));
  AvgPool2dAttrs a;
  a.kernel_h = 3;
  a.kernel_w = 2;
  a.pad_top = 2;
  a.pad_right = 1;
  a.count_include_pad = true;
  absl::StatusOr<AvgPool2dAttrs> b = AvgPool2dAttrs::FromAttrMap(a.ToAttrMap());
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->stride_h, 3);  // [] is the kernel size
  EXPECT_EQ(b->stride_w, 2);
  EXPECT_EQ(b->pad_top, 2);
  EXPECT_EQ(b->pad_left, 0);
  EXPECT_EQ(b->pad_right, 1);
  EXPECT_TRUE(b->count_include_pad);
  EXPECT_FALSE(b->ceil_mode);
  EXPECT_FALSE(AvgPool2dAttrs().count_include_pad);  // ONNX's default
}

TEST(AvgPool2dTest, RejectsBadAttributes) {
  const Shape x({1, 1, 4, 4});
  EXPECT_THAT(Infer("avg_pool2d", {}, {x}),
              StatusIs(kInvalid, "'kernel_size'"));
  EXPECT_THAT(
      Infer("avg_pool2d",
            Attrs({{"kernel_size", Ints{2, 2}}, {"padding", Ints{1, 1}}}), {x}),
      StatusIs(kInvalid, "must have 4 values (top, left, bottom, right)"));
  EXPECT_THAT(
      Infer("avg_pool2d",
            Attrs({{"kernel_size", Ints{2, 3}}, {"padding", Ints{0, 3, 0, 0}}}),
            {x}),
      StatusIs(kInvalid, "smaller than 'kernel_size' [2, 3]"));
  EXPECT_THAT(Infer("avg_pool2d",
                    Attrs({{"kernel_size", Ints{2, 2}},
                           {"padding", Ints{0, 0, -1, 0}}}),
                    {x}),
              StatusIs(kInvalid, "got [0, 0, -1, 0]"));
  EXPECT_THAT(
      Infer("avg_pool2d",
            Attrs({{"kernel_size", Ints{2, 2}}, {"stride", Ints{0, 1}}}), {x}),
      StatusIs(kInvalid, "'stride'"));
  EXPECT_THAT(Infer("avg_pool2d", Attrs({{"kernel_size", Ints{5, 5}}}), {x}),
              StatusIs(kInvalid, "too small for the pooling window"));
  EXPECT_THAT(Infer("avg_pool2d", Attrs({{"kernel_size", Ints{2, 2}}}),
                    {Shape({4, 4})}),
              StatusIs(kInvalid, "input must be rank 4"));
}

// ---------------------------------------------------------------- reduce

TEST(ReduceGeometryTest, Passes) {
  const Shape x({2, 3, 4});
  absl::StatusOr<std::vector<bool>> r = ReducedAxes({0, 2}, x);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(*r, ElementsAre(true, false, true));
  EXPECT_EQ(ReducedShape(x, *r, false), Shape({3}));
  EXPECT_EQ(ReducedShape(x, *r, true), Shape({1, 3, 1}));
  EXPECT_EQ(ReducedCount(x, *r), 8);
  EXPECT_THAT(ReducePasses(x, *r),
              ElementsAre(ReducePass{6, 4, 1}, ReducePass{1, 2, 3}));
  // Adjacent axes merge; length-1 axes need no pass.
  absl::StatusOr<std::vector<bool>> mid =
      ReducedAxes({1, 2, 3}, Shape({2, 3, 1, 4, 5}));
  ASSERT_TRUE(mid.ok());
  EXPECT_THAT(ReducePasses(Shape({2, 3, 1, 4, 5}), *mid),
              ElementsAre(ReducePass{2, 12, 5}));
  absl::StatusOr<std::vector<bool>> all = ReducedAxes({}, x);
  ASSERT_TRUE(all.ok());
  EXPECT_THAT(ReducePasses(x, *all), ElementsAre(ReducePass{1, 24, 1}));
  absl::StatusOr<std::vector<bool>> ones = ReducedAxes({1}, Shape({3, 1, 2}));
  ASSERT_TRUE(ones.ok());
  EXPECT_TRUE(ReducePasses(Shape({3, 1, 2}), *ones).empty());
}

TEST(ReduceTest, Shapes) {
  const Shape x({3, 2, 2});
  for (const char* op :
       {"reduce_mean", "reduce_sum", "reduce_max", "reduce_min"}) {
    SCOPED_TRACE(op);
    // The ONNX node tests' shapes.
    EXPECT_THAT(Infer(op, Attrs({{"keepdims", true}}), {x}),
                IsOkAndHolds(Shape({1, 1, 1})));
    EXPECT_THAT(Infer(op, {}, {x}), IsOkAndHolds(Shape({1, 1, 1})));
    EXPECT_THAT(Infer(op, Attrs({{"axes", Ints{1}}, {"keepdims", false}}), {x}),
                IsOkAndHolds(Shape({3, 2})));
    EXPECT_THAT(Infer(op, Attrs({{"axes", Ints{-2}}}), {x}),
                IsOkAndHolds(Shape({3, 1, 2})));
    EXPECT_THAT(Infer(op, Attrs({{"keepdims", false}}), {x}),
                IsOkAndHolds(Shape()));
    EXPECT_THAT(
        Infer(op, Attrs({{"axes", Ints{2, 0}}, {"keepdims", false}}), {x}),
        IsOkAndHolds(Shape({2})));
    EXPECT_THAT(Infer(op, Attrs({{"axes", Ints{0}}}), {Shape()}),
                IsOkAndHolds(Shape()));
  }
  EXPECT_EQ(FlopsOf("reduce_sum", {}, {x}), 12);
  EXPECT_EQ(FlopsOf("reduce_mean", Attrs({{"axes", Ints{0}}}), {x}), 12 + 4);
}

TEST(ReduceTest, RejectsBadAxes) {
  EXPECT_THAT(
      Infer("reduce_sum", Attrs({{"axes", Ints{3}}}), {Shape({3, 2, 2})}),
      StatusIs(kInvalid, "has 3, out of range [-3, 2]"));
  EXPECT_THAT(
      Infer("reduce_max", Attrs({{"axes", Ints{1, -2}}}), {Shape({3, 2, 2})}),
      StatusIs(kInvalid, "names axis 1 twice"));
  EXPECT_THAT(Infer("reduce_min", Attrs({{"axes", int64_t{1}}}), {Shape({3})}),
              StatusIs(kInvalid, "'axes'"));
  EXPECT_THAT(
      ReduceAttrs::FromAttrMap(Attrs({{"keepdim", true}}), "reduce_mean"),
      StatusIs(kInvalid, "keepdim"));
}

// ------------------------------------------------------------ matmul

TEST(MatmulGeometryTest, BroadcastSteps) {
  absl::StatusOr<MatmulGeometry> g =
      MatmulGeometryOf(Shape({2, 1, 3, 4}), Shape({5, 4, 6}));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->output, Shape({2, 5, 3, 6}));
  EXPECT_THAT(g->batch, ElementsAre(2, 5));
  EXPECT_THAT(g->a_stride, ElementsAre(1, 0));
  EXPECT_THAT(g->b_stride, ElementsAre(0, 1));
  EXPECT_EQ(g->batch_count, 10);
  EXPECT_EQ(g->AMatrix(7), 1);
  EXPECT_EQ(g->BMatrix(7), 2);
  EXPECT_FALSE(g->BIsShared());
  absl::StatusOr<MatmulGeometry> shared =
      MatmulGeometryOf(Shape({2, 3, 4}), Shape({1, 4, 6}));
  ASSERT_TRUE(shared.ok());
  EXPECT_TRUE(shared->BIsShared());
  EXPECT_EQ(shared->output, Shape({2, 3, 6}));
}

TEST(MatmulTest, Shapes) {
  EXPECT_THAT(Infer("matmul", {}, {Shape({3, 4}), Shape({4, 3})}),
              IsOkAndHolds(Shape({3, 3})));
  EXPECT_THAT(Infer("matmul", {}, {Shape({1, 2, 3, 4}), Shape({1, 2, 4, 3})}),
              IsOkAndHolds(Shape({1, 2, 3, 3})));
  EXPECT_THAT(Infer("matmul", {}, {Shape({4}), Shape({4})}),
              IsOkAndHolds(Shape()));
  EXPECT_THAT(Infer("matmul", {}, {Shape({4}), Shape({2, 4, 5})}),
              IsOkAndHolds(Shape({2, 5})));
  EXPECT_THAT(Infer("matmul", {}, {Shape({2, 3, 4}), Shape({4})}),
              IsOkAndHolds(Shape({2, 3})));
  EXPECT_THAT(Infer("matmul", {}, {Shape({3, 1, 2, 4}), Shape({5, 4, 7})}),
              IsOkAndHolds(Shape({3, 5, 2, 7})));
  EXPECT_THAT(Infer("matmul", {}, {Shape({0, 4}), Shape({4, 3})}),
              IsOkAndHolds(Shape({0, 3})));
  EXPECT_EQ(FlopsOf("matmul", {}, {Shape({2, 3, 4}), Shape({4, 5})}),
            2 * 2 * 3 * 4 * 5);
}

TEST(MatmulTest, RejectsBadShapes) {
  EXPECT_THAT(Infer("matmul", {}, {Shape({3, 4}), Shape({5, 3})}),
              StatusIs(kInvalid, "a's last dimension (4) must equal b's"));
  EXPECT_THAT(Infer("matmul", {}, {Shape({2, 3, 4}), Shape({3, 4, 5})}),
              StatusIs(kInvalid, "batch dimensions 2 and 3 do not broadcast"));
  EXPECT_THAT(Infer("matmul", {}, {Shape(), Shape({3})}),
              StatusIs(kInvalid, "rank >= 1"));
}

// ---------------------------------------------------------------- gemm

TEST(GemmTest, Shapes) {
  EXPECT_THAT(Infer("gemm", {}, {Shape({3, 6}), Shape({6, 4}), Shape({3, 4})}),
              IsOkAndHolds(Shape({3, 4})));
  EXPECT_THAT(Infer("gemm", {}, {Shape({2, 10}), Shape({10, 3})}),
              IsOkAndHolds(Shape({2, 3})));
  // ONNX test_gemm_all_attributes: a [4, 3]^T, b [5, 4]^T, c [1, 5].
  EXPECT_THAT(Infer("gemm",
                    Attrs({{"trans_a", true},
                           {"trans_b", true},
                           {"alpha", 0.25},
                           {"beta", 0.35}}),
                    {Shape({4, 3}), Shape({5, 4}), Shape({1, 5})}),
              IsOkAndHolds(Shape({3, 5})));
  for (const Shape& c : {Shape(), Shape({1}), Shape({4}), Shape({1, 1}),
                         Shape({3, 1}), Shape({1, 4})}) {
    EXPECT_THAT(Infer("gemm", {}, {Shape({3, 6}), Shape({6, 4}), c}),
                IsOkAndHolds(Shape({3, 4})))
        << c;
  }
  EXPECT_EQ(FlopsOf("gemm", {}, {Shape({3, 6}), Shape({6, 4}), Shape({4})}),
            2 * 12 * 6 + 3 * 12);
}

TEST(GemmTest, RejectsBadOperands) {
  EXPECT_THAT(Infer("gemm", {}, {Shape({3, 6}), Shape({5, 4})}),
              StatusIs(kInvalid, "inner dimensions 6 and 5 must be equal"));
  EXPECT_THAT(
      Infer("gemm", Attrs({{"trans_a", true}}), {Shape({3, 6}), Shape({6, 4})}),
      StatusIs(kInvalid, "(transposed)"));
  EXPECT_THAT(
      Infer("gemm", {}, {Shape({3, 6}), Shape({6, 4}), Shape({3})}),
      StatusIs(kInvalid, "c [3] does not broadcast to the output [3, 4]"));
  EXPECT_THAT(
      Infer("gemm", {}, {Shape({3, 6}), Shape({6, 4}), Shape({2, 3, 4})}),
      StatusIs(kInvalid, "does not broadcast"));
  EXPECT_THAT(Infer("gemm", {}, {Shape({3, 6, 1}), Shape({6, 4})}),
              StatusIs(kInvalid, "a must be rank 2"));
  EXPECT_THAT(GemmAttrs::FromAttrMap(
                  Attrs({{"alpha", std::numeric_limits<double>::infinity()}})),
              StatusIs(kInvalid, "'alpha' must be finite"));
  GemmAttrs g;
  g.trans_a = true;
  g.beta = 0.0;
  absl::StatusOr<GemmAttrs> back = GemmAttrs::FromAttrMap(g.ToAttrMap());
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->trans_a);
  EXPECT_FALSE(back->trans_b);
  EXPECT_EQ(back->alpha, 1.0);
  EXPECT_EQ(back->beta, 0.0);
}

// ------------------------------------------------------------ layer_norm

TEST(LayerNormTest, Shapes) {
  const Shape x({2, 3, 4, 5});
  EXPECT_THAT(Infer("layer_norm", {}, {x, Shape({5}), Shape({5})}),
              IsOkAndHolds(x));
  EXPECT_THAT(
      Infer("layer_norm", Attrs({{"axis", int64_t{-2}}}), {x, Shape({4, 5})}),
      IsOkAndHolds(x));
  EXPECT_THAT(Infer("layer_norm", Attrs({{"axis", int64_t{0}}}), {x, x, x}),
              IsOkAndHolds(x));
  EXPECT_EQ(FlopsOf("layer_norm", {}, {x, Shape({5})}), 8 * 120);
}

TEST(LayerNormTest, RejectsBadOperands) {
  const Shape x({2, 3, 4});
  EXPECT_THAT(
      Infer("layer_norm", {}, {x, Shape({3})}),
      StatusIs(kInvalid, "scale must be [4] (input [2, 3, 4] from axis 2"));
  EXPECT_THAT(Infer("layer_norm", Attrs({{"axis", int64_t{1}}}),
                    {x, Shape({3, 4}), Shape({4})}),
              StatusIs(kInvalid, "bias must be [3, 4]"));
  EXPECT_THAT(
      Infer("layer_norm", Attrs({{"axis", int64_t{3}}}), {x, Shape({4})}),
      StatusIs(kInvalid, "'axis' is 3, out of range"));
  EXPECT_THAT(Infer("layer_norm", Attrs({{"epsilon", -1.0}}), {x, Shape({4})}),
              StatusIs(kInvalid, "'epsilon' must be >= 0"));
  EXPECT_THAT(Infer("layer_norm", {}, {Shape(), Shape()}),
              StatusIs(kInvalid, "rank >= 1"));
  EXPECT_THAT(Infer("layer_norm", {}, {x}), StatusIs(kInvalid, "operands"));
}

// ----------------------------------------------------------- log_softmax

TEST(LogSoftmaxTest, ShapesAndErrors) {
  EXPECT_THAT(
      Infer("log_softmax", Attrs({{"dim", int64_t{-1}}}), {Shape({3, 4, 5})}),
      IsOkAndHolds(Shape({3, 4, 5})));
  EXPECT_THAT(
      Infer("log_softmax", Attrs({{"dim", int64_t{3}}}), {Shape({3, 4, 5})}),
      StatusIs(kInvalid, "out of range"));
  EXPECT_THAT(Infer("log_softmax", {}, {Shape({3})}),
              StatusIs(kInvalid, "'dim'"));
  EXPECT_EQ(FlopsOf("log_softmax", Attrs({{"dim", int64_t{0}}}), {Shape({4})}),
            20);
}

// ---------------------------------------------------------------- resize

AttrMap ResizeTo(Ints sizes, std::vector<double> scales = {},
                 std::string mode = "linear") {
  return Attrs({{"sizes", sizes}, {"scales", scales}, {"mode", mode}});
}

TEST(ResizeTest, Shapes) {
  EXPECT_THAT(Infer("resize", ResizeTo({1, 3, 480, 640}), {Shape({1, 3, 240, 320})}),
              IsOkAndHolds(Shape({1, 3, 480, 640})));
  EXPECT_THAT(Infer("resize", ResizeTo({5}, {2.5}), {Shape({2})}),
              IsOkAndHolds(Shape({5})));
  EXPECT_THAT(Infer("resize", ResizeTo({1, 2, 3, 4, 5}), {Shape({2, 2, 2, 2, 2})}),
              IsOkAndHolds(Shape({1, 2, 3, 4, 5})));
  // 2 FLOPs per tap: bilinear over H and W has 4 taps per element.
  EXPECT_EQ(FlopsOf("resize", ResizeTo({1, 1, 4, 4}), {Shape({1, 1, 2, 2})}),
            2 * 4 * 16);
}

TEST(ResizeTest, RejectsBadAttributes) {
  const Shape x({1, 3, 4, 4});
  EXPECT_THAT(Infer("resize", ResizeTo({1, 3, 8}), {x}),
              StatusIs(kInvalid, "attribute 'sizes' has 3 values but input "
                                 "[1, 3, 4, 4] has rank 4"));
  EXPECT_THAT(Infer("resize", ResizeTo({1, 3, 0, 8}), {x}),
              StatusIs(kInvalid, "attribute 'sizes' must be > 0 in every dim, "
                                 "got 0 at dim 2"));
  EXPECT_THAT(Infer("resize", ResizeTo({1, 3, 8, 8}, {1, 2, 2}), {x}),
              StatusIs(kInvalid, "attribute 'scales' has 3 values"));
  for (double bad : {0.0, -2.0, std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity()}) {
    EXPECT_THAT(Infer("resize", ResizeTo({1, 3, 8, 8}, {1, 1, bad, 2}), {x}),
                StatusIs(kInvalid, "attribute 'scales' must be finite and > 0"))
        << bad;
  }
  EXPECT_THAT(Infer("resize", ResizeTo({1, 3, 8, 8}, {}, "bicubic"), {x}),
              StatusIs(kInvalid, "attribute 'mode' must be nearest, linear or "
                                 "cubic, got 'bicubic'"));
  EXPECT_THAT(Infer("resize", Attrs({{"sizes", Ints{1, 3, 8, 8}},
                                     {"nearest_mode", std::string("up")}}),
                    {x}),
              StatusIs(kInvalid, "attribute 'nearest_mode'"));
  EXPECT_THAT(Infer("resize", {}, {x}), StatusIs(kInvalid, "'sizes'"));
  EXPECT_THAT(Infer("resize", ResizeTo({1, 3, 8, 8}), {Shape({1, 0, 4, 4})}),
              StatusIs(kInvalid, "is empty in dim 1"));
  EXPECT_THAT(Infer("resize", ResizeTo({1, 3, int64_t{1} << 40, int64_t{1} << 40}),
                    {x}),
              StatusIs(kInvalid, "is too large"));
  EXPECT_THAT(InferTypes("resize", ResizeTo({1, 3, 8, 8}),
                         {TensorType{x, DType::kInt64}}),
              StatusIs(kInvalid, "int64"));
}

ResizeAxis LinearAxis(int64_t in, int64_t out, double scale,
                      ResizeCoordinateMode coordinate) {
  ResizeAxis a;
  a.in = in;
  a.out = out;
  a.scale = scale;
  a.identity = false;
  a.mode = ResizeMode::kLinear;
  a.coordinate = coordinate;
  return a;
}

TEST(ResizeGeometryTest, LinearTaps) {
  int64_t index[kMaxResizeTaps];
  double weight[kMaxResizeTaps];
  // half_pixel x2: output 3 is input coordinate 1.25.
  ResizeAxis a = LinearAxis(4, 8, 2.0, ResizeCoordinateMode::kHalfPixel);
  ASSERT_EQ(ResizeTaps(a, 3, index, weight), 2);
  EXPECT_EQ(index[0], 1);
  EXPECT_EQ(index[1], 2);
  EXPECT_DOUBLE_EQ(weight[0], 0.75);
  EXPECT_DOUBLE_EQ(weight[1], 0.25);
  // Before the first element (-0.25): both taps read element 0.
  ResizeTaps(a, 0, index, weight);
  EXPECT_EQ(index[0], 0);
  EXPECT_EQ(index[1], 0);
  // align_corners with a scale of 0.6 on 4 (ONNX's length_resized 2.4):
  // output 1 is 3 / 1.4, ONNX test_resize_downsample_scales_linear_align_corners.
  a = LinearAxis(4, 2, 0.6, ResizeCoordinateMode::kAlignCorners);
  ResizeTaps(a, 1, index, weight);
  EXPECT_EQ(index[0], 2);
  EXPECT_NEAR(weight[1], 3 / 1.4 - 2, 1e-12);
}

TEST(ResizeGeometryTest, NearestRounding) {
  int64_t index[kMaxResizeTaps];
  double weight[kMaxResizeTaps];
  // asymmetric x2 on output 1: coordinate 0.5, a tie.
  ResizeAxis a = LinearAxis(3, 6, 2.0, ResizeCoordinateMode::kAsymmetric);
  a.mode = ResizeMode::kNearest;
  const std::pair<ResizeNearestMode, int64_t> expected[] = {
      {ResizeNearestMode::kRoundPreferFloor, 0},
      {ResizeNearestMode::kRoundPreferCeil, 1},
      {ResizeNearestMode::kFloor, 0},
      {ResizeNearestMode::kCeil, 1}};
  for (const auto& [mode, want] : expected) {
    a.nearest = mode;
    ASSERT_EQ(ResizeTaps(a, 1, index, weight), 1);
    EXPECT_EQ(index[0], want) << static_cast<int>(mode);
  }
  // ceil past the end reads the last element.
  a.nearest = ResizeNearestMode::kCeil;
  ResizeTaps(a, 5, index, weight);
  EXPECT_EQ(index[0], 2);
}

TEST(ResizeGeometryTest, CubicTaps) {
  int64_t index[kMaxResizeTaps];
  double weight[kMaxResizeTaps];
  ResizeAxis a = LinearAxis(4, 8, 2.0, ResizeCoordinateMode::kHalfPixel);
  a.mode = ResizeMode::kCubic;
  ASSERT_EQ(ResizeTaps(a, 3, index, weight), 4);  // coordinate 1.25
  EXPECT_EQ(index[0], 0);
  EXPECT_EQ(index[3], 3);
  EXPECT_NEAR(weight[0] + weight[1] + weight[2] + weight[3], 1.0, 1e-12);
  EXPECT_NEAR(weight[1], ResizeCubicWeight(0.25, -0.75), 1e-15);
  // exclude_outside at the start: the tap at -1 has weight 0, the rest sum
  // to 1.
  a.exclude_outside = true;
  ResizeTaps(a, 1, index, weight);  // coordinate 0.25
  EXPECT_EQ(weight[0], 0.0);
  EXPECT_NEAR(weight[1] + weight[2] + weight[3], 1.0, 1e-12);
}

TEST(ResizeGeometryTest, IdentityAxes) {
  ResizeAttrs attrs;
  attrs.sizes = {2, 3, 8, 5};
  attrs.scales = {1, 1, 2, 1};
  attrs.mode = ResizeMode::kCubic;
  const Shape input({2, 3, 4, 5});
  EXPECT_TRUE(attrs.Axis(input, 0).identity);
  EXPECT_FALSE(attrs.Axis(input, 2).identity);
  EXPECT_TRUE(attrs.Axis(input, 3).identity);
  EXPECT_EQ(ResizeTapCount(attrs.Axis(input, 3)), 1);
  EXPECT_EQ(ResizeTapCount(attrs.Axis(input, 2)), 4);
  // A scale other than 1 resamples even when the size stays.
  attrs.scales = {1, 1, 2, 1.25};
  EXPECT_FALSE(attrs.Axis(input, 3).identity);
}

}  // namespace
}  // namespace op_testing
}  // namespace switchyard
