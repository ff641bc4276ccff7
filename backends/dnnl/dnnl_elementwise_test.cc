// The oneDNN device's elementwise ops against the reference backend:
// binary ops with broadcasting (a per-channel [N,C,1,1] beside a blocked
// convolution output, scalar and [C,1,1] constants, swapped operands, the
// refused non-commutative case), each unary op (NaN and infinities
// included), and the eltwise post-ops and SiLU fusion with their negative
// cases (an extra reader keeps the nodes apart).

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "backends/dnnl/dnnl_backend.h"
#include "backends/dnnl/dnnl_partition.h"
#include "backends/reference/reference_backend.h"
#include "core/compile.h"
#include "core/partition.h"
#include "core/tensor.h"
#include "backends/dnnl/dnnl_test_devices.h"
#include "gtest/gtest.h"
#include "ops/conv_attrs.h"

namespace switchyard {
namespace onednn {
namespace {

using Ints = std::vector<int64_t>;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

using testing::Dnnl;
using testing::Random;
using testing::Ref;
using testing::Registry;

// A graph under construction on one device, with its input tensors.
struct Builder {
  explicit Builder(BackendDevice& device) : device(device), rng(11) {}
  ValueId Input(const Shape& shape, std::vector<float> values = {}) {
    if (values.empty()) values = Random(shape.num_elements(), rng);
    inputs.push_back(*Tensor::FromVector(shape, values, device));
    return graph.AddInput("x" + std::to_string(inputs.size()), shape,
                          device.device());
  }
  ValueId Constant(const Shape& shape, std::vector<float> values = {},
                   float scale = 0.3f) {
    if (values.empty()) values = Random(shape.num_elements(), rng, scale);
    return graph.AddConstant("k" + std::to_string(++constants),
                             *Tensor::FromVector(shape, values, device));
  }
  ValueId Node(const std::string& op, std::vector<ValueId> in,
               AttrMap attrs = AttrMap()) {
    return graph.AddNode(op, op + std::to_string(++nodes), std::move(in),
                         std::move(attrs));
  }
  // A 3x3 convolution, padding 1: on oneDNN its output is blocked.
  ValueId Conv(ValueId x, int64_t in_c, int64_t out_c) {
    Conv2dAttrs pad1;
    pad1.pad_h = pad1.pad_w = 1;
    return Node("conv2d",
                {x, Constant(Shape({out_c, in_c, 3, 3})), Constant(Shape({out_c}))},
                pad1.ToAttrMap());
  }
  // A 1x1 convolution (the squeeze-excite's).
  ValueId Conv1x1(ValueId x, int64_t in_c, int64_t out_c) {
    return Node("conv2d", {x, Constant(Shape({out_c, in_c, 1, 1}), {}, 0.5f),
                           Constant(Shape({out_c}))},
                Conv2dAttrs().ToAttrMap());
  }

  BackendDevice& device;
  std::mt19937 rng;
  Graph graph;
  std::vector<Tensor> inputs;
  int constants = 0;
  int nodes = 0;
};

struct Ran {
  std::vector<std::vector<float>> outputs;
  std::string partitions;  // "name@device;" each dnnl partition
  std::string placed;      // "op@device;" each node
  std::vector<std::string> steps;  // of the first dnnl partition
};

// Builds the graph on `device` and runs it (auto placement: the dnnl
// device, falling back to ref:0).
Ran Run(BackendDevice& device, const std::function<void(Builder&)>& build) {
  Builder b(device);
  build(b);
  CompileOptions options;
  options.backends = &Registry();
  if (device.device().type() == "dnnl") {
    options.placement = PlacementPolicy::kAuto;
    options.target = device.device();
    options.fallback = Ref().device();
  }
  Ran ran;
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
      Compile(std::move(b.graph), options);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return ran;
  for (const Node& node : (*plan)->graph().nodes()) {
    ran.placed += node.op + "@" + node.device->ToString() + ";";
  }
  for (const Partition& p : (*plan)->partitions()) {
    const Device on = *(*plan)->graph().node(p.nodes[0]).device;
    ran.partitions += p.name + "@" + on.ToString() + ";";
    if (ran.steps.empty() && on.type() == "dnnl") {
      absl::StatusOr<std::unique_ptr<Kernel>> kernel =
          device.CreatePartitionKernel(p, (*plan)->graph());
      EXPECT_TRUE(kernel.ok()) << kernel.status();
      if (kernel.ok()) ran.steps = KernelSteps(**kernel);
    }
  }
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run(b.inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  if (out.ok()) {
    for (const Tensor& t : *out) ran.outputs.push_back(*t.ToVector());
  }
  return ran;
}

// Close to the reference; NaN where it has NaN, the same infinities.
void ExpectMatches(const Ran& got, const Ran& want, const std::string& what) {
  ASSERT_EQ(got.outputs.size(), want.outputs.size()) << what;
  for (size_t o = 0; o < got.outputs.size(); ++o) {
    const std::vector<float>& g = got.outputs[o];
    const std::vector<float>& w = want.outputs[o];
    ASSERT_EQ(g.size(), w.size()) << what;
    float scale = 0;
    for (float v : w) {
      if (std::isfinite(v)) scale = std::max(scale, std::abs(v));
    }
    for (size_t i = 0; i < g.size(); ++i) {
      if (std::isnan(w[i])) {
        ASSERT_TRUE(std::isnan(g[i])) << what << " output " << o << " element "
                                      << i << ": " << g[i] << ", want NaN";
      } else if (std::isinf(w[i])) {
        ASSERT_EQ(g[i], w[i]) << what << " output " << o << " element " << i;
      } else {
        ASSERT_NEAR(g[i], w[i], 1e-5 + 1e-4 * scale)
            << what << " output " << o << " element " << i;
      }
    }
  }
}

// Runs `build` on dnnl:0 (auto placement) and ref:0 and compares.
Ran ExpectLikeReference(const std::string& what,
                        const std::function<void(Builder&)>& build) {
  Ran got = Run(Dnnl(), build);
  ExpectMatches(got, Run(Ref(), build), what);
  return got;
}

bool AllOnDnnl(const Ran& ran) {
  return !ran.partitions.empty() && !absl::StrContains(ran.partitions, "@ref");
}

int StepsStartingWith(const Ran& ran, const std::string& prefix) {
  int n = 0;
  for (const std::string& s : ran.steps) n += absl::StartsWith(s, prefix);
  return n;
}

// --- binary ------------------------------------------------------------------

// Squeeze-excite: x * sigmoid(conv(pool(x))) with the [N,C,1,1] operand
// first (mul is commutative: src0 is x), x a blocked convolution output.
TEST(DnnlBinaryTest, SqueezeExciteOnABlockedConvolutionOutput) {
  const Ran ran = ExpectLikeReference("squeeze-excite", [](Builder& b) {
    ValueId x = b.Conv(b.Input(Shape({2, 3, 6, 6})), 3, 16);
    AttrMap one;
    one.Set("output_size", Ints{1, 1});
    ValueId s = b.Node("adaptive_avg_pool2d", {x}, one);
    s = b.Node("sigmoid", {b.Conv1x1(s, 16, 16)});
    b.graph.AddOutput(b.Node("mul", {s, x}));
  });
  EXPECT_TRUE(AllOnDnnl(ran)) << ran.partitions;
  EXPECT_TRUE(absl::StrContains(ran.partitions, "conv2d+sigmoid")) << ran.partitions;
  // The per-channel operand is used in oneDNN's layout, and so is x: no
  // reorder between primitives (at most the input's into oneDNN's layout).
  EXPECT_EQ(StepsStartingWith(ran, "to plain:"), 0) << absl::StrJoin(ran.steps, "\n");
  EXPECT_EQ(StepsStartingWith(ran, "broadcast operand:"), 0)
      << absl::StrJoin(ran.steps, "\n");
  EXPECT_LE(StepsStartingWith(ran, "reorder:"), 1) << absl::StrJoin(ran.steps, "\n");
}

int StepsContaining(const Ran& ran, const std::string& part) {
  int n = 0;
  for (const std::string& s : ran.steps) n += absl::StrContains(s, part);
  return n;
}

// x * s with x channels-last and s per image and channel (or one for every
// image) is a host pass (dnnl_channel_scale.h): in place when nothing
// reads x later, into its own buffer when x is also an output. oneDNN
// picks channels-last for its brgemm convolutions (AVX-512); elsewhere
// (nChw8c on AVX2) the binary primitive stays, and the results match
// either way.
TEST(DnnlBinaryTest, ChannelScaleOfAChannelsLastValueIsAHostPass) {
  for (bool x_is_output : {false, true}) {
    for (bool per_image : {true, false}) {
      const std::string what = absl::StrCat("channel scale, x an output: ", x_is_output,
                                            ", per image: ", per_image);
      const Ran ran = ExpectLikeReference(what, [&](Builder& b) {
        ValueId x = b.Conv1x1(b.Input(Shape({2, 24, 5, 7})), 24, 32);
        ValueId s = per_image ? b.Node("sigmoid", {b.Input(Shape({2, 32, 1, 1}))})
                              : b.Constant(Shape({1, 32, 1, 1}));
        // A 3x3 conv reads the product (a 1x1 one would take the scaling
        // into its weights: ScaledInputOfAPointwiseConvolution).
        b.graph.AddOutput(b.Conv(b.Node("mul", {s, x}), 32, 8));
        if (x_is_output) b.graph.AddOutput(x);
      });
      EXPECT_TRUE(AllOnDnnl(ran)) << ran.partitions;
      const bool channels_last = StepsContaining(ran, "brgconv") > 0;
      EXPECT_EQ(StepsContaining(ran, "host channel scale"), channels_last ? 1 : 0)
          << what << "\n" << absl::StrJoin(ran.steps, "\n");
    }
  }
}

// mul(x, s [1, C, 1, 1]) read by a 1x1 conv alone: the conv runs on x with
// its weights scaled (dnnl_scaled_conv.cc) where they are smaller than x;
// on a convolution's output (oneDNN's layout), with a residual add after
// the conv, one s for a batch of 3. A factor per image at batch 3, weights
// no smaller than x, or a plain x (on which oneDNN's 1x1 conv is its GEMM
// one, slower than the scaling saves): mul then conv.
TEST(DnnlFusionTest, ScaledInputOfAPointwiseConvolution) {
  struct Case {
    std::string what;
    int64_t batch, s_batch, size;  // size: H = W
    bool from_conv, residual;
    int scaled;  // expected host steps
    int64_t channels = 16, out_channels = 8;
  };
  const std::vector<Case> cases = {
      {"batch 1, plain x", 1, 1, 6, false, false, 0},
      {"batch 1, conv output, residual", 1, 1, 6, true, true, 1},
      {"batch 3, one s for all", 3, 1, 6, true, false, 1},
      {"batch 3, s per image", 3, 3, 6, false, true, 0},
      {"weights no smaller than x", 1, 1, 2, false, true, 0},
      // Channel counts off oneDNN's blocks: padded weight layouts.
      {"batch 1, 20 -> 37 channels", 1, 1, 7, true, true, 1, 20, 37},
      {"batch 2, 67 -> 5 channels", 2, 1, 5, true, false, 1, 67, 5},
  };
  for (const Case& c : cases) {
    const Ran ran = ExpectLikeReference(c.what, [&](Builder& b) {
      const int64_t n = c.batch * c.channels * c.size * c.size;
      ValueId x = b.Input(Shape({c.batch, c.channels, c.size, c.size}), Random(n, b.rng, 2.0f));
      if (c.from_conv) x = b.Conv(x, c.channels, c.channels);
      ValueId s = b.Node("sigmoid", {b.Input(Shape({c.s_batch, c.channels, 1, 1}),
                                             Random(c.s_batch * c.channels, b.rng, 4.0f))});
      ValueId y = b.Conv1x1(b.Node("mul", {s, x}), c.channels, c.out_channels);
      if (c.residual) {
        y = b.Node("add", {y, b.Input(Shape({c.batch, c.out_channels, c.size, c.size}))});
      }
      b.graph.AddOutput(y);
    });
    EXPECT_TRUE(AllOnDnnl(ran)) << c.what << ": " << ran.partitions;
    EXPECT_EQ(StepsContaining(ran, "on scaled weights"), c.scaled)
        << c.what << "\n" << absl::StrJoin(ran.steps, "\n");
  }
}

// A conv2d or pooling with too little work to share (a squeeze block's
// pool and convs on one pixel) is made for and runs on one thread; a larger
// conv keeps the kernel's threads. Both match the reference.
TEST(DnnlFusionTest, TinyConvolutionsAndPoolsRunOnOneThread) {
  const Ran ran = ExpectLikeReference("squeeze convs", [](Builder& b) {
    ValueId x = b.Conv(b.Input(Shape({1, 16, 16, 16})), 16, 64);  // 147k MACs
    AttrMap one;
    one.Set("output_size", Ints{1, 1});
    ValueId s = b.Node("adaptive_avg_pool2d", {x}, one);
    s = b.Node("relu", {b.Conv1x1(s, 64, 16)});                    // 1k MACs
    s = b.Node("sigmoid", {b.Conv1x1(s, 16, 64)});
    b.graph.AddOutput(b.Node("mul", {s, x}));
  });
  EXPECT_TRUE(AllOnDnnl(ran)) << ran.partitions;
  EXPECT_EQ(StepsContaining(ran, "(1 thread)"), 3) << absl::StrJoin(ran.steps, "\n");
}

// Same-shape sub and div on blocked values, and x - x (never in place).
TEST(DnnlBinaryTest, SameShapeSubAndDiv) {
  const Ran ran = ExpectLikeReference("sub, div", [](Builder& b) {
    ValueId x = b.Conv(b.Input(Shape({1, 4, 5, 5})), 4, 8);
    ValueId y = b.Conv(b.Input(Shape({1, 4, 5, 5})), 4, 8);
    ValueId d = b.Node("sub", {x, y});
    ValueId q = b.Node("div", {d, b.Node("add", {b.Node("abs", {y}),
                                                 b.Constant(Shape({}), {1.0f})})});
    b.graph.AddOutput(b.Node("sub", {q, q}));
    b.graph.AddOutput(q);
  });
  EXPECT_TRUE(AllOnDnnl(ran)) << ran.partitions;
}

// Scalar constants on either side of a commutative op, a scalar divisor,
// and ConvNeXt's layer scale: a [C,1,1] constant times a blocked value.
TEST(DnnlBinaryTest, ScalarsAndPerChannelConstants) {
  const Ran ran = ExpectLikeReference("constants", [](Builder& b) {
    ValueId x = b.Conv(b.Input(Shape({2, 3, 4, 4})), 3, 8);
    ValueId half = b.Constant(Shape({}), {0.5f});
    ValueId y = b.Node("mul", {x, half});
    y = b.Node("add", {b.Constant(Shape({}), {1.0f}), y});  // swapped
    y = b.Node("div", {y, b.Constant(Shape({}), {1.5f})});
    y = b.Node("mul", {b.Constant(Shape({8, 1, 1}), {}, 2.0f), y});  // swapped
    b.graph.AddOutput(b.Node("sub", {y, b.Constant(Shape({8, 1, 1}))}));
  });
  EXPECT_TRUE(AllOnDnnl(ran)) << ran.partitions;
}

// Row broadcasts on plain 2-D and 3-D values ([T, D] + [D], [B, T, D] *
// [B, T, 1]), as a transformer's.
TEST(DnnlBinaryTest, PlainBroadcasts) {
  const Ran ran = ExpectLikeReference("rows", [](Builder& b) {
    ValueId x = b.Input(Shape({2, 5, 6}));
    ValueId y = b.Node("add", {x, b.Constant(Shape({6}))});
    y = b.Node("mul", {y, b.Input(Shape({2, 5, 1}))});
    y = b.Node("div", {y, b.Input(Shape({5, 1}), std::vector<float>(5, 4.0f))});
    b.graph.AddOutput(b.Node("sub", {y, b.Input(Shape({1, 6}))}));
  });
  EXPECT_TRUE(AllOnDnnl(ran)) << ran.partitions;
}

// A linear head at batch 1: [1, 10] * scale + bias [10], the bias of fewer
// dims but as many elements (it was reordered across ranks, which oneDNN
// refuses).
TEST(DnnlBinaryTest, OperandOfFewerDimsAndTheSameElements) {
  const Ran ran = ExpectLikeReference("head", [](Builder& b) {
    ValueId x = b.Input(Shape({1, 10}));
    ValueId y = b.Node("mul", {x, b.Constant(Shape({}), {0.25f})});
    b.graph.AddOutput(b.Node("add", {y, b.Constant(Shape({10}))}));
  });
  EXPECT_TRUE(AllOnDnnl(ran)) << ran.partitions;
}

// A detector's input normalization, (image - mean[3,1,1]) / std[3,1,1], on a
// plain [3,H,W] value: oneDNN has no JIT kernel for that broadcast as it
// stands (its reference one took ~20 ns an element), so the operands go in
// as the same bytes with fewer dims ([1,3,H*W] and [1,3,1]). Broadcasts of
// other shapes, whatever kernel they get, still match the reference.
TEST(DnnlBinaryTest, LeadingAxisBroadcastsRunJitKernels) {
  const Ran ran = ExpectLikeReference("normalize", [](Builder& b) {
    ValueId image = b.Input(Shape({3, 8, 8}));
    ValueId y = b.Node("sub", {image, b.Constant(Shape({3, 1, 1}))});
    y = b.Node("div", {y, b.Constant(Shape({3, 1, 1}), {0.5f, 0.25f, 2.0f})});
    b.graph.AddOutput(y);
  });
  EXPECT_TRUE(AllOnDnnl(ran)) << ran.partitions;
  for (const std::string& step : ran.steps) {
    EXPECT_FALSE(absl::StrContains(step, "ref:")) << step;
  }
  const Ran mixed = ExpectLikeReference("mixed broadcasts", [](Builder& b) {
    ValueId x = b.Input(Shape({2, 3, 4, 5}));
    ValueId y = b.Node("mul", {x, b.Input(Shape({2, 1, 4, 1}))});
    y = b.Node("add", {y, b.Constant(Shape({3, 1, 5}))});
    y = b.Node("sub", {y, b.Input(Shape({2, 3, 1, 1}))});
    b.graph.AddOutput(b.Node("div", {y, b.Constant(Shape({1, 1, 4, 1}), {}, 2.0f)}));
  });
  EXPECT_TRUE(AllOnDnnl(mixed)) << mixed.partitions;
}

// Swin's shifted-window mask, [B, nW, heads, T, T] + [1, nW, 1, T, T]:
// oneDNN 2.6 has only its reference kernel for that broadcast (even with
// the dims merged), ~25x slower than a host pass, so the add is one; sub,
// mul and div take the same path.
TEST(DnnlBinaryTest, BroadcastsWithoutAJitKernelRunOnTheHost) {
  for (const char* op : {"add", "sub", "mul", "div"}) {
    const Ran ran = ExpectLikeReference(op, [op](Builder& b) {
      ValueId attn = b.Node("relu", {b.Input(Shape({2, 4, 3, 5, 5}))});
      ValueId mask = b.Constant(Shape({1, 4, 1, 5, 5}), {}, 1.5f);
      b.graph.AddOutput(b.Node(op, {attn, mask}));
    });
    EXPECT_TRUE(AllOnDnnl(ran)) << ran.partitions;
    EXPECT_EQ(StepsContaining(ran, "host broadcast"), 1) << absl::StrJoin(ran.steps, "\n");
    for (const std::string& step : ran.steps) {
      EXPECT_FALSE(absl::StrContains(step, "ref:")) << step;
    }
  }
}

// 1 - x: oneDNN broadcasts its second operand only and sub does not
// commute, so the node falls back to another device, still right.
TEST(DnnlBinaryTest, BroadcastFirstOperandOfSubFallsBack) {
  const Ran ran = ExpectLikeReference("1 - x", [](Builder& b) {
    ValueId x = b.Node("relu", {b.Input(Shape({2, 3}))});
    ValueId y = b.Node("sub", {b.Constant(Shape({}), {1.0f}), x});
    b.graph.AddOutput(b.Node("relu", {y}));
  });
  EXPECT_TRUE(absl::StrContains(ran.placed, "sub@ref:0")) << ran.placed;
}

// --- unary -------------------------------------------------------------------

// Inputs that probe each formula's edges: NaN, infinities, zeros, the
// bends of hard_swish and clip, saturation. relu, clip and hard_sigmoid on
// oneDNN turn NaN into 0 and the lower bound (its max and min): they get no
// NaN.
std::vector<float> Probes(bool nan = true) {
  std::vector<float> v = {nan ? kNaN : 0.5f, kInf, -kInf, 0.0f, -0.0f, 1.0f, -1.0f, 3.0f,
                          -3.0f, 2.5f, -2.5f, 20.0f, -20.0f, 100.0f, -100.0f, 0.25f};
  std::mt19937 rng(3);
  for (float x : Random(48, rng, 6.0f)) v.push_back(x);
  return v;
}

class DnnlUnaryTest : public ::testing::TestWithParam<std::string> {};

// Each op on its own (in place over an intermediate) and after a
// convolution (a post-op), like the reference.
TEST_P(DnnlUnaryTest, MatchesTheReference) {
  const std::string op = GetParam();
  AttrMap attrs;
  if (op == "leaky_relu") attrs.Set("alpha", 0.1);
  if (op == "hard_sigmoid") attrs.Set("alpha", 1.0 / 6);  // torchvision's
  if (op == "clip") {
    attrs.Set("min", -0.5);
    attrs.Set("max", 2.0);
  }
  const Ran alone = ExpectLikeReference(op, [&](Builder& b) {
    ValueId x = b.Input(Shape({4, 16}),
                        Probes(op != "relu" && op != "clip" && op != "hard_sigmoid"));
    // On the input itself, and on x - 0: an intermediate buffer the op
    // overwrites in place.
    ValueId y = b.Node(op, {x}, attrs);
    ValueId z = b.Node("sub", {x, b.Constant(Shape({}), {0.0f})});
    b.graph.AddOutput(y);
    b.graph.AddOutput(b.Node(op, {z}, attrs));
  });
  EXPECT_TRUE(AllOnDnnl(alone)) << alone.partitions;
  const Ran fused = ExpectLikeReference(op + " after conv2d", [&](Builder& b) {
    ValueId x = b.Conv(b.Input(Shape({1, 4, 6, 6}), Random(144, b.rng, 8.0f)), 4, 8);
    b.graph.AddOutput(b.Node(op, {x}, attrs));
  });
  EXPECT_TRUE(absl::StrContains(fused.partitions, "conv2d+" + op)) << fused.partitions;
}

INSTANTIATE_TEST_SUITE_P(Ops, DnnlUnaryTest,
                         ::testing::Values("relu", "clip", "sigmoid", "tanh",
                                           "sqrt", "abs", "leaky_relu",
                                           "hard_swish", "gelu", "hard_sigmoid"));

// gelu after a binary head.
TEST(DnnlUnaryTest, GeluAfterAnAdd) {
  const Ran ran = ExpectLikeReference("gelu", [](Builder& b) {
    ValueId y = b.Node("add", {b.Input(Shape({4, 16}), Probes()),
                               b.Input(Shape({16}))});
    b.graph.AddOutput(b.Node("gelu", {y}));
  });
  EXPECT_TRUE(absl::StrContains(ran.partitions, "add+gelu")) << ran.partitions;
}

// --- fusion ------------------------------------------------------------------

// conv2d -> sigmoid -> mul(c, s) and mul(s, c): one primitive each.
TEST(DnnlFusionTest, SiluAfterConvolutionIsOnePrimitive) {
  const Ran ran = ExpectLikeReference("silu", [](Builder& b) {
    ValueId c = b.Conv(b.Input(Shape({2, 3, 6, 6}), Random(216, b.rng, 4.0f)), 3, 8);
    ValueId x = b.Node("mul", {c, b.Node("sigmoid", {c})});
    c = b.Conv(x, 8, 8);
    b.graph.AddOutput(b.Node("mul", {b.Node("sigmoid", {c}), c}));
  });
  EXPECT_TRUE(absl::StrContains(ran.partitions, "dnnl[conv2d+silu x2]"))
      << ran.partitions;
  // Two convolutions and reorders (the output's, maybe the input's):
  // nothing else.
  EXPECT_EQ(ran.steps.size() - StepsStartingWith(ran, "reorder:") -
                StepsStartingWith(ran, "output:"),
            2u)
      << absl::StrJoin(ran.steps, "\n");
}

// dnnl.silu: SiLU after a conv2d as a host pass over its output
// (dnnl_silu.h) or as oneDNN's post-op, both matching the reference, after
// a plain conv and after a conv with a residual sum; auto at these small
// sizes keeps the post-op.
TEST(DnnlFusionTest, SiluOptionHostPassOrPostOp) {
  testing::RestoreOptionAtExit restore("dnnl.silu=auto");
  for (const char* silu : {"host", "post_op", "auto"}) {
    SCOPED_TRACE(silu);
    ASSERT_TRUE(Registry().SetOption(absl::StrCat("dnnl.silu=", silu)).ok());
    const Ran ran = ExpectLikeReference(absl::StrCat("silu ", silu), [](Builder& b) {
      ValueId c = b.Conv(b.Input(Shape({2, 3, 6, 6}), Random(216, b.rng, 4.0f)), 3, 8);
      ValueId x = b.Node("mul", {c, b.Node("sigmoid", {c})});
      ValueId r = b.Node("add", {b.Conv(x, 8, 8), x});
      b.graph.AddOutput(b.Node("mul", {b.Node("sigmoid", {r}), r}));
    });
    EXPECT_TRUE(absl::StrContains(ran.partitions, "conv2d+add+silu")) << ran.partitions;
    EXPECT_EQ(StepsContaining(ran, "host silu"), std::string(silu) == "host" ? 2 : 0)
        << absl::StrJoin(ran.steps, "\n");
  }
  EXPECT_FALSE(Registry().SetOption("dnnl.silu=fast").ok());
}

// A residual add and then SiLU: sum and swish post-ops; and SiLU after a
// binary head and a linear.
TEST(DnnlFusionTest, SiluAfterSumAddAndLinear) {
  const Ran ran = ExpectLikeReference("silu heads", [](Builder& b) {
    ValueId x = b.Input(Shape({1, 8, 4, 4}));
    ValueId r = b.Node("relu", {x});
    ValueId c = b.Node("add", {b.Conv(r, 8, 8), r});
    ValueId s = b.Node("mul", {c, b.Node("sigmoid", {c})});
    ValueId t = b.Node("add", {s, b.Input(Shape({1, 8, 4, 4}))});
    t = b.Node("mul", {t, b.Node("sigmoid", {t})});
    ValueId f = b.Node("flatten", {t});
    ValueId l = b.Node("linear", {f, b.Constant(Shape({5, 128}), {}, 0.1f),
                                  b.Constant(Shape({5}))});
    b.graph.AddOutput(b.Node("mul", {b.Node("sigmoid", {l}), l}));
  });
  EXPECT_TRUE(absl::StrContains(ran.partitions, "conv2d+add+silu")) << ran.partitions;
  EXPECT_TRUE(absl::StrContains(ran.partitions, ", add+silu")) << ran.partitions;
  EXPECT_TRUE(absl::StrContains(ran.partitions, "linear+silu")) << ran.partitions;
}

// SiLU of a value no head made (a relu's, read again later): the sigmoid
// and the mul are one eltwise swish, the relu's output kept for the add.
TEST(DnnlFusionTest, SiluOnItsOwn) {
  const Ran ran = ExpectLikeReference("silu alone", [](Builder& b) {
    ValueId r = b.Node("relu", {b.Input(Shape({2, 3, 4, 5}), Random(120, b.rng, 5.0f))});
    ValueId m = b.Node("mul", {b.Node("sigmoid", {r}), r});
    b.graph.AddOutput(b.Node("add", {m, r}));
    b.graph.AddOutput(b.Node("mul", {b.Node("sigmoid", {m}), m}));
  });
  EXPECT_TRUE(absl::StrContains(ran.partitions, "dnnl[relu, silu x2, add]"))
      << ran.partitions;
}

// SiLU's c read by anyone else: no swish post-op on the convolution (c
// stays visible; the sigmoid and mul are SiLU on their own); the sigmoid
// read by anyone else: no SiLU at all. The values are still right.
TEST(DnnlFusionTest, ExtraReaderKeepsSiluApart) {
  const Ran c_read = ExpectLikeReference("c read again", [](Builder& b) {
    ValueId c = b.Conv(b.Input(Shape({1, 3, 5, 5})), 3, 8);
    ValueId m = b.Node("mul", {c, b.Node("sigmoid", {c})});
    b.graph.AddOutput(b.Node("add", {m, c}));
  });
  EXPECT_TRUE(absl::StrContains(c_read.partitions, "dnnl[conv2d, silu, add]"))
      << c_read.partitions;
  EXPECT_TRUE(AllOnDnnl(c_read)) << c_read.partitions;

  const Ran s_out = ExpectLikeReference("sigmoid a graph output", [](Builder& b) {
    ValueId c = b.Conv(b.Input(Shape({1, 3, 5, 5})), 3, 8);
    ValueId s = b.Node("sigmoid", {c});
    b.graph.AddOutput(b.Node("mul", {s, c}));
    b.graph.AddOutput(s);
  });
  EXPECT_FALSE(absl::StrContains(s_out.partitions, "silu")) << s_out.partitions;

  // sigmoid(c) * d of another value: a mul, not SiLU.
  const Ran other = ExpectLikeReference("sigmoid times another", [](Builder& b) {
    ValueId x = b.Input(Shape({1, 3, 5, 5}));
    ValueId s = b.Node("sigmoid", {b.Conv(x, 3, 8)});
    ValueId d = b.Conv(x, 3, 8);
    b.graph.AddOutput(b.Node("mul", {d, s}));
  });
  EXPECT_FALSE(absl::StrContains(other.partitions, "silu")) << other.partitions;
  EXPECT_TRUE(absl::StrContains(other.partitions, "conv2d+sigmoid")) << other.partitions;
}

// A unary node read by another node too stays its own primitive: the head
// writes a value somebody else sees.
TEST(DnnlFusionTest, EltwisePostOpOnlyForTheSoleReader) {
  const Ran ran = ExpectLikeReference("tanh of a shared value", [](Builder& b) {
    ValueId c = b.Conv(b.Input(Shape({1, 3, 5, 5})), 3, 8);
    ValueId t = b.Node("tanh", {c});
    b.graph.AddOutput(b.Node("add", {t, c}));
  });
  EXPECT_FALSE(absl::StrContains(ran.partitions, "conv2d+tanh")) << ran.partitions;
  EXPECT_TRUE(AllOnDnnl(ran)) << ran.partitions;
}

}  // namespace
}  // namespace onednn
}  // namespace switchyard
