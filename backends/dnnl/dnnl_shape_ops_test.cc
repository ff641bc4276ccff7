// The transformer and DenseNet ops on the oneDNN device (matmul, transpose,
// layer_norm, concat, slice, zero pad, reduce_mean, resize) against the reference
// backend: the shape families of vit_b_16, convnext_tiny and densenet121
// (scaled down), broadcasting, constant vs runtime weights, blocked layouts
// kept through a concat, slices at the edges, and the cases refused with
// their reasons.

#include <cmath>
#include <functional>
#include <random>
#include <limits>
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
#include "ops/norm_attrs.h"
#include "ops/reduce_attrs.h"
#include "ops/resize_attrs.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace onednn {
namespace {

using Ints = std::vector<int64_t>;

using testing::Dnnl;
using testing::Ref;
using testing::Registry;

// Builds a graph on one device: inputs and constants get the same
// pseudo-random values whichever device it is for.
class Builder {
 public:
  explicit Builder(BackendDevice& device) : device_(device), rng_(11) {}

  ValueId Input(const Shape& shape) {
    inputs_.push_back(*Tensor::FromVector(shape, Values(shape), device_));
    return graph_.AddInput("x" + std::to_string(inputs_.size()), shape,
                           device_.device());
  }
  ValueId Constant(const Shape& shape, float offset = 0) {
    std::vector<float> v = Values(shape);
    for (float& x : v) x += offset;
    return graph_.AddConstant("c" + std::to_string(++constants_),
                              *Tensor::FromVector(shape, v, device_));
  }
  ValueId Node(const std::string& op, std::vector<ValueId> in,
               AttrMap attrs = AttrMap()) {
    return graph_.AddNode(op, op + std::to_string(++nodes_), std::move(in),
                          std::move(attrs));
  }
  // A 3x3 same-size convolution to `channels` (a blocked-layout output).
  ValueId Conv(ValueId x, int64_t in_channels, int64_t channels) {
    Conv2dAttrs a;
    a.pad_h = a.pad_w = 1;
    return Node("conv2d", {x, Constant(Shape({channels, in_channels, 3, 3}))},
                a.ToAttrMap());
  }

  Graph& graph() { return graph_; }
  const std::vector<Tensor>& inputs() const { return inputs_; }

 private:
  std::vector<float> Values(const Shape& shape) {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> v(shape.num_elements());
    for (float& x : v) x = d(rng_);
    return v;
  }

  BackendDevice& device_;
  std::mt19937 rng_;
  Graph graph_;
  std::vector<Tensor> inputs_;
  int constants_ = 0, nodes_ = 0;
};

// Adds the graph's nodes and marks its outputs.
using Build = std::function<void(Builder&)>;

struct Result {
  std::vector<std::vector<float>> outputs;
  std::vector<Partition> partitions;
  std::vector<std::string> steps;  // of the first partition (dnnl only)
};

Result Run(BackendDevice& device, const Build& build) {
  Builder b(device);
  build(b);
  const std::vector<Tensor> inputs = b.inputs();
  CompileOptions options;
  options.backends = &Registry();
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
      Compile(std::move(b.graph()), options);
  Result r;
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return r;
  r.partitions = (*plan)->partitions();
  if (&device == &Dnnl() && !r.partitions.empty()) {
    absl::StatusOr<std::unique_ptr<Kernel>> kernel =
        device.CreatePartitionKernel(r.partitions[0], (*plan)->graph());
    EXPECT_TRUE(kernel.ok()) << kernel.status();
    if (kernel.ok()) r.steps = KernelSteps(**kernel);
  }
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run(inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  if (out.ok()) {
    for (const Tensor& t : *out) r.outputs.push_back(*t.ToVector());
  }
  return r;
}

// Runs `build` on both devices and expects the same outputs, every node in
// one dnnl partition; returns the dnnl run.
Result ExpectMatchesReference(const Build& build, const std::string& what) {
  Result got = Run(Dnnl(), build);
  Result want = Run(Ref(), build);
  EXPECT_EQ(got.outputs.size(), want.outputs.size()) << what;
  for (size_t o = 0; o < got.outputs.size() && o < want.outputs.size(); ++o) {
    const std::vector<float>& g = got.outputs[o];
    const std::vector<float>& w = want.outputs[o];
    EXPECT_EQ(g.size(), w.size()) << what;
    if (g.size() != w.size()) continue;
    float scale = 0;
    for (float v : w) scale = std::max(scale, std::abs(v));
    for (size_t i = 0; i < g.size(); ++i) {
      if (std::abs(g[i] - w[i]) > 1e-5 + 1e-4 * scale) {
        ADD_FAILURE() << what << ": output " << o << " element " << i << " is "
                      << g[i] << ", the reference " << w[i];
        break;  // the first difference is enough
      }
    }
  }
  EXPECT_EQ(got.partitions.size(), 1u) << what;
  return got;
}

// The reason Compile gives for a one-node graph it cannot place on dnnl:0.
absl::Status Refusal(const Build& build) {
  Builder b(Dnnl());
  build(b);
  CompileOptions options;
  options.backends = &Registry();
  return Compile(std::move(b.graph()), options).status();
}

void ExpectRefused(const Build& build, const std::string& reason) {
  absl::Status s = Refusal(build);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), reason)) << s;
}

// --- matmul ------------------------------------------------------------------

struct MatmulCase {
  Ints a, b;
  bool constant_b;
};

class DnnlMatmulTest : public ::testing::TestWithParam<MatmulCase> {};

TEST_P(DnnlMatmulTest, MatchesTheReference) {
  const MatmulCase c = GetParam();
  const std::string what = absl::StrCat(
      "[", absl::StrJoin(c.a, ","), "] x [", absl::StrJoin(c.b, ","), "]",
      c.constant_b ? " constant" : " runtime");
  Result r = ExpectMatchesReference(
      [&](Builder& b) {
        ValueId x = b.Input(Shape(c.a));
        ValueId w = c.constant_b ? b.Constant(Shape(c.b)) : b.Input(Shape(c.b));
        b.graph().AddOutput(b.Node("matmul", {x, w}));
      },
      what);
  EXPECT_TRUE(absl::StrContains(absl::StrJoin(r.steps, "\n"), "matmul"))
      << absl::StrJoin(r.steps, "\n");
}

INSTANTIATE_TEST_SUITE_P(
    ShapeFamilies, DnnlMatmulTest,
    ::testing::Values(
        // vit_b_16's qkv projection ([197, 1, 768] x [768, 2304]): the
        // batch folds into the rows of one product.
        MatmulCase{{19, 1, 64}, {64, 96}, true},
        // attention scores and context, both operands computed.
        MatmulCase{{12, 17, 8}, {12, 8, 17}, false},
        MatmulCase{{12, 17, 17}, {12, 17, 8}, false},
        // convnext_tiny's channels-last MLP ([1, 56, 56, 96] x [96, 384]).
        MatmulCase{{1, 5, 5, 16}, {16, 24}, true},
        // vit_b_16's MLP ([1, 197, 768] x [768, 3072]).
        MatmulCase{{1, 17, 32}, {32, 48}, true},
        MatmulCase{{1, 17, 32}, {32, 48}, false},  // folded, runtime
        // Plain 2-D, constant and runtime.
        MatmulCase{{7, 9}, {9, 5}, true}, MatmulCase{{7, 9}, {9, 5}, false},
        // Batch broadcasting: each operand's batch dims of 1, and a
        // lower-rank operand padded with leading 1s.
        MatmulCase{{2, 1, 3, 4}, {5, 4, 6}, false},
        MatmulCase{{2, 1, 3, 4}, {1, 5, 4, 6}, true},
        MatmulCase{{3, 4}, {2, 4, 5}, false},
        MatmulCase{{3, 4}, {2, 4, 5}, true},
        MatmulCase{{2, 3, 1, 3, 4}, {3, 2, 4, 2}, true},
        // Rank 6 (the device's largest).
        MatmulCase{{2, 1, 2, 1, 3, 4}, {1, 2, 1, 2, 4, 3}, false}));

TEST(DnnlMatmulTest, OneConstantReadByTwoMatmuls) {
  // Both fold [1, 8, 16] into 8 rows and ask for the same weight layout,
  // so they read one prepared copy of w.
  ExpectMatchesReference(
      [](Builder& b) {
        ValueId w = b.Constant(Shape({16, 16}));
        ValueId x = b.Node("matmul", {b.Input(Shape({1, 8, 16})), w});
        x = b.Node("matmul", {x, w});
        b.graph().AddOutput(x);
      },
      "x @ w @ w");
}

// matmul + add of a constant [N] (or [1, ..., N], either operand order) is
// one primitive with a bias, and a unary op after it its post-op; an add of
// anything else stays a step of its own.
TEST(DnnlMatmulTest, BiasAddAndGeluAreOnePrimitive) {
  struct Case {
    Ints a, w, bias;
    bool bias_first, constant_w, gelu;
    size_t steps;  // primitives, then the copy to the graph's output
  };
  const std::vector<Case> cases = {
      {{1, 17, 32}, {32, 48}, {48}, false, true, true, 2},      // vit's MLP
      {{1, 5, 5, 16}, {16, 24}, {1, 1, 24}, true, true, true, 2},  // convnext's
      {{7, 9}, {9, 5}, {5}, false, false, false, 2},            // runtime weights
      {{12, 17, 8}, {12, 8, 17}, {17}, true, false, true, 2},   // batched
      {{7, 9}, {9, 5}, {7, 5}, false, true, true, 3},           // not a bias
  };
  for (const Case& c : cases) {
    const std::string what = absl::StrCat("[", absl::StrJoin(c.a, ","), "] x [",
                                          absl::StrJoin(c.w, ","), "] + [",
                                          absl::StrJoin(c.bias, ","), "]");
    Result r = ExpectMatchesReference(
        [&](Builder& b) {
          ValueId x = b.Input(Shape(c.a));
          ValueId w = c.constant_w ? b.Constant(Shape(c.w)) : b.Input(Shape(c.w));
          ValueId y = b.Node("matmul", {x, w});
          ValueId bias = b.Constant(Shape(c.bias));
          y = c.bias_first ? b.Node("add", {bias, y}) : b.Node("add", {y, bias});
          if (c.gelu) y = b.Node("gelu", {y});
          b.graph().AddOutput(y);
        },
        what);
    EXPECT_EQ(r.steps.size(), c.steps) << what << ":\n" << absl::StrJoin(r.steps, "\n");
  }
}

// A runtime [N] operand is no bias: the add stays.
TEST(DnnlMatmulTest, RuntimeAddIsNotABias) {
  Result r = ExpectMatchesReference(
      [](Builder& b) {
        ValueId y = b.Node("matmul", {b.Input(Shape({4, 6})), b.Constant(Shape({6, 8}))});
        b.graph().AddOutput(b.Node("add", {y, b.Input(Shape({8}))}));
      },
      "matmul + runtime [8]");
  EXPECT_EQ(r.steps.size(), 3u) << absl::StrJoin(r.steps, "\n");
}

TEST(DnnlMatmulTest, RefusesOneDimensionalOperands) {
  ExpectRefused(
      [](Builder& b) {
        b.graph().AddOutput(
            b.Node("matmul", {b.Input(Shape({4})), b.Input(Shape({4, 3}))}));
      },
      "a 1-D operand");
  ExpectRefused(
      [](Builder& b) {
        b.graph().AddOutput(
            b.Node("matmul", {b.Input(Shape({2, 4})), b.Constant(Shape({4}))}));
      },
      "a 1-D operand");
}

// --- transpose ---------------------------------------------------------------

TEST(DnnlTransposeTest, RanksTwoToFour) {
  const std::vector<std::pair<Ints, Ints>> cases = {
      {{3, 5}, {1, 0}},
      {{1, 768 / 64, 7}, {0, 2, 1}},
      {{2, 3, 4}, {2, 0, 1}},
      {{2, 3, 4, 5}, {0, 2, 3, 1}},  // convnext: NCHW to NHWC
      {{2, 3, 4, 5}, {0, 3, 1, 2}},  // and back
      {{2, 3, 4, 5}, {3, 2, 1, 0}},
      {{2, 3, 4, 5}, {0, 1, 2, 3}},  // identity
  };
  for (const auto& [shape, perm] : cases) {
    TransposeAttrs a;
    a.perm = perm;
    ExpectMatchesReference(
        [&](Builder& b) {
          b.graph().AddOutput(
              b.Node("transpose", {b.Input(Shape(shape))}, a.ToAttrMap()));
        },
        absl::StrCat("transpose [", absl::StrJoin(shape, ","), "] by [",
                     absl::StrJoin(perm, ","), "]"));
  }
}

TEST(DnnlTransposeTest, ReadsABlockedSourceDirectly) {
  TransposeAttrs a;
  a.perm = {0, 2, 3, 1};
  Result r = ExpectMatchesReference(
      [&](Builder& b) {
        ValueId x = b.Conv(b.Input(Shape({1, 8, 5, 5})), 8, 16);
        b.graph().AddOutput(b.Node("transpose", {x}, a.ToAttrMap()));
      },
      "conv then NCHW to NHWC");
  for (const std::string& step : r.steps) {
    EXPECT_FALSE(absl::StartsWith(step, "to plain:"))
        << absl::StrJoin(r.steps, "\n");
  }
}

// convnext's block: NCHW -> NHWC, work in NHWC, back to NCHW, residual
// add. Both transposes of these unblocked values are views (no reorder
// step of their own); the elementwise ops read the strided bytes.
TEST(DnnlTransposeTest, UnblockedValuesAreTransposedAsViews) {
  TransposeAttrs to_nhwc, to_nchw;
  to_nhwc.perm = {0, 2, 3, 1};
  to_nchw.perm = {0, 3, 1, 2};
  Result r = ExpectMatchesReference(
      [&](Builder& b) {
        ValueId x = b.Node("relu", {b.Input(Shape({2, 3, 4, 5}))});
        ValueId t = b.Node("transpose", {x}, to_nhwc.ToAttrMap());
        t = b.Node("mul", {t, b.Constant(Shape({3}))});  // layer scale, per channel
        t = b.Node("transpose", {t}, to_nchw.ToAttrMap());
        b.graph().AddOutput(b.Node("add", {t, x}));
      },
      "relu, NHWC, scale, NCHW, + residual");
  for (const std::string& step : r.steps) {
    // The transposes make no step of their own ("<node>: transpose"); a
    // consumer with no fast kernel for a strided view may still reorder it
    // to plain ("to plain: ...").
    EXPECT_FALSE(absl::EndsWith(step, ": transpose")) << absl::StrJoin(r.steps, "\n");
    // ...and none runs oneDNN's slow reference kernels on a strided view.
    EXPECT_FALSE(absl::StrContains(step, ": ref:")) << absl::StrJoin(r.steps, "\n");
  }
  // A view read by a consumer that needs plain bytes (matmul), and a view
  // that is itself the partition's output.
  ExpectMatchesReference(
      [&](Builder& b) {
        ValueId x = b.Node("relu", {b.Input(Shape({2, 3, 4, 5}))});
        ValueId t = b.Node("transpose", {x}, to_nhwc.ToAttrMap());
        b.graph().AddOutput(b.Node("matmul", {t, b.Constant(Shape({3, 6}))}));
        b.graph().AddOutput(b.Node("transpose", {x}, to_nhwc.ToAttrMap()));
      },
      "views into a matmul and out");
}

TEST(DnnlTransposeTest, FeedsAMatmul) {
  // Attention: q @ transpose(k).
  TransposeAttrs a;
  a.perm = {0, 2, 1};
  ExpectMatchesReference(
      [&](Builder& b) {
        ValueId q = b.Input(Shape({4, 9, 8}));
        ValueId k =
            b.Node("transpose", {b.Input(Shape({4, 9, 8}))}, a.ToAttrMap());
        b.graph().AddOutput(b.Node("matmul", {q, k}));
      },
      "q @ k^T");
}

// --- layer_norm --------------------------------------------------------------

TEST(DnnlLayerNormTest, TrailingDimsWithAndWithoutBias) {
  struct Case {
    Ints shape;
    int64_t axis;
    bool bias;
    bool constant_params;
  };
  const std::vector<Case> cases = {
      {{1, 17, 32}, -1, true, true},   // vit_b_16
      {{1, 5, 5, 24}, 3, true, true},  // convnext_tiny, channels last
      {{2, 3, 4}, 1, false, true},     // two dims collapsed, no bias
      {{3, 10}, 0, true, false},       // everything, computed scale/bias
      {{6}, -1, false, false},
  };
  for (const Case& c : cases) {
    LayerNormAttrs a;
    a.axis = c.axis;
    a.epsilon = 1e-6;
    const size_t axis = c.axis < 0 ? c.shape.size() + c.axis : c.axis;
    const Shape normalized(Ints(c.shape.begin() + axis, c.shape.end()));
    ExpectMatchesReference(
        [&](Builder& b) {
          std::vector<ValueId> in = {b.Input(Shape(c.shape))};
          auto param = [&](float offset) {
            return c.constant_params ? b.Constant(normalized, offset)
                                     : b.Input(normalized);
          };
          in.push_back(param(1.0f));
          if (c.bias) in.push_back(param(0.0f));
          b.graph().AddOutput(b.Node("layer_norm", in, a.ToAttrMap()));
        },
        absl::StrCat("layer_norm [", absl::StrJoin(c.shape, ","), "] axis ",
                     c.axis, c.bias ? " bias" : " no bias"));
  }
}

// --- concat ------------------------------------------------------------------

TEST(DnnlConcatTest, KeepsTheSharedBlockedLayoutOfConvolutions) {
  // DenseNet: the block input and each layer's 16 (here) new channels,
  // joined and read by the next convolution, never leaving oneDNN's layout.
  ConcatAttrs a;
  a.axis = 1;
  Result r = ExpectMatchesReference(
      [&](Builder& b) {
        ValueId x = b.Conv(b.Input(Shape({2, 8, 6, 6})), 8, 32);
        ValueId y = b.Conv(x, 32, 16);
        ValueId joined = b.Node("concat", {x, y}, a.ToAttrMap());
        ValueId z = b.Conv(joined, 48, 16);
        joined = b.Node("concat", {joined, z}, a.ToAttrMap());
        b.graph().AddOutput(b.Conv(joined, 64, 16));
      },
      "dense block");
  for (const std::string& step : r.steps) {
    if (absl::StartsWith(step, "reorder:") ||
        absl::StartsWith(step, "to plain:")) {
      EXPECT_EQ(step, "reorder: x1") << absl::StrJoin(r.steps, "\n");
    }
  }
}

// Channel concats as writes into slices of the output (dnnl_concat_slices.h).
// At batch 1, sources in the output's layout that nothing reads later are
// stored inside it (no step at all); the others, a source read again
// after the concat, a source given twice, are reordered into their slice;
// sources of mixed layouts are never taken through plain. At batch 2,
// sources sharing a layout keep oneDNN's concat primitive.
int StepsStartingWith(const Result& r, const std::string& prefix) {
  int n = 0;
  for (const std::string& step : r.steps) n += absl::StartsWith(step, prefix);
  return n;
}

TEST(DnnlConcatTest, SourcesAreWrittenIntoSlicesOfTheOutput) {
  ConcatAttrs a;
  a.axis = 1;
  for (int64_t batch : {1, 2}) {
    Result r = ExpectMatchesReference(
        [&](Builder& b) {
          // relu keeps its input's plain layout: every source is nchw.
          ValueId x = b.Node("relu", {b.Input(Shape({batch, 3, 5, 4}))});
          ValueId y = b.Node("relu", {b.Input(Shape({batch, 5, 5, 4}))});
          ValueId joined = b.Node("concat", {x, y}, a.ToAttrMap());
          ValueId z = b.Node("relu", {b.Input(Shape({batch, 2, 5, 4}))});
          ValueId outer = b.Node("concat", {joined, z}, a.ToAttrMap());
          b.graph().AddOutput(b.Node("relu", {outer}));
        },
        absl::StrCat("plain branches, batch ", batch));
    EXPECT_EQ(StepsStartingWith(r, "concat"), batch == 1 ? 0 : 2)
        << absl::StrJoin(r.steps, "\n");
    EXPECT_EQ(StepsStartingWith(r, "into "), 0) << absl::StrJoin(r.steps, "\n");
  }
  Result reread = ExpectMatchesReference(
      [&](Builder& b) {
        ValueId x = b.Node("relu", {b.Input(Shape({1, 3, 5, 4}))});
        ValueId y = b.Node("relu", {b.Input(Shape({1, 5, 5, 4}))});
        ValueId joined = b.Node("concat", {x, y}, a.ToAttrMap());
        b.graph().AddOutput(b.Node("relu", {joined}));
        b.graph().AddOutput(b.Node("sigmoid", {y}));
      },
      "a source read after the concat");
  EXPECT_EQ(StepsStartingWith(reread, "concat"), 0) << absl::StrJoin(reread.steps, "\n");
  EXPECT_EQ(StepsStartingWith(reread, "into "), 1) << absl::StrJoin(reread.steps, "\n");
  Result twice = ExpectMatchesReference(
      [&](Builder& b) {
        ValueId x = b.Node("relu", {b.Input(Shape({1, 3, 5, 4}))});
        b.graph().AddOutput(b.Node("relu", {b.Node("concat", {x, x}, a.ToAttrMap())}));
      },
      "one source twice");
  EXPECT_EQ(StepsStartingWith(twice, "into "), 1) << absl::StrJoin(twice.steps, "\n");
  for (int64_t batch : {1, 2}) {
    Result mixed = ExpectMatchesReference(
        [&](Builder& b) {
          // A convolution's layout (oneDNN's choice) beside a plain one.
          ValueId in = b.Input(Shape({batch, 16, 6, 6}));
          ValueId c = b.Conv(in, 16, 16);
          ValueId p = b.Node("relu", {in});
          b.graph().AddOutput(b.Conv(b.Node("concat", {c, p}, a.ToAttrMap()), 32, 16));
        },
        absl::StrCat("mixed layouts, batch ", batch));
    EXPECT_EQ(StepsStartingWith(mixed, "to plain:"), 0) << absl::StrJoin(mixed.steps, "\n");
  }
}

TEST(DnnlConcatTest, ChannelsThatAreNotWholeBlocksGoPlain) {
  ConcatAttrs a;
  a.axis = 1;
  ExpectMatchesReference(
      [&](Builder& b) {
        ValueId x = b.Conv(b.Input(Shape({1, 3, 5, 5})), 3, 5);
        ValueId y = b.Conv(x, 5, 3);
        b.graph().AddOutput(b.Node("concat", {x, y}, a.ToAttrMap()));
      },
      "5 + 3 channels");
}

TEST(DnnlConcatTest, AnyAxisOfPlainOperands) {
  for (int64_t axis : {0, 1, 2, -1}) {
    ConcatAttrs a;
    a.axis = axis;
    ExpectMatchesReference(
        [&](Builder& b) {
          // vit_b_16: the class token joined to the patches ([1, 1, 768]
          // and [1, 196, 768] along 1); here every axis.
          Ints s1 = {2, 3, 4}, s2 = {2, 3, 4};
          const size_t wrapped = axis < 0 ? 3 + axis : axis;
          s2[wrapped] = 5;
          b.graph().AddOutput(b.Node(
              "concat",
              {b.Input(Shape(s1)), b.Constant(Shape(s2)), b.Input(Shape(s1))},
              a.ToAttrMap()));
        },
        absl::StrCat("concat axis ", axis));
  }
}

// DenseNet's layer: concat -> batch_norm (-> relu), the concat read by the
// norm alone, is one host pass (dnnl_concat_norm.h) over sources in one
// layout: convolution outputs (oneDNN's layout), plain partition inputs
// (nchw), two images, with and without the relu. A concat with another
// reader, or sources in different layouts, keeps oneDNN's primitives.
ValueId BatchNorm(Builder& b, ValueId x, int64_t channels) {
  BatchNormAttrs a;
  a.epsilon = 1e-3;
  return b.Node("batch_norm",
                {x, b.Constant(Shape({channels})), b.Constant(Shape({channels})),
                 b.Constant(Shape({channels})), b.Constant(Shape({channels}), 2.0f)},
                a.ToAttrMap());
}

int HostConcatNorms(const Result& r) {
  int n = 0;
  for (const std::string& step : r.steps) n += absl::StrContains(step, "host concat+batch_norm");
  return n;
}

TEST(DnnlConcatTest, ConcatNormReluIsOneHostPass) {
  ConcatAttrs a;
  a.axis = 1;
  for (bool relu : {true, false}) {
    Result r = ExpectMatchesReference(
        [&](Builder& b) {
          ValueId x = b.Conv(b.Input(Shape({2, 8, 6, 6})), 8, 32);
          ValueId y = b.Conv(x, 32, 16);
          ValueId z = b.Conv(y, 16, 16);
          ValueId n = BatchNorm(b, b.Node("concat", {x, y, z}, a.ToAttrMap()), 64);
          if (relu) n = b.Node("relu", {n});
          b.graph().AddOutput(b.Conv(n, 64, 16));
        },
        relu ? "dense layer" : "dense layer without relu");
    EXPECT_EQ(HostConcatNorms(r), 1) << absl::StrJoin(r.steps, "\n");
  }
  Result plain = ExpectMatchesReference(
      [&](Builder& b) {
        ValueId n = BatchNorm(
            b, b.Node("concat", {b.Input(Shape({2, 3, 4, 5})), b.Input(Shape({2, 5, 4, 5}))},
                      a.ToAttrMap()),
            8);
        b.graph().AddOutput(b.Node("relu", {n}));
      },
      "plain sources");
  EXPECT_EQ(HostConcatNorms(plain), 1) << absl::StrJoin(plain.steps, "\n");
}

TEST(DnnlConcatTest, ConcatReadElsewhereOrInMixedLayoutsKeepsPrimitives) {
  ConcatAttrs a;
  a.axis = 1;
  Result shared = ExpectMatchesReference(
      [&](Builder& b) {
        ValueId x = b.Conv(b.Input(Shape({1, 8, 6, 6})), 8, 16);
        ValueId joined = b.Node("concat", {x, b.Conv(x, 16, 16)}, a.ToAttrMap());
        b.graph().AddOutput(b.Node("relu", {BatchNorm(b, joined, 32)}));
        b.graph().AddOutput(joined);
      },
      "concat also an output");
  EXPECT_EQ(HostConcatNorms(shared), 0) << absl::StrJoin(shared.steps, "\n");
  Result mixed = ExpectMatchesReference(
      [&](Builder& b) {
        ValueId x = b.Conv(b.Input(Shape({1, 8, 6, 6})), 8, 16);
        ValueId joined = b.Node("concat", {x, b.Input(Shape({1, 16, 6, 6}))}, a.ToAttrMap());
        b.graph().AddOutput(b.Node("relu", {BatchNorm(b, joined, 32)}));
      },
      "a convolution output beside a plain input");
  EXPECT_EQ(HostConcatNorms(mixed), 0) << absl::StrJoin(mixed.steps, "\n");
}

// --- slice -------------------------------------------------------------------

TEST(DnnlSliceTest, WindowsAtTheEdges) {
  struct Case {
    Ints starts, ends, axes;
  };
  const std::vector<Case> cases = {
      {{0}, {1}, {1}},              // vit_b_16's class token
      {{-1}, {kSliceEnd}, {1}},     // the last row
      {{0}, {kSliceEnd}, {0}},      // all of it
      {{1, 2}, {-1, 100}, {2, 0}},  // two axes, clamped end
      {{-100}, {2}, {-1}},          // clamped start
  };
  for (const Case& c : cases) {
    SliceAttrs a;
    a.starts = c.starts;
    a.ends = c.ends;
    a.axes = c.axes;
    ExpectMatchesReference(
        [&](Builder& b) {
          ValueId x = b.Node("relu", {b.Input(Shape({3, 7, 5}))});
          b.graph().AddOutput(b.Node("slice", {x}, a.ToAttrMap()));
        },
        absl::StrCat("slice starts ", absl::StrJoin(c.starts, ","), " axes ",
                     absl::StrJoin(c.axes, ",")));
  }
  // A blocked source is read plain.
  SliceAttrs channels;
  channels.starts = {3};
  channels.ends = {11};
  channels.axes = {1};
  ExpectMatchesReference(
      [&](Builder& b) {
        ValueId x = b.Conv(b.Input(Shape({1, 4, 5, 5})), 4, 16);
        b.graph().AddOutput(b.Node("slice", {x}, channels.ToAttrMap()));
      },
      "channels 3..10 of a convolution");
}

TEST(DnnlSliceTest, StridedWindowsOfAnySource) {
  // Every other frame (r3d_18's strided 3-D convolutions), steps on two
  // axes, a step past the end, from a plain input and from a convolution.
  struct Case {
    Shape shape;
    std::vector<int64_t> starts, ends, axes, steps;
  };
  const std::vector<Case> cases = {
      {Shape({1, 5, 3, 4, 4}), {0}, {5}, {1}, {2}},
      {Shape({1, 5, 3, 4, 4}), {1}, {4}, {1}, {2}},
      {Shape({6, 7, 5}), {1, 0}, {kSliceEnd, 5}, {0, 2}, {3, 2}},
      {Shape({8}), {2}, {100}, {0}, {5}},
      // A step as large as int64 allows: one row, whose stride is never used.
      {Shape({3, 4}), {1}, {kSliceEnd}, {0}, {std::numeric_limits<int64_t>::max()}},
  };
  for (const Case& c : cases) {
    SliceAttrs a;
    a.starts = c.starts;
    a.ends = c.ends;
    a.axes = c.axes;
    a.steps = c.steps;
    ExpectMatchesReference(
        [&](Builder& b) {
          ValueId x = b.Node("relu", {b.Input(c.shape)});
          b.graph().AddOutput(b.Node("slice", {x}, a.ToAttrMap()));
        },
        absl::StrCat("slice ", c.shape.ToString(), " steps ", absl::StrJoin(c.steps, ",")));
  }
  SliceAttrs every_other_channel;
  every_other_channel.starts = {1};
  every_other_channel.ends = {kSliceEnd};
  every_other_channel.axes = {1};
  every_other_channel.steps = {2};
  ExpectMatchesReference(
      [&](Builder& b) {
        ValueId x = b.Conv(b.Input(Shape({1, 4, 5, 5})), 4, 16);
        b.graph().AddOutput(b.Node("slice", {x}, every_other_channel.ToAttrMap()));
      },
      "every other channel of a convolution");
}

TEST(DnnlSliceTest, RefusesNegativeSteps) {
  SliceAttrs a;
  a.starts = {-1};
  a.ends = {-kSliceEnd};
  a.steps = {-1};
  ExpectRefused(
      [&](Builder& b) {
        b.graph().AddOutput(
            b.Node("slice", {b.Input(Shape({8}))}, a.ToAttrMap()));
      },
      "slices forward only");
}

// --- pad ---------------------------------------------------------------------

TEST(DnnlPadTest, ZeroPadsAreAView) {
  PadAttrs a;
  a.pads = {0, 0, 0, 0, 0, 0, 0, 0};
  Result r = ExpectMatchesReference(
      [&](Builder& b) {
        ValueId x = b.Conv(b.Input(Shape({1, 4, 5, 5})), 4, 8);
        x = b.Node("pad", {x}, a.ToAttrMap());
        b.graph().AddOutput(b.Conv(x, 8, 8));
      },
      "conv, zero pad, conv");
  for (const std::string& step : r.steps) {
    EXPECT_FALSE(absl::StrContains(step, "pad"))
        << absl::StrJoin(r.steps, "\n");
  }
}

TEST(DnnlPadTest, ConstantPaddingOfAnyRankIsAHostStep) {
  // An Inception network's asymmetric 2-D pad, a 3-D convolution's pad
  // along time (rank 5), a 1-D one, with a fill value.
  struct Case {
    Shape shape;
    std::vector<int64_t> pads;
    double value;
  };
  const std::vector<Case> cases = {
      {Shape({1, 4, 5, 5}), {0, 0, 0, 0, 0, 0, 1, 1}, 0.0},
      {Shape({1, 3, 4, 6, 6}), {0, 0, 1, 0, 0, 0, 0, 1, 0, 0}, 0.0},
      {Shape({7}), {2, 3}, -1.5},
      {Shape({2, 3, 4}), {1, 0, 2, 0, 3, 1}, 0.25},
  };
  for (const Case& c : cases) {
    PadAttrs a;
    a.pads = c.pads;
    a.value = c.value;
    Result r = ExpectMatchesReference(
        [&](Builder& b) {
          b.graph().AddOutput(b.Node("pad", {b.Input(c.shape)}, a.ToAttrMap()));
        },
        absl::StrCat("pad ", c.shape.ToString(), " by [", absl::StrJoin(c.pads, ", "), "]"));
    EXPECT_TRUE(absl::StrContains(absl::StrJoin(r.steps, "\n"), "host constant pad"))
        << absl::StrJoin(r.steps, "\n");
  }
}

TEST(DnnlPadTest, BetweenOtherStepsOfAPartition) {
  // Inception: a conv's (blocked) output padded asymmetrically, then a conv.
  PadAttrs asymmetric;
  asymmetric.pads = {0, 0, 0, 0, 0, 0, 1, 1};
  ExpectMatchesReference(
      [&](Builder& b) {
        ValueId x = b.Conv(b.Input(Shape({1, 8, 5, 5})), 8, 16);
        x = b.Node("pad", {x}, asymmetric.ToAttrMap());
        b.graph().AddOutput(b.Conv(x, 16, 8));
      },
      "conv, asymmetric pad, conv");
  // r3d_18's 3-D convolution as the importer writes it: relu, pad along
  // time, time to the front, three shifted slices, concat.
  PadAttrs time;
  time.pads = {0, 0, 1, 0, 0, 0, 0, 1, 0, 0};
  TransposeAttrs front;
  front.perm = {0, 2, 1, 3, 4};
  ExpectMatchesReference(
      [&](Builder& b) {
        ValueId x = b.Node("relu", {b.Input(Shape({1, 3, 4, 6, 6}))});
        x = b.Node("pad", {x}, time.ToAttrMap());
        x = b.Node("transpose", {x}, front.ToAttrMap());
        std::vector<ValueId> shifted;
        for (int64_t k = 0; k < 3; ++k) {
          SliceAttrs s;
          s.starts = {k};
          s.ends = {k + 4};
          s.axes = {1};
          shifted.push_back(b.Node("slice", {x}, s.ToAttrMap()));
        }
        ConcatAttrs c;
        c.axis = 2;
        b.graph().AddOutput(b.Node("concat", shifted, c.ToAttrMap()));
      },
      "relu, pad along time, transpose, slices, concat");
}

TEST(DnnlTransposeTest, AddOfTwoTransposedViewsWithALengthOneAxis) {
  // r3d_18's last block: [1, C, 1, 2, 2] residual sums of values brought
  // back from time-first by a transpose.
  TransposeAttrs back;
  back.perm = {0, 2, 1, 3, 4};
  for (int64_t t : {1, 2}) {
    ExpectMatchesReference(
        [&](Builder& b) {
          ValueId x = b.Node("relu", {b.Input(Shape({1, t, 16, 2, 2}))});
          ValueId y = b.Node("relu", {b.Input(Shape({1, t, 16, 2, 2}))});
          x = b.Node("transpose", {x}, back.ToAttrMap());
          y = b.Node("transpose", {y}, back.ToAttrMap());
          b.graph().AddOutput(b.Node("relu", {b.Node("add", {x, y})}));
        },
        absl::StrCat("two transposed [1, ", t, ", 16, 2, 2] views added"));
  }
}

TEST(DnnlTransposeTest, ConvOutputsReshapedTo5dTransposedAndAdded) {
  // r3d_18's residual: each 3-D convolution is a 2-D one whose (blocked)
  // output is reshaped to [1, 1, C, H, W] and transposed to [1, C, 1, H, W].
  ReshapeAttrs to5d;
  to5d.shape = {1, 1, 16, 4, 4};
  TransposeAttrs back;
  back.perm = {0, 2, 1, 3, 4};
  ExpectMatchesReference(
      [&](Builder& b) {
        std::vector<ValueId> branches;
        for (int k = 0; k < 2; ++k) {
          ValueId x = b.Conv(b.Input(Shape({1, 8, 4, 4})), 8, 16);
          x = b.Node("reshape", {x}, to5d.ToAttrMap());
          branches.push_back(b.Node("transpose", {x}, back.ToAttrMap()));
        }
        b.graph().AddOutput(b.Node("relu", {b.Node("add", branches)}));
      },
      "two convs reshaped to 5-D, transposed, added");
  // One branch from a partition input (plain), as when its conv ran on
  // another device.
  ExpectMatchesReference(
      [&](Builder& b) {
        ValueId plain = b.Node("reshape", {b.Input(Shape({1, 16, 4, 4}))}, to5d.ToAttrMap());
        plain = b.Node("transpose", {plain}, back.ToAttrMap());
        ValueId conv = b.Conv(b.Input(Shape({1, 8, 4, 4})), 8, 16);
        conv = b.Node("reshape", {conv}, to5d.ToAttrMap());
        conv = b.Node("transpose", {conv}, back.ToAttrMap());
        b.graph().AddOutput(b.Node("relu", {b.Node("add", {plain, conv})}));
        b.graph().AddOutput(b.Node("relu", {b.Node("add", {conv, plain})}));
      },
      "a plain input and a conv, reshaped to 5-D, transposed, added");
  // The very shapes of r3d_18's layer4.0: a strided 1x1 downsample.
  ReshapeAttrs to5d64;
  to5d64.shape = {1, 1, 64, 2, 2};
  Conv2dAttrs down;
  down.stride_h = down.stride_w = 2;
  ExpectMatchesReference(
      [&](Builder& b) {
        ValueId plain = b.Node("reshape", {b.Input(Shape({1, 64, 2, 2}))}, to5d64.ToAttrMap());
        plain = b.Node("transpose", {plain}, back.ToAttrMap());
        ValueId conv = b.Node("conv2d", {b.Input(Shape({1, 32, 4, 4})),
                                         b.Constant(Shape({64, 32, 1, 1})),
                                         b.Constant(Shape({64}))},
                              down.ToAttrMap());
        conv = b.Node("reshape", {conv}, to5d64.ToAttrMap());
        conv = b.Node("transpose", {conv}, back.ToAttrMap());
        b.graph().AddOutput(b.Node("relu", {b.Node("add", {plain, conv})}));
      },
      "r3d_18's layer4.0 residual");
}

TEST(DnnlPadTest, RefusesReflectEdgeAndCrops) {
  PadAttrs reflect;
  reflect.pads = {0, 1, 0, 1};
  reflect.mode = PadMode::kReflect;
  ExpectRefused(
      [&](Builder& b) {
        b.graph().AddOutput(b.Node("pad", {b.Input(Shape({2, 3}))}, reflect.ToAttrMap()));
      },
      "pads only with a constant");
  PadAttrs crop;
  crop.pads = {0, -1, 0, 0};
  ExpectRefused(
      [&](Builder& b) {
        b.graph().AddOutput(b.Node("pad", {b.Input(Shape({2, 3}))}, crop.ToAttrMap()));
      },
      "crop");
}

// --- reduce_mean -------------------------------------------------------------

TEST(DnnlReduceMeanTest, TrailingAndOtherAxesWithAndWithoutKeepdims) {
  struct Case {
    Ints axes;
    bool keepdims;
  };
  const std::vector<Case> cases = {
      {{-1}, true},    // the decomposed layer norm's mean
      {{2, 3}, true},  // a global average pool
      {{1}, false},   {{0, 2}, true}, {{}, true},  // every axis
      {{0}, false},  // an axis of length 1: a view
  };
  for (const Case& c : cases) {
    ReduceAttrs a;
    a.axes = c.axes;
    a.keepdims = c.keepdims;
    ExpectMatchesReference(
        [&](Builder& b) {
          ValueId x = b.Node("relu", {b.Input(Shape({1, 6, 5, 7}))});
          b.graph().AddOutput(b.Node("reduce_mean", {x}, a.ToAttrMap()));
        },
        absl::StrCat("reduce_mean axes [", absl::StrJoin(c.axes, ","), "]",
                     c.keepdims ? " keepdims" : ""));
  }
}

// --- resize ------------------------------------------------------------------

ResizeAttrs Resize(Ints sizes, ResizeMode mode, ResizeCoordinateMode coordinate,
                   ResizeNearestMode nearest = ResizeNearestMode::kFloor) {
  ResizeAttrs a;
  a.sizes = std::move(sizes);
  a.mode = mode;
  a.coordinate_transformation_mode = coordinate;
  a.nearest_mode = nearest;
  return a;
}

// A detector's FPN: a blocked convolution output upsampled 2x (nearest,
// asymmetric/floor as PyTorch exports it) and added to a lateral one, all in
// one partition; and the modes whose taps are oneDNN's half-pixel ones at
// other sizes (linear half_pixel at any ratio, nearest half_pixel
// shrinking by an odd whole number, 3-D and 5-D values).
TEST(DnnlResizeTest, RunsWhereOneDnnsRulePicksTheSameInputs) {
  using M = ResizeMode;
  using C = ResizeCoordinateMode;
  ExpectMatchesReference(
      [](Builder& b) {
        ValueId top = b.Conv(b.Input(Shape({1, 4, 3, 5})), 4, 16);
        ValueId lateral = b.Conv(b.Input(Shape({1, 4, 6, 10})), 4, 16);
        ValueId up = b.Node("resize", {top},
                            Resize({1, 16, 6, 10}, M::kNearest, C::kAsymmetric)
                                .ToAttrMap());
        b.graph().AddOutput(b.Conv(b.Node("add", {lateral, up}), 16, 16));
      },
      "FPN top-down step");
  const std::vector<std::pair<Shape, ResizeAttrs>> cases = {
      {Shape({2, 3, 7, 5}), Resize({2, 3, 13, 4}, M::kLinear, C::kHalfPixel)},
      {Shape({1, 2, 9, 8}), Resize({1, 2, 3, 4}, M::kLinear, C::kPytorchHalfPixel)},
      {Shape({1, 3, 9, 6}), Resize({1, 3, 3, 2}, M::kNearest, C::kHalfPixel,
                                   ResizeNearestMode::kRoundPreferFloor)},
      {Shape({1, 2, 5, 4}), Resize({1, 2, 15, 8}, M::kNearest, C::kHalfPixel,
                                   ResizeNearestMode::kRoundPreferFloor)},
      {Shape({2, 3, 6}), Resize({2, 3, 12}, M::kNearest, C::kAsymmetric)},
      {Shape({1, 2, 2, 3, 4}), Resize({1, 2, 4, 6, 4}, M::kLinear, C::kHalfPixel)},
  };
  for (const auto& [shape, a] : cases) {
    ExpectMatchesReference(
        [&](Builder& b) {
          ValueId x = b.Node("relu", {b.Input(shape)});
          b.graph().AddOutput(b.Node("resize", {x}, a.ToAttrMap()));
        },
        absl::StrCat("resize ", shape.ToString(), " to [",
                     absl::StrJoin(a.sizes, ","), "]"));
  }
}

TEST(DnnlResizeTest, RefusesOtherRulesWithTheReason) {
  using M = ResizeMode;
  using C = ResizeCoordinateMode;
  const std::vector<std::pair<ResizeAttrs, std::string>> cases = {
      // 13 -> 25 nearest asymmetric: floor(o * 13 / 25) is not oneDNN's pick.
      {Resize({1, 2, 25, 25}, M::kNearest, C::kAsymmetric), "half-pixel nearest"},
      {Resize({1, 2, 26, 26}, M::kLinear, C::kAlignCorners), "half-pixel linear"},
      {Resize({1, 2, 26, 26}, M::kCubic, C::kHalfPixel), "not cubic"},
      {Resize({1, 4, 13, 13}, M::kNearest, C::kAsymmetric), "axis 1"},
      // Halving: oneDNN's coordinate 2o + 0.5 is a tie its float rounding
      // may break either way.
      {Resize({1, 2, 6, 6}, M::kNearest, C::kHalfPixel), "half-pixel nearest"},
  };
  for (const auto& [a, reason] : cases) {
    ExpectRefused(
        [&](Builder& b) {
          b.graph().AddOutput(
              b.Node("resize", {b.Input(Shape({1, 2, 13, 13}))}, a.ToAttrMap()));
        },
        reason);
  }
}

}  // namespace
}  // namespace onednn
}  // namespace switchyard
