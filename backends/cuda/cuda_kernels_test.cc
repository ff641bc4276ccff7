// Every op of the CUDA backend against the CPU backend, on every CUDA device,
// with seeded random operands, including the edge cases of each kernel
// (tails of vector loops, padded and dilated windows, ceil mode, NaN,
// grouped and strided convolutions, GEMV and GEMM shapes), then VGG11 end
// to end. Skips, with the reason, where there is no CUDA device.
//
// Tolerances: elementwise ops and max pooling are exact up to float rounding;
// reductions (softmax: a 100000-term sum in another order; adaptive average)
// 1e-7 + 1e-4 * |cpu|, the goldens' per-op tolerance; linear and conv2d
// |gpu - cpu| <= 1e-5 + 1e-4 * max|cpu| (FP32 sums in another order; TF32 is
// off by default); with TF32 on, 1e-2 * max|cpu|.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/testing/random_values.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/partition.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "models/model_zoo.h"
#include "ops/gemm_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

using ::switchyard::testing::RandomValues;
struct Operand {
  Shape shape;
  std::vector<float> values;
  bool constant = false;  // a parameter (weight, bias) rather than an input
};

// Runs one node of `op` (and a relu after it when `then_relu`) on `device`
// and returns its output; `partitions` gets the names of the fused groups
// the device claimed.
absl::StatusOr<std::vector<float>> RunOp(const std::string& op, const AttrMap& attrs,
                                         const std::vector<Operand>& operands,
                                         const Device& device, bool then_relu = false,
                                         std::vector<std::string>* partitions = nullptr) {
  Graph graph;
  std::vector<ValueId> ids;
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Operand& o = operands[i];
    absl::StatusOr<Tensor> t =
        Tensor::FromVector(o.shape, o.values, device, BackendRegistry::Global());
    if (!t.ok()) return t.status();
    if (o.constant) {
      ids.push_back(graph.AddConstant(absl::StrCat("p", i), *t));
    } else {
      ids.push_back(graph.AddInput(absl::StrCat("x", i), o.shape, device));
      inputs.push_back(*t);
    }
  }
  ValueId out_id = graph.AddNode(op, op, ids, attrs);
  if (then_relu) out_id = graph.AddNode("relu", "relu", {out_id}, AttrMap());
  graph.AddOutput(out_id);
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(graph));
  if (!plan.ok()) return plan.status();
  if (partitions != nullptr) {
    partitions->clear();
    for (const Partition& p : (*plan)->partitions()) partitions->push_back(p.name);
  }
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run(inputs);
  if (!out.ok()) return out.status();
  return (*out)[0].ToVector();
}

std::vector<Device> CudaDevices() {
  std::vector<Device> devices;
  for (const Device& d : BackendRegistry::Global().AvailableDevices()) {
    if (d.type() == "cuda") devices.push_back(d);
  }
  return devices;
}

std::string NoGpuReason() {
  absl::StatusOr<Backend*> backend = BackendRegistry::Global().GetBackend("cuda");
  return backend.ok() ? (*backend)->UnavailableReason()
                      : std::string(backend.status().message());
}

#define SKIP_WITHOUT_GPU()                                        \
  if (CudaDevices().empty()) {                                    \
    GTEST_SKIP() << "no CUDA device: " << NoGpuReason();          \
  }

enum class Tolerance { kExact, kReduction, kMatmul, kTf32 };

// Runs the op (and a relu after it) on the CPU and on each CUDA device and
// compares; with `then_relu`, each CUDA device must have fused the two.
void ExpectMatchesCpu(const std::string& op, const AttrMap& attrs,
                      const std::vector<Operand>& operands, Tolerance tolerance,
                      const std::string& what, bool then_relu = false) {
  absl::StatusOr<std::vector<float>> want =
      RunOp(op, attrs, operands, Device::Cpu(), then_relu);
  ASSERT_TRUE(want.ok()) << what << ": " << want.status();
  float scale = 0;
  for (float v : *want) {
    if (!std::isnan(v)) scale = std::max(scale, std::abs(v));
  }
  for (const Device& device : CudaDevices()) {
    std::vector<std::string> partitions;
    absl::StatusOr<std::vector<float>> got =
        RunOp(op, attrs, operands, device, then_relu, &partitions);
    ASSERT_TRUE(got.ok()) << what << " on " << device << ": " << got.status();
    if (then_relu) {
      EXPECT_EQ(partitions, std::vector<std::string>{op + "+relu"})
          << what << " on " << device;
    }
    ASSERT_EQ(got->size(), want->size());
    for (size_t i = 0; i < got->size(); ++i) {
      const float g = (*got)[i], w = (*want)[i];
      if (std::isnan(w)) {
        ASSERT_TRUE(std::isnan(g)) << what << " on " << device << " element " << i;
        continue;
      }
      double limit = 0;
      switch (tolerance) {
        case Tolerance::kExact: limit = 1e-6 * std::abs(w); break;
        case Tolerance::kReduction: limit = 1e-7 + 1e-4 * std::abs(w); break;
        case Tolerance::kMatmul: limit = 1e-5 + 1e-4 * scale; break;
        case Tolerance::kTf32: limit = 1e-2 * scale; break;
      }
      ASSERT_NEAR(g, w, limit) << what << " on " << device << " element " << i;
    }
  }
}

AttrMap Pairs(std::initializer_list<std::pair<const char*, std::vector<int64_t>>> pairs) {
  AttrMap attrs;
  for (const auto& [name, value] : pairs) attrs.Set(name, value);
  return attrs;
}

TEST(CudaKernelsTest, ReluAndAddOnVectorAndTailPaths) {
  SKIP_WITHOUT_GPU();
  for (int64_t n : {int64_t{1}, int64_t{3}, int64_t{4}, int64_t{1001},
                    int64_t{(1 << 20) + 3}}) {
    std::vector<float> x = RandomValues(n, 1);
    ExpectMatchesCpu("relu", AttrMap(), {{Shape({n}), x}}, Tolerance::kExact,
                     absl::StrCat("relu n=", n));
    ExpectMatchesCpu("add", AttrMap(),
                     {{Shape({n}), x}, {Shape({n}), RandomValues(n, 2)}},
                     Tolerance::kExact, absl::StrCat("add n=", n));
  }
}

TEST(CudaKernelsTest, Softmax) {
  SKIP_WITHOUT_GPU();
  AttrMap last;
  last.Set("dim", int64_t{-1});
  ExpectMatchesCpu("softmax", last,
                   {{Shape({4, 1000}), RandomValues(4000, 3, 20)}},
                   Tolerance::kReduction, "softmax rows of 1000");
  ExpectMatchesCpu("softmax", last, {{Shape({3, 7}), RandomValues(21, 4)}},
                   Tolerance::kReduction, "softmax rows of 7");
  ExpectMatchesCpu("softmax", last,
                   {{Shape({2, 100000}), RandomValues(200000, 5, 5)}},
                   Tolerance::kReduction, "softmax long rows");
  AttrMap middle;
  middle.Set("dim", int64_t{1});
  ExpectMatchesCpu("softmax", middle,
                   {{Shape({2, 5, 33}), RandomValues(330, 6, 3)}},
                   Tolerance::kReduction, "softmax over a middle dimension");
  // Few long rows: two launches over chunks (reduce_plan.h), an odd length
  // so the last chunk is shorter.
  ExpectMatchesCpu("softmax", last,
                   {{Shape({1, 1 << 21}), RandomValues(1 << 21, 7, 10)}},
                   Tolerance::kReduction, "softmax over one row of 2M: two stages");
  ExpectMatchesCpu("log_softmax", last,
                   {{Shape({3, 300001}), RandomValues(900003, 8, 10)}},
                   Tolerance::kReduction, "log_softmax over 3 rows of 300001: two stages");
  // A chunk of -inf only must add nothing rather than NaN; a NaN in one
  // chunk makes the whole row NaN, as in one launch.
  std::vector<float> with_inf = RandomValues(1 << 20, 9, 5);
  std::fill(with_inf.begin(), with_inf.begin() + 50000,
            -std::numeric_limits<float>::infinity());
  ExpectMatchesCpu("softmax", last, {{Shape({1, 1 << 20}), with_inf}},
                   Tolerance::kReduction, "softmax, two stages, a chunk of -inf");
  std::vector<float> with_nan = RandomValues(1 << 20, 10, 5);
  with_nan[700000] = std::numeric_limits<float>::quiet_NaN();
  ExpectMatchesCpu("softmax", last, {{Shape({1, 1 << 20}), with_nan}},
                   Tolerance::kReduction, "softmax, two stages, one NaN");
}

// reduce_* over shapes that take one launch and two (reduce_plan.h: a whole
// tensor, few long rows, few long columns, a second pass that splits),
// against a double-precision reference on the host: a float sum over
// millions of terms on the CPU would itself be off by more than the GPU's.
// Sums allow 1e-5 of the sum of |x| (cancellation), products 2e-3 relative;
// max and min are exact. Each result is also run twice and must be bitwise
// the same (fixed partition, fixed combine order).
struct ReduceCase {
  Shape shape;
  std::vector<int64_t> axes;
  const char* what;
};

// Reduces `x` of `shape` over `axes` (keepdims) as `op` does, in double.
std::vector<double> ReferenceReduce(const std::string& op, const Shape& shape,
                                    const std::vector<int64_t>& axes,
                                    const std::vector<float>& x,
                                    std::vector<double>* abs_sum) {
  const int rank = shape.rank();
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t a : axes) reduced[a < 0 ? a + rank : a] = true;
  std::vector<int64_t> out_dims(rank), out_strides(rank, 1);
  int64_t out_size = 1, count = 1;
  for (int d = 0; d < rank; ++d) {
    out_dims[d] = reduced[d] ? 1 : shape.dim(d);
    out_size *= out_dims[d];
    if (reduced[d]) count *= shape.dim(d);
  }
  for (int d = rank - 2; d >= 0; --d) {
    out_strides[d] = out_strides[d + 1] * out_dims[d + 1];
  }
  const bool is_max = op == "reduce_max", is_min = op == "reduce_min";
  const bool is_prod = op == "reduce_prod";
  const double init = is_max   ? -std::numeric_limits<double>::infinity()
                      : is_min ? std::numeric_limits<double>::infinity()
                      : is_prod ? 1.0
                               : 0.0;
  std::vector<double> acc(out_size, init);
  abs_sum->assign(out_size, 0.0);
  std::vector<int64_t> index(rank, 0);
  for (size_t i = 0; i < x.size(); ++i) {
    int64_t o = 0;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) o += index[d] * out_strides[d];
    }
    const double v = x[i];
    double& a = acc[o];
    if (is_max || is_min) {
      // NaN wins and stays.
      if (!std::isnan(a) && (std::isnan(v) || (is_max ? v > a : v < a))) a = v;
    } else if (is_prod) {
      a *= v;
    } else {
      a += v;
    }
    (*abs_sum)[o] += std::abs(v);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape.dim(d)) break;
      index[d] = 0;
    }
  }
  if (op == "reduce_mean") {
    for (size_t o = 0; o < acc.size(); ++o) {
      acc[o] /= count;
      (*abs_sum)[o] /= count;
    }
  }
  return acc;
}

TEST(CudaKernelsTest, ReductionsInOneAndTwoStagesMatchAndRepeat) {
  SKIP_WITHOUT_GPU();
  const std::vector<ReduceCase> cases = {
      {Shape({4, 7}), {1}, "small rows: one launch"},
      {Shape({1 << 22}), {}, "whole tensor of 4M: two stages"},
      {Shape({3, 100003}), {-1}, "3 rows of 100003: two stages, short last chunk"},
      {Shape({1 << 20, 4}), {0}, "4 columns of 1M: two stages"},
      {Shape({2, 50000, 3}), {1}, "middle axis, 6 outputs: two stages"},
      {Shape({70000, 3, 2}), {0, 2}, "two passes, the second split"},
      {Shape({512, 4096}), {-1}, "many rows: one launch"},
  };
  for (const std::string op : {"reduce_sum", "reduce_mean", "reduce_max",
                               "reduce_min", "reduce_prod"}) {
    for (size_t c = 0; c < cases.size(); ++c) {
      const ReduceCase& rc = cases[c];
      const std::string what = absl::StrCat(op, " ", rc.what);
      const int64_t n = rc.shape.num_elements();
      std::vector<float> x = RandomValues(n, 100 + c);
      // Products near 1, so millions of factors neither overflow nor vanish.
      if (op == "reduce_prod") {
        for (float& v : x) v = 1.0f + 1e-3f * v;
      }
      AttrMap attrs;
      attrs.Set("axes", rc.axes);
      attrs.Set("keepdims", true);
      std::vector<double> abs_sum;
      const std::vector<double> want =
          ReferenceReduce(op, rc.shape, rc.axes, x, &abs_sum);
      for (const Device& device : CudaDevices()) {
        absl::StatusOr<std::vector<float>> got =
            RunOp(op, attrs, {{rc.shape, x}}, device);
        ASSERT_TRUE(got.ok()) << what << " on " << device << ": " << got.status();
        ASSERT_EQ(got->size(), want.size()) << what;
        for (size_t i = 0; i < want.size(); ++i) {
          double limit = 0;
          if (op == "reduce_prod") limit = 2e-3 * std::abs(want[i]);
          if (op == "reduce_sum" || op == "reduce_mean") limit = 1e-5 * abs_sum[i];
          ASSERT_NEAR((*got)[i], want[i], limit)
              << what << " on " << device << " element " << i;
        }
        absl::StatusOr<std::vector<float>> again =
            RunOp(op, attrs, {{rc.shape, x}}, device);
        ASSERT_TRUE(again.ok()) << what << ": " << again.status();
        for (size_t i = 0; i < want.size(); ++i) {
          ASSERT_EQ(std::memcmp(&(*got)[i], &(*again)[i], sizeof(float)), 0)
              << what << " on " << device << ": not reproducible at " << i;
        }
      }
    }
  }
  // NaN in one chunk of a two-stage max or min reaches the result.
  std::vector<float> with_nan = RandomValues(1 << 22, 99);
  with_nan[3000001] = std::numeric_limits<float>::quiet_NaN();
  for (const std::string op : {"reduce_max", "reduce_min", "reduce_sum"}) {
    AttrMap attrs;
    attrs.Set("axes", std::vector<int64_t>{});
    attrs.Set("keepdims", false);
    for (const Device& device : CudaDevices()) {
      absl::StatusOr<std::vector<float>> got =
          RunOp(op, attrs, {{Shape({1 << 22}), with_nan}}, device);
      ASSERT_TRUE(got.ok()) << op << " on " << device << ": " << got.status();
      ASSERT_EQ(got->size(), 1u);
      EXPECT_TRUE(std::isnan((*got)[0])) << op << " with a NaN on " << device;
    }
  }
}

TEST(CudaKernelsTest, MaxPool2d) {
  SKIP_WITHOUT_GPU();
  const Shape shape({2, 3, 15, 14});
  const std::vector<float> x = RandomValues(shape.num_elements(), 7);
  struct Case {
    const char* name;
    AttrMap attrs;
  };
  std::vector<Case> cases = {
      {"k2 s2", Pairs({{"kernel_size", {2, 2}}})},
      {"k3 s2 p1", Pairs({{"kernel_size", {3, 3}}, {"stride", {2, 2}}, {"padding", {1, 1}}})},
      {"dilation 2", Pairs({{"kernel_size", {3, 3}}, {"stride", {1, 1}}, {"dilation", {2, 2}}})},
      {"non-square", Pairs({{"kernel_size", {3, 2}}, {"stride", {2, 1}}, {"padding", {1, 0}}})},
  };
  Case ceil{"ceil mode", Pairs({{"kernel_size", {3, 3}}, {"stride", {2, 2}}})};
  ceil.attrs.Set("ceil_mode", true);
  cases.push_back(ceil);
  for (const Case& c : cases) {
    ExpectMatchesCpu("max_pool2d", c.attrs, {{shape, x}}, Tolerance::kExact, c.name);
  }
  // NaN wins wherever it is in a window, padded or not.
  std::vector<float> with_nan = x;
  with_nan[0] = std::numeric_limits<float>::quiet_NaN();
  with_nan[100] = std::numeric_limits<float>::quiet_NaN();
  ExpectMatchesCpu("max_pool2d", cases[1].attrs, {{shape, with_nan}}, Tolerance::kExact,
                   "NaN");
}

TEST(CudaKernelsTest, AdaptiveAvgPool2d) {
  SKIP_WITHOUT_GPU();
  struct Case {
    Shape in;
    std::vector<int64_t> out;
  };
  for (const Case& c : {Case{Shape({2, 3, 14, 14}), {7, 7}}, Case{Shape({1, 2, 7, 5}), {3, 2}},
                        Case{Shape({1, 4, 1, 1}), {7, 7}}, Case{Shape({2, 512, 7, 7}), {7, 7}}}) {
    ExpectMatchesCpu("adaptive_avg_pool2d", Pairs({{"output_size", c.out}}),
                     {{c.in, RandomValues(c.in.num_elements(), 8)}},
                     Tolerance::kReduction,
                     absl::StrCat("adaptive ", c.in.ToString()));
  }
}

TEST(CudaKernelsTest, Linear) {
  SKIP_WITHOUT_GPU();
  struct Case {
    Shape in;
    int64_t out;
    bool bias;
  };
  for (const Case& c : {Case{Shape({1, 4096}), 1000, true},   // GEMV, VGG's last layer
                        Case{Shape({64, 512}), 256, true},    // GEMM
                        Case{Shape({2, 3, 17}), 5, true},     // rank 3, odd sizes
                        Case{Shape({8, 33}), 7, false}}) {    // no bias
    const int64_t in = c.in.dim(c.in.rank() - 1);
    std::vector<Operand> operands = {
        {c.in, RandomValues(c.in.num_elements(), 9)},
        {Shape({c.out, in}), RandomValues(c.out * in, 10, 0.1f), true}};
    if (c.bias)
      operands.push_back({Shape({c.out}), RandomValues(c.out, 11), true});
    ExpectMatchesCpu("linear", AttrMap(), operands, Tolerance::kMatmul,
                     absl::StrCat("linear ", c.in.ToString(), " -> ", c.out));
  }
}

TEST(CudaKernelsTest, Conv2d) {
  SKIP_WITHOUT_GPU();
  struct Case {
    const char* name;
    Shape in;
    int64_t out_channels, kh, kw;
    AttrMap attrs;
    bool bias;
  };
  auto attrs = [](std::vector<int64_t> stride, std::vector<int64_t> pad,
                  std::vector<int64_t> dilation, int64_t groups) {
    AttrMap a = Pairs({{"stride", stride}, {"padding", pad}, {"dilation", dilation}});
    a.Set("groups", groups);
    return a;
  };
  const std::vector<Case> cases = {
      {"3x3 pad 1 (VGG)", Shape({2, 64, 28, 28}), 128, 3, 3, attrs({1, 1}, {1, 1}, {1, 1}, 1), true},
      {"first VGG layer", Shape({1, 3, 32, 32}), 64, 3, 3, attrs({1, 1}, {1, 1}, {1, 1}, 1), true},
      {"1x1", Shape({2, 16, 9, 9}), 8, 1, 1, attrs({1, 1}, {0, 0}, {1, 1}, 1), true},
      {"stride 2", Shape({1, 4, 11, 10}), 6, 3, 3, attrs({2, 2}, {1, 1}, {1, 1}, 1), true},
      {"5x5 stride (2,1) pad (2,0)", Shape({1, 3, 12, 13}), 4, 5, 5, attrs({2, 1}, {2, 0}, {1, 1}, 1), true},
      {"dilation 2", Shape({1, 3, 12, 12}), 5, 3, 3, attrs({1, 1}, {2, 2}, {2, 2}, 1), true},
      {"groups 2", Shape({2, 8, 10, 10}), 6, 3, 3, attrs({1, 1}, {1, 1}, {1, 1}, 2), true},
      {"depthwise", Shape({1, 6, 10, 10}), 6, 3, 3, attrs({1, 1}, {1, 1}, {1, 1}, 6), true},
      {"no bias", Shape({1, 3, 8, 8}), 4, 3, 3, attrs({1, 1}, {0, 0}, {1, 1}, 1), false},
  };
  for (const Case& c : cases) {
    const int64_t groups = *c.attrs.GetInt("groups");
    const Shape w({c.out_channels, c.in.dim(1) / groups, c.kh, c.kw});
    std::vector<Operand> operands = {
        {c.in, RandomValues(c.in.num_elements(), 12)},
        {w, RandomValues(w.num_elements(), 13, 0.2f), true}};
    if (c.bias)
      operands.push_back(
          {Shape({c.out_channels}), RandomValues(c.out_channels, 14), true});
    ExpectMatchesCpu("conv2d", c.attrs, operands, Tolerance::kMatmul, c.name);
  }
}

TEST(CudaKernelsTest, FlattenAndDropoutCopy) {
  SKIP_WITHOUT_GPU();
  const Shape shape({2, 3, 4, 5});
  const std::vector<float> x = RandomValues(shape.num_elements(), 15);
  AttrMap flat;
  flat.Set("start_dim", int64_t{1});
  ExpectMatchesCpu("flatten", flat, {{shape, x}}, Tolerance::kExact, "flatten");
  ExpectMatchesCpu("dropout", AttrMap(), {{shape, x}}, Tolerance::kExact, "dropout");
}

TEST(CudaKernelsTest, BatchNorm) {
  SKIP_WITHOUT_GPU();
  for (const Shape& shape :
       {Shape({2, 3, 5, 7}), Shape({4, 64}), Shape({1, 5, 3}), Shape({8, 512, 7, 7})}) {
    const int64_t c = shape.dim(1);
    std::vector<float> var = RandomValues(c, 24, 1.0f);
    for (float& v : var) v = std::abs(v) + 0.1f;
    AttrMap attrs;
    attrs.Set("epsilon", 1e-3);
    ExpectMatchesCpu("batch_norm", attrs,
                     {{shape, RandomValues(shape.num_elements(), 21, 3.0f)},
                      {Shape({c}), RandomValues(c, 22), true},
                      {Shape({c}), RandomValues(c, 23), true},
                      {Shape({c}), RandomValues(c, 25), true},
                      {Shape({c}), var, true}},
                     // Folded to x * scale + shift: rounding near cancellation
                     // is relative to the operands' size, not the result's.
                     Tolerance::kMatmul,
                     absl::StrCat("batch_norm ", shape.ToString()));
  }
}

// conv2d+relu and linear+relu, claimed as one partition each (the
// convolution or cuBLASLt's matmul with its BIAS epilogue, then a ReLU pass
// of ours), against the CPU's conv2d then relu.
TEST(CudaKernelsTest, FusedConvReluAndLinearRelu) {
  SKIP_WITHOUT_GPU();
  const Shape image({2, 16, 12, 12});
  const Shape w({24, 16, 3, 3});
  AttrMap pad = Pairs({{"padding", {1, 1}}});
  std::vector<Operand> conv = {
      {image, RandomValues(image.num_elements(), 26)},
      {w, RandomValues(w.num_elements(), 27, 0.2f), true}};
  ExpectMatchesCpu("conv2d", pad, conv, Tolerance::kMatmul,
                   "conv2d+relu, no bias",
                   /*then_relu=*/true);
  conv.push_back({Shape({24}), RandomValues(24, 28), true});
  ExpectMatchesCpu("conv2d", pad, conv, Tolerance::kMatmul, "conv2d+relu",
                   /*then_relu=*/true);
  std::vector<Operand> linear = {
      {Shape({8, 300}), RandomValues(8 * 300, 29)},
      {Shape({70, 300}), RandomValues(70 * 300, 30, 0.1f), true}};
  ExpectMatchesCpu("linear", AttrMap(), linear, Tolerance::kMatmul,
                   "linear+relu, no bias", /*then_relu=*/true);
  linear.push_back({Shape({70}), RandomValues(70, 31), true});
  ExpectMatchesCpu("linear", AttrMap(), linear, Tolerance::kMatmul,
                   "linear+relu",
                   /*then_relu=*/true);
}

// NaN before a fused relu stays NaN, as on cpu:0 and in PyTorch (cuBLASLt's
// RELU epilogue and cuDNN's NOT_PROPAGATE_NAN ReLU would make it 0): a NaN
// pixel spreads over the conv windows that read it, a NaN bias over its
// channel, a NaN feature over its row of the linear.
TEST(CudaKernelsTest, FusedReluKeepsNaN) {
  SKIP_WITHOUT_GPU();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Shape image({2, 16, 12, 12});
  const Shape w({24, 16, 3, 3});
  AttrMap pad = Pairs({{"padding", {1, 1}}});
  std::vector<float> x = RandomValues(image.num_elements(), 40);
  x[5] = nan;
  x[12 * 12 * 16 + 77] = nan;  // second image
  std::vector<Operand> conv = {{image, x}, {w, RandomValues(w.num_elements(), 41, 0.2f), true}};
  ExpectMatchesCpu("conv2d", pad, conv, Tolerance::kMatmul, "conv2d+relu, NaN pixels",
                   /*then_relu=*/true);
  std::vector<float> bias = RandomValues(24, 42);
  bias[3] = nan;
  conv.push_back({Shape({24}), bias, true});
  ExpectMatchesCpu("conv2d", pad, conv, Tolerance::kMatmul,
                   "conv2d+relu, NaN pixels and a NaN bias", /*then_relu=*/true);

  std::vector<float> features = RandomValues(8 * 300, 43);
  features[300 * 2 + 17] = nan;  // row 2
  std::vector<Operand> linear = {
      {Shape({8, 300}), features},
      {Shape({70, 300}), RandomValues(70 * 300, 44, 0.1f), true}};
  ExpectMatchesCpu("linear", AttrMap(), linear, Tolerance::kMatmul,
                   "linear+relu, a NaN feature, no bias", /*then_relu=*/true);
  std::vector<float> linear_bias = RandomValues(70, 45);
  linear_bias[9] = nan;
  linear.push_back({Shape({70}), linear_bias, true});
  ExpectMatchesCpu("linear", AttrMap(), linear, Tolerance::kMatmul,
                   "linear+relu, a NaN feature and a NaN bias", /*then_relu=*/true);
  // relu alone, on its vector and tail paths.
  std::vector<float> v = RandomValues(1003, 46);
  v[0] = nan;
  v[1001] = nan;
  ExpectMatchesCpu("relu", AttrMap(), {{Shape({1003}), v}}, Tolerance::kExact, "relu, NaN");
}

// SWITCHYARD_CUDNN_FUSED_CONV_RELU=1: cuDNN's fused call (or, on any error of
// its first call but out-of-memory, the unfused path) must match the CPU on
// NaN-free data; what it makes of a NaN is reported, not asserted (cuDNN
// documents only NOT_PROPAGATE_NAN): the GPU run says whether the fused call
// could become the default.
TEST(CudaKernelsTest, FusedConvReluOnRequestFallsBackOrMatches) {
  SKIP_WITHOUT_GPU();
  struct FusedOnRequest {  // for the kernels made in this test only
    FusedOnRequest() { setenv("SWITCHYARD_CUDNN_FUSED_CONV_RELU", "1", 1); }
    ~FusedOnRequest() { unsetenv("SWITCHYARD_CUDNN_FUSED_CONV_RELU"); }
  } fused_on_request;
  const Shape image({2, 16, 12, 12});
  const Shape w({24, 16, 3, 3});
  AttrMap pad = Pairs({{"padding", {1, 1}}});
  std::vector<Operand> conv = {{image, RandomValues(image.num_elements(), 47)},
                               {w, RandomValues(w.num_elements(), 48, 0.2f), true},
                               {Shape({24}), RandomValues(24, 49), true}};
  // conv2d.cc says on stderr, once, when cuDNN refuses the fused call.
  ::testing::internal::CaptureStderr();
  ExpectMatchesCpu("conv2d", pad, conv, Tolerance::kMatmul,
                   "conv2d+relu through cuDNN's fused call", /*then_relu=*/true);
  const std::string stderr_text = ::testing::internal::GetCapturedStderr();
  std::cerr << stderr_text;
  const bool refused = stderr_text.find("fused conv2d+relu refused") != std::string::npos;
  if (HasFatalFailure()) return;
  conv[0].values[5] = std::numeric_limits<float>::quiet_NaN();
  absl::StatusOr<std::vector<float>> got =
      RunOp("conv2d", pad, conv, CudaDevices()[0], /*then_relu=*/true);
  ASSERT_TRUE(got.ok()) << got.status();
  // The NaN outputs counted on both sides (the unfused path keeps them all).
  absl::StatusOr<std::vector<float>> want =
      RunOp("conv2d", pad, conv, Device::Cpu(), /*then_relu=*/true);
  ASSERT_TRUE(want.ok()) << want.status();
  int64_t want_nan = 0, got_nan = 0;
  for (float v : *want) want_nan += std::isnan(v);
  for (float v : *got) got_nan += std::isnan(v);
  std::string verdict;
  if (refused) {
    verdict = absl::StrCat("was refused (see stderr); the unfused path kept ", got_nan,
                           " of ", want_nan, " NaN outputs");
  } else if (got_nan == want_nan) {
    verdict = absl::StrCat("ran and kept all ", want_nan,
                           " NaN outputs (it could be the default)");
  } else {
    verdict = absl::StrCat("ran and kept ", got_nan, " of ", want_nan,
                           " NaN outputs (it must stay off by default)");
  }
  RecordProperty("cudnn_fused_conv_relu_nan", verdict);
  std::cout << "cuDNN's fused conv2d+relu " << verdict << std::endl;
  EXPECT_TRUE(!refused || got_nan == want_nan)
      << "the unfused path must keep every NaN: " << verdict;
}

// matmul and gemm through cuBLASLt (gemm_plan.h: strided batches, a shared b
// folded into rows, broadcasts, transposes, alpha/beta, c broadcast into the
// output) and the tile kernel's cases (k = 0, many tiny broadcast calls),
// against the CPU.
TEST(CudaKernelsTest, MatmulAndGemm) {
  SKIP_WITHOUT_GPU();
  struct MatmulCase {
    Shape a, b;
    const char* what;
  };
  const std::vector<MatmulCase> matmuls = {
      {Shape({64, 96}), Shape({96, 80}), "[M, K] x [K, N]"},
      {Shape({1, 512}), Shape({512, 1000}), "GEMV"},
      {Shape({6, 33, 17}), Shape({6, 17, 29}), "batched, odd sizes"},
      {Shape({33, 17}), Shape({5, 17, 29}), "a shared: stride-0 batch"},
      {Shape({4, 7, 33, 17}), Shape({17, 29}), "b shared: folded into rows"},
      {Shape({3, 1, 9, 17}), Shape({1, 5, 17, 11}), "[B, 1, M, K] x [1, C, K, N]"},
      {Shape({5, 1, 9, 17}), Shape({1, 3, 17, 11}), "[B, 1, M, K] x [1, C, K, N], B > C"},
      {Shape({2, 3, 1, 4, 8}), Shape({3, 5, 8, 6}), "rank 5 against rank 4"},
      {Shape({17}), Shape({3, 17, 5}), "1-D a"},
      {Shape({3, 9, 17}), Shape({17}), "1-D b"},
      {Shape({100, 1, 2, 3}), Shape({1, 80, 3, 2}), "many tiny calls: tile kernel"},
      {Shape({5, 0}), Shape({0, 7}), "k = 0: tile kernel"},
      {Shape({0, 5, 4}), Shape({4, 3}), "empty output"},
  };
  uint64_t seed = 60;
  for (const MatmulCase& c : matmuls) {
    ExpectMatchesCpu("matmul", AttrMap(),
                     {{c.a, RandomValues(c.a.num_elements(), seed++)},
                      {c.b, RandomValues(c.b.num_elements(), seed++, 0.2f)}},
                     Tolerance::kMatmul,
                     absl::StrCat("matmul ", c.what, ": ", c.a.ToString(), " x ",
                                  c.b.ToString()));
  }
  const int64_t m = 37, n = 45, k = 29;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (const Shape& cs : {Shape({m, n}), Shape({n}), Shape({m, 1}), Shape({})}) {
        GemmAttrs attrs;
        attrs.trans_a = ta;
        attrs.trans_b = tb;
        attrs.alpha = 0.5;
        attrs.beta = cs.rank() == 1 ? 1.0 : -2.0;
        const Shape as = ta ? Shape({k, m}) : Shape({m, k});
        const Shape bs = tb ? Shape({n, k}) : Shape({k, n});
        ExpectMatchesCpu("gemm", attrs.ToAttrMap(),
                         {{as, RandomValues(as.num_elements(), seed++)},
                          {bs, RandomValues(bs.num_elements(), seed++, 0.2f), true},
                          {cs, RandomValues(cs.num_elements(), seed++), true}},
                         Tolerance::kMatmul,
                         absl::StrCat("gemm trans_a ", ta, " trans_b ", tb, " c ",
                                      cs.ToString(), " beta ", attrs.beta));
      }
    }
  }
  GemmAttrs no_c;
  no_c.beta = 0.0;
  ExpectMatchesCpu("gemm", no_c.ToAttrMap(),
                   {{Shape({8, 16}), RandomValues(128, seed++)},
                    {Shape({16, 4}), RandomValues(64, seed++), true},
                    {Shape({4}), RandomValues(4, seed++), true}},
                   Tolerance::kMatmul, "gemm, beta 0: c not read");
  GemmAttrs empty_k;
  ExpectMatchesCpu("gemm", empty_k.ToAttrMap(),
                   {{Shape({3, 0}), {}}, {Shape({0, 4}), {}, true},
                    {Shape({4}), RandomValues(4, seed++), true}},
                   Tolerance::kMatmul, "gemm, k = 0: tile kernel, beta * c");
}

TEST(CudaKernelsTest, Tf32IsAnExplicitOptionWithAWiderTolerance) {
  SKIP_WITHOUT_GPU();
  BackendRegistry& registry = BackendRegistry::Global();
  ASSERT_TRUE(registry.SetOption("cuda", "allow_tf32", "true").ok());
  const Shape in({64, 1024});
  std::vector<Operand> linear = {
      {in, RandomValues(in.num_elements(), 16)},
      {Shape({512, 1024}), RandomValues(512 * 1024, 17, 0.05f), true}};
  ExpectMatchesCpu("linear", AttrMap(), linear, Tolerance::kTf32,
                   "linear, TF32");
  ExpectMatchesCpu("matmul", AttrMap(),
                   {{Shape({4, 64, 256}), RandomValues(4 * 64 * 256, 50)},
                    {Shape({4, 256, 128}), RandomValues(4 * 256 * 128, 51, 0.1f)}},
                   Tolerance::kTf32, "batched matmul, TF32");
  const Shape image({2, 32, 16, 16});
  AttrMap pad = Pairs({{"padding", {1, 1}}});
  ExpectMatchesCpu(
      "conv2d", pad,
      {{image, RandomValues(image.num_elements(), 18)},
       {Shape({32, 32, 3, 3}), RandomValues(32 * 32 * 9, 19, 0.1f), true}},
      Tolerance::kTf32, "conv2d, TF32");
  ASSERT_TRUE(registry.SetOption("cuda", "allow_tf32", "false").ok());
}

TEST(CudaKernelsTest, Vgg11MatchesTheCpuEndToEnd) {
  SKIP_WITHOUT_GPU();
  std::vector<float> logits[2];
  const std::vector<float> input = RandomValues(2 * 3 * 224 * 224, 20);
  const Device devices[2] = {Device::Cpu(), CudaDevices()[0]};
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<std::unique_ptr<Module>> model = CreateModel("vgg11");
    ASSERT_TRUE(model.ok()) << model.status();
    ASSERT_TRUE(InitializeModel(**model, /*seed=*/0).ok());
    ASSERT_TRUE((*model)->To(devices[i]).ok());
    absl::StatusOr<Tensor> x = Tensor::FromVector({2, 3, 224, 224}, input, devices[i],
                                                  BackendRegistry::Global());
    ASSERT_TRUE(x.ok()) << x.status();
    absl::StatusOr<Tensor> y = (*model)->Forward(*x);
    ASSERT_TRUE(y.ok()) << devices[i] << ": " << y.status();
    logits[i] = *y->ToVector();
  }
  float scale = 0;
  for (float v : logits[0]) scale = std::max(scale, std::abs(v));
  ASSERT_GT(scale, 0);
  for (size_t i = 0; i < logits[0].size(); ++i) {
    ASSERT_NEAR(logits[1][i], logits[0][i], 1e-4 * scale) << "logit " << i;
  }
  for (int sample = 0; sample < 2; ++sample) {
    auto top1 = [&](const std::vector<float>& v) {
      return std::max_element(v.begin() + sample * 1000, v.begin() + (sample + 1) * 1000) -
             (v.begin() + sample * 1000);
    };
    EXPECT_EQ(top1(logits[1]), top1(logits[0])) << "sample " << sample;
  }
}

}  // namespace
}  // namespace cuda
}  // namespace switchyard
