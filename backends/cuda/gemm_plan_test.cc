// The cuBLASLt arguments of matmul, gemm and linear (gemm_plan.h), worked out
// from shapes alone: runs without a GPU. What a layout means: cuBLASLt's A is
// the node's b, its B the node's a, its D the output, all column-major views
// of row-major tensors (gemm_plan.h).

#include "backends/cuda/gemm_plan.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace cuda {
namespace {

using ::testing::HasSubstr;

std::vector<float> Random(int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// Element (r, c) of a column-major matrix of `layout`, batch entry i.
float At(const float* base, const LtLayout& layout, int64_t i, int64_t r, int64_t c) {
  return base[i * layout.batch_stride + r + c * layout.ld];
}

// What cublasLtMatmul computes for `plan` (cuBLASLt's documented semantics,
// on the host): A from the node's b, B from its a, C (when read) from c or y,
// D into y. Checks that the layouts fit together as cuBLASLt requires.
void Emulate(const GemmPlan& plan, const std::vector<float>& a,
             const std::vector<float>& b, const float* c, std::vector<float>& y) {
  const LtMatmulArgs& lt = plan.lt;
  const int64_t rows = lt.d.rows, cols = lt.d.cols;
  const int64_t k = lt.trans_a ? lt.a.rows : lt.a.cols;
  ASSERT_EQ(lt.trans_a ? lt.a.cols : lt.a.rows, rows);
  ASSERT_EQ(lt.trans_b ? lt.b.rows : lt.b.cols, cols);
  ASSERT_EQ(lt.trans_b ? lt.b.cols : lt.b.rows, k);
  for (const LtLayout* l : {&lt.a, &lt.b, &lt.d}) {
    ASSERT_GE(l->ld, l->rows);
    ASSERT_EQ(l->batch_count, lt.d.batch_count);
  }
  for (const LtCall& call : plan.calls) {
    const float* pa = b.data() + call.b;  // cuBLASLt's A is the node's b
    const float* pb = a.data() + call.a;
    float* pd = y.data() + call.y;
    const float* pc = plan.c == GemmC::kInput ? c : pd;
    for (int64_t i = 0; i < lt.d.batch_count; ++i) {
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t col = 0; col < cols; ++col) {
          double sum = 0;
          for (int64_t t = 0; t < k; ++t) {
            const float av = lt.trans_a ? At(pa, lt.a, i, t, r) : At(pa, lt.a, i, r, t);
            const float bv = lt.trans_b ? At(pb, lt.b, i, col, t) : At(pb, lt.b, i, t, col);
            sum += double{av} * bv;
          }
          float value = lt.alpha * static_cast<float>(sum);
          if (plan.c != GemmC::kNone) value += lt.beta * At(pc, lt.d, i, r, col);
          pd[i * lt.d.batch_stride + r + col * lt.d.ld] = value;
        }
      }
    }
  }
}

// numpy.matmul on the host, from the geometry alone.
std::vector<float> NaiveMatmul(const Shape& as, const Shape& bs, const std::vector<float>& a,
                               const std::vector<float>& b) {
  const MatmulGeometry g = *MatmulGeometryOf(as, bs);
  std::vector<float> y(g.output.num_elements());
  for (int64_t z = 0; z < g.batch_count; ++z) {
    const float* am = a.data() + g.AMatrix(z) * g.m * g.k;
    const float* bm = b.data() + g.BMatrix(z) * g.k * g.n;
    for (int64_t i = 0; i < g.m; ++i) {
      for (int64_t j = 0; j < g.n; ++j) {
        double sum = 0;
        for (int64_t t = 0; t < g.k; ++t) sum += double{am[i * g.k + t]} * bm[t * g.n + j];
        y[(z * g.m + i) * g.n + j] = static_cast<float>(sum);
      }
    }
  }
  return y;
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-5 + 1e-5 * std::abs(want[i])) << what << " element " << i;
  }
}

void ExpectLayout(const LtLayout& got, int64_t rows, int64_t cols, int64_t ld,
                  int64_t batch_count, int64_t batch_stride, const std::string& what) {
  EXPECT_EQ(got.rows, rows) << what;
  EXPECT_EQ(got.cols, cols) << what;
  EXPECT_EQ(got.ld, ld) << what;
  EXPECT_EQ(got.batch_count, batch_count) << what;
  EXPECT_EQ(got.batch_stride, batch_stride) << what;
}

GemmPlan Matmul(const Shape& a, const Shape& b) {
  absl::StatusOr<GemmPlan> plan = PlanMatmul(a, b);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? *plan : GemmPlan{};
}

GemmPlan Gemm(const Shape& a, const Shape& b, const Shape* c, const GemmAttrs& attrs) {
  absl::StatusOr<GemmPlan> plan = PlanGemm(a, b, c, attrs);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? *plan : GemmPlan{};
}

TEST(GemmPlanTest, PlainMatmulIsOneCallWithSwappedOperands) {
  // [M, K] x [K, N] = [3, 4] x [4, 5]: y^T (5 x 3) = b^T (5 x 4) a^T (4 x 3).
  const GemmPlan p = Matmul(Shape({3, 4}), Shape({4, 5}));
  ASSERT_EQ(p.route, GemmRoute::kCublasLt);
  EXPECT_FALSE(p.lt.trans_a);
  EXPECT_FALSE(p.lt.trans_b);
  ExpectLayout(p.lt.a, 5, 4, 5, 1, 0, "A = b");
  ExpectLayout(p.lt.b, 4, 3, 4, 1, 0, "B = a");
  ExpectLayout(p.lt.d, 5, 3, 5, 1, 0, "D = y");
  EXPECT_EQ(p.lt.alpha, 1.0f);
  EXPECT_EQ(p.lt.beta, 0.0f);
  EXPECT_FALSE(p.lt.bias_epilogue);
  ASSERT_EQ(p.calls.size(), 1u);
  EXPECT_EQ(p.calls[0].a, 0);
  EXPECT_EQ(p.calls[0].y, 0);
  EXPECT_EQ(p.lt.alignment_bytes, 256);
  EXPECT_EQ(p.c, GemmC::kNone);
}

TEST(GemmPlanTest, BatchedMatmulIsOneStridedBatchedCall) {
  // [B, M, K] x [B, K, N] = [6, 3, 4] x [6, 4, 5].
  const GemmPlan p = Matmul(Shape({6, 3, 4}), Shape({6, 4, 5}));
  ASSERT_EQ(p.route, GemmRoute::kCublasLt);
  ExpectLayout(p.lt.a, 5, 4, 5, 6, 4 * 5, "A = b");
  ExpectLayout(p.lt.b, 4, 3, 4, 6, 3 * 4, "B = a");
  ExpectLayout(p.lt.d, 5, 3, 5, 6, 3 * 5, "D = y");
  EXPECT_EQ(p.calls.size(), 1u);
  EXPECT_FALSE(p.a_broadcast);
  EXPECT_FALSE(p.b_broadcast);
  EXPECT_FALSE(p.folded_into_rows);
  // 60 bytes between a's matrices: cuBLASLt is told 4-byte alignment.
  EXPECT_EQ(p.lt.alignment_bytes, 4);
}

TEST(GemmPlanTest, ContiguousBatchDimensionsMergeIntoOne) {
  // [2, 3, M, K] x [2, 3, K, N] with 16 x 16 matrices: one batch of 6.
  const GemmPlan p = Matmul(Shape({2, 3, 16, 16}), Shape({2, 3, 16, 16}));
  ASSERT_EQ(p.route, GemmRoute::kCublasLt);
  EXPECT_EQ(p.calls.size(), 1u);
  ExpectLayout(p.lt.d, 16, 16, 16, 6, 256, "D = y");
  EXPECT_EQ(p.lt.alignment_bytes, 256);  // 1 KiB between matrices
}

TEST(GemmPlanTest, SharedAIsAStrideZeroBatch) {
  // [M, K] x [B, K, N]: a's one matrix for every b.
  const GemmPlan p = Matmul(Shape({3, 4}), Shape({7, 4, 5}));
  ASSERT_EQ(p.route, GemmRoute::kCublasLt);
  EXPECT_TRUE(p.a_broadcast);
  EXPECT_FALSE(p.b_broadcast);
  ExpectLayout(p.lt.a, 5, 4, 5, 7, 20, "A = b");
  ExpectLayout(p.lt.b, 4, 3, 4, 7, 0, "B = a, broadcast");
  ExpectLayout(p.lt.d, 5, 3, 5, 7, 15, "D = y");
  EXPECT_EQ(p.calls.size(), 1u);
}

TEST(GemmPlanTest, SharedBFoldsIntoRows) {
  // [B, M, K] x [K, N] = [2, 3, 8, 4] x [4, 5]: one [48, 4] x [4, 5] GEMM.
  const GemmPlan p = Matmul(Shape({2, 3, 8, 4}), Shape({4, 5}));
  ASSERT_EQ(p.route, GemmRoute::kCublasLt);
  EXPECT_TRUE(p.folded_into_rows);
  ExpectLayout(p.lt.a, 5, 4, 5, 1, 0, "A = b");
  ExpectLayout(p.lt.b, 4, 48, 4, 1, 0, "B = a");
  ExpectLayout(p.lt.d, 5, 48, 5, 1, 0, "D = y");
  EXPECT_EQ(p.calls.size(), 1u);
  // A 1-D b is a column [K, 1], shared the same way.
  const GemmPlan v = Matmul(Shape({6, 3, 4}), Shape({4}));
  EXPECT_TRUE(v.folded_into_rows);
  ExpectLayout(v.lt.d, 1, 18, 1, 1, 0, "D = y");
}

TEST(GemmPlanTest, BroadcastOnBothSidesLoopsOverTheShorterDimension) {
  // [B, 1, M, K] x [1, C, K, N] = [3, 1, 2, 4] x [1, 5, 4, 6]: no one stride
  // per operand; a batch over C (the longer, 5) with a broadcast, and a call
  // for each of the B = 3 matrices of a.
  const GemmPlan p = Matmul(Shape({3, 1, 2, 4}), Shape({1, 5, 4, 6}));
  ASSERT_EQ(p.route, GemmRoute::kCublasLt);
  EXPECT_TRUE(p.a_broadcast);
  EXPECT_FALSE(p.b_broadcast);
  ExpectLayout(p.lt.a, 6, 4, 6, 5, 4 * 6, "A = b");
  ExpectLayout(p.lt.b, 4, 2, 4, 5, 0, "B = a, broadcast");
  ExpectLayout(p.lt.d, 6, 2, 6, 5, 2 * 6, "D = y");
  ASSERT_EQ(p.calls.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(p.calls[i].a, i * 2 * 4) << i;
    EXPECT_EQ(p.calls[i].b, 0) << i;
    EXPECT_EQ(p.calls[i].y, i * 5 * 2 * 6) << i;
  }
  // 32-byte steps between a's matrices (8 floats), 48 between y's.
  EXPECT_EQ(p.lt.alignment_bytes, 16);

  // The other way round, B = 5 > C = 3: a batch over B with b broadcast,
  // a call for each of b's matrices.
  const GemmPlan q = Matmul(Shape({5, 1, 2, 4}), Shape({1, 3, 4, 6}));
  ASSERT_EQ(q.route, GemmRoute::kCublasLt);
  EXPECT_FALSE(q.a_broadcast);
  EXPECT_TRUE(q.b_broadcast);
  ExpectLayout(q.lt.a, 6, 4, 6, 5, 0, "A = b, broadcast");
  ExpectLayout(q.lt.b, 4, 2, 4, 5, 8, "B = a");
  ExpectLayout(q.lt.d, 6, 2, 6, 5, 3 * 12, "D = y");
  ASSERT_EQ(q.calls.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(q.calls[i].a, 0) << i;
    EXPECT_EQ(q.calls[i].b, i * 24) << i;
    EXPECT_EQ(q.calls[i].y, i * 12) << i;
  }
}

TEST(GemmPlanTest, ManyTinyCallsFallBackToTheTileKernel) {
  // [100, 1, 2, 2] x [1, 80, 2, 2]: 80 calls of 800 multiply-adds.
  const GemmPlan tiny = Matmul(Shape({100, 1, 2, 2}), Shape({1, 80, 2, 2}));
  EXPECT_EQ(tiny.route, GemmRoute::kTileKernel);
  EXPECT_THAT(tiny.why, HasSubstr("80 cuBLASLt calls"));
  // The same with 64 x 64 matrices: each call is 26M multiply-adds.
  const GemmPlan big = Matmul(Shape({100, 1, 64, 64}), Shape({1, 80, 64, 64}));
  EXPECT_EQ(big.route, GemmRoute::kCublasLt);
  EXPECT_EQ(big.calls.size(), 80u);
}

TEST(GemmPlanTest, WhatCublasLtCannotTake) {
  // No inner dimension: zeros, from the tile kernel.
  const GemmPlan empty_k = Matmul(Shape({3, 0}), Shape({0, 4}));
  EXPECT_EQ(empty_k.route, GemmRoute::kTileKernel);
  EXPECT_THAT(empty_k.why, HasSubstr("k = 0"));
  GemmAttrs attrs;
  const Shape c({4});
  const GemmPlan gemm_k = Gemm(Shape({3, 0}), Shape({0, 4}), &c, attrs);
  EXPECT_EQ(gemm_k.route, GemmRoute::kTileKernel);
  // More matrices than cuBLASLt's int32 batch count (shapes only).
  const int64_t huge = int64_t{1} << 31;
  const GemmPlan many = Matmul(Shape({2, 2}), Shape({huge, 2, 2}));
  EXPECT_EQ(many.route, GemmRoute::kTileKernel);
  EXPECT_THAT(many.why, HasSubstr("32-bit batch count"));
  // An empty output needs nothing.
  EXPECT_EQ(Matmul(Shape({0, 3, 4}), Shape({4, 5})).route, GemmRoute::kNothing);
  EXPECT_EQ(Matmul(Shape({3, 4}), Shape({4, 0})).route, GemmRoute::kNothing);
}

TEST(GemmPlanTest, TransposedGemm) {
  // a [K, M] = [4, 3] (trans_a), b [N, K] = [5, 4] (trans_b): M 3, N 5, K 4.
  GemmAttrs attrs;
  attrs.trans_a = true;
  attrs.trans_b = true;
  const GemmPlan p = Gemm(Shape({4, 3}), Shape({5, 4}), nullptr, attrs);
  ASSERT_EQ(p.route, GemmRoute::kCublasLt);
  EXPECT_TRUE(p.lt.trans_a);  // b [N, K] is the K x N matrix op(b)
  ExpectLayout(p.lt.a, 4, 5, 4, 1, 0, "A = b");
  EXPECT_TRUE(p.lt.trans_b);  // a [K, M] is the M x K matrix op(a)
  ExpectLayout(p.lt.b, 3, 4, 3, 1, 0, "B = a");
  ExpectLayout(p.lt.d, 5, 3, 5, 1, 0, "D = y");

  attrs.trans_a = false;  // a [M, K] = [3, 4]; b still [N, K]
  const GemmPlan q = Gemm(Shape({3, 4}), Shape({5, 4}), nullptr, attrs);
  EXPECT_TRUE(q.lt.trans_a);
  EXPECT_FALSE(q.lt.trans_b);
  ExpectLayout(q.lt.b, 4, 3, 4, 1, 0, "B = a");

  attrs.trans_a = true;
  attrs.trans_b = false;  // a [K, M] = [4, 3], b [K, N] = [4, 5]
  const GemmPlan r = Gemm(Shape({4, 3}), Shape({4, 5}), nullptr, attrs);
  EXPECT_FALSE(r.lt.trans_a);
  ExpectLayout(r.lt.a, 5, 4, 5, 1, 0, "A = b");
  EXPECT_TRUE(r.lt.trans_b);
}

TEST(GemmPlanTest, AlphaBetaAndC) {
  GemmAttrs attrs;
  attrs.alpha = 0.5;
  attrs.beta = 2.0;
  const Shape a({3, 4}), b({4, 5});
  const Shape full({3, 5});
  GemmPlan p = Gemm(a, b, &full, attrs);
  EXPECT_EQ(p.lt.alpha, 0.5f);
  EXPECT_EQ(p.lt.beta, 2.0f);
  EXPECT_EQ(p.c, GemmC::kInput);

  // Broadcast c: copied into y first, then read back with beta.
  for (const Shape& c : {Shape({5}), Shape({1, 5}), Shape({3, 1}), Shape({}),
                         Shape({1}), Shape({1, 1})}) {
    p = Gemm(a, b, &c, attrs);
    EXPECT_EQ(p.c, GemmC::kBroadcastIntoOutput) << c.ToString();
    EXPECT_EQ(p.lt.beta, 2.0f) << c.ToString();
  }
  const Shape row({5});
  p = Gemm(a, b, &row, attrs);
  EXPECT_EQ(p.c_steps.row_step, 0);
  EXPECT_EQ(p.c_steps.col_step, 1);
  const Shape column({3, 1});
  p = Gemm(a, b, &column, attrs);
  EXPECT_EQ(p.c_steps.row_step, 1);
  EXPECT_EQ(p.c_steps.col_step, 0);

  // With one row, c [N] already is [M, N].
  const Shape one_row({1, 4});
  EXPECT_EQ(Gemm(one_row, b, &row, attrs).c, GemmC::kInput);

  // beta 0: c is not read, not even checked (as BLAS).
  attrs.beta = 0.0;
  const Shape wrong({7});
  p = Gemm(a, b, &wrong, attrs);
  EXPECT_EQ(p.c, GemmC::kNone);
  EXPECT_EQ(p.lt.beta, 0.0f);
}

TEST(GemmPlanTest, LinearIsTheWeightTransposed) {
  // x [8, 300], w [70, 300], bias [70]: D (70 x 8) = w (300 x 70)^T x (300 x 8).
  const LtMatmulArgs lt = PlanLinear(8, 300, 70, /*has_bias=*/true);
  EXPECT_TRUE(lt.trans_a);
  EXPECT_FALSE(lt.trans_b);
  ExpectLayout(lt.a, 300, 70, 300, 1, 0, "A = w");
  ExpectLayout(lt.b, 300, 8, 300, 1, 0, "B = x");
  ExpectLayout(lt.d, 70, 8, 70, 1, 0, "D = y");
  EXPECT_TRUE(lt.bias_epilogue);
  EXPECT_FALSE(PlanLinear(8, 300, 70, /*has_bias=*/false).bias_epilogue);

  // Carried out: y = x w^T (the bias is the epilogue's, not emulated).
  GemmPlan plan;
  plan.lt = PlanLinear(5, 7, 3, /*has_bias=*/false);
  plan.calls = {LtCall{}};
  const std::vector<float> x = Random(5 * 7, 7), w = Random(3 * 7, 8);
  std::vector<float> want(5 * 3);
  for (int r = 0; r < 5; ++r) {
    for (int o = 0; o < 3; ++o) {
      double sum = 0;
      for (int i = 0; i < 7; ++i) sum += double{x[r * 7 + i]} * w[o * 7 + i];
      want[r * 3 + o] = static_cast<float>(sum);
    }
  }
  std::vector<float> y(5 * 3, std::nanf(""));
  Emulate(plan, x, w, nullptr, y);
  ExpectNear(y, want, "linear");
}

// Every matmul plan, carried out as cuBLASLt would, equals numpy.matmul.
TEST(GemmPlanTest, EmulatedMatmulPlansComputeNumpyMatmul) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {Shape({3, 4}), Shape({4, 5})},
      {Shape({6, 3, 4}), Shape({6, 4, 5})},
      {Shape({3, 4}), Shape({7, 4, 5})},
      {Shape({2, 3, 8, 4}), Shape({4, 5})},
      {Shape({3, 1, 2, 4}), Shape({1, 5, 4, 6})},
      {Shape({5, 1, 2, 4}), Shape({1, 3, 4, 6})},
      {Shape({2, 3, 1, 2, 3}), Shape({3, 4, 3, 5})},
      {Shape({4}), Shape({2, 4, 3})},
      {Shape({2, 3, 4}), Shape({4})},
      {Shape({4}), Shape({4})},
      {Shape({1, 6, 1, 3, 2}), Shape({4, 1, 5, 2, 3})},
  };
  unsigned seed = 1;
  for (const auto& [as, bs] : cases) {
    const std::string what = as.ToString() + " x " + bs.ToString();
    const GemmPlan plan = Matmul(as, bs);
    ASSERT_EQ(plan.route, GemmRoute::kCublasLt) << what;
    const std::vector<float> a = Random(as.num_elements(), seed++);
    const std::vector<float> b = Random(bs.num_elements(), seed++);
    const std::vector<float> want = NaiveMatmul(as, bs, a, b);
    std::vector<float> y(want.size(), std::nanf(""));
    Emulate(plan, a, b, nullptr, y);
    ExpectNear(y, want, what);
  }
}

// gemm plans with transposes, alpha, beta and every shape of c.
TEST(GemmPlanTest, EmulatedGemmPlansComputeOnnxGemm) {
  const int64_t m = 3, n = 5, k = 4;
  unsigned seed = 100;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (const Shape& cs : {Shape({m, n}), Shape({n}), Shape({1, n}), Shape({m, 1}),
                              Shape({}), Shape({1, 1})}) {
        GemmAttrs attrs;
        attrs.trans_a = ta;
        attrs.trans_b = tb;
        attrs.alpha = 0.75;
        attrs.beta = -1.5;
        const Shape as = ta ? Shape({k, m}) : Shape({m, k});
        const Shape bs = tb ? Shape({n, k}) : Shape({k, n});
        const std::string what = "ta " + std::to_string(ta) + " tb " + std::to_string(tb) +
                                 " c " + cs.ToString();
        const GemmPlan plan = Gemm(as, bs, &cs, attrs);
        ASSERT_EQ(plan.route, GemmRoute::kCublasLt) << what;
        const std::vector<float> a = Random(as.num_elements(), seed++);
        const std::vector<float> b = Random(bs.num_elements(), seed++);
        const std::vector<float> c = Random(cs.num_elements(), seed++);
        std::vector<float> want(m * n);
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            double sum = 0;
            for (int64_t t = 0; t < k; ++t) {
              sum += double{ta ? a[t * m + i] : a[i * k + t]} * (tb ? b[j * k + t] : b[t * n + j]);
            }
            want[i * n + j] = 0.75f * static_cast<float>(sum) +
                              -1.5f * c[i * plan.c_steps.row_step + j * plan.c_steps.col_step];
          }
        }
        std::vector<float> y(m * n, std::nanf(""));
        if (plan.c == GemmC::kBroadcastIntoOutput) {  // the kernel's fill
          for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
              y[i * n + j] = c[i * plan.c_steps.row_step + j * plan.c_steps.col_step];
            }
          }
        }
        Emulate(plan, a, b, c.data(), y);
        ExpectNear(y, want, what);
      }
    }
  }
}

TEST(GemmPlanTest, ShapesThatDoNotFitAreErrors) {
  absl::StatusOr<GemmPlan> bad = PlanMatmul(Shape({3, 4}), Shape({5, 6}));
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  bad = PlanMatmul(Shape({2, 3, 4}), Shape({3, 4, 5}));
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  GemmAttrs attrs;
  bad = PlanGemm(Shape({3, 4}), Shape({5, 4}), nullptr, attrs);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("trans_b"));
  const Shape c({2, 5});
  bad = PlanGemm(Shape({3, 4}), Shape({4, 5}), &c, attrs);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  bad = PlanGemm(Shape({2, 3, 4}), Shape({4, 5}), nullptr, attrs);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace cuda
}  // namespace switchyard
