// One test per problem the fuzz targets found (tests/fuzz/*_fuzzer.cc), at
// the level of the API that had it, so each stays fixed and readable. The
// raw inputs are also in tests/fuzz/corpus/<target>/crash-* and replayed by
// the *_fuzzer_replay_test targets. docs/robustness.md lists the findings.

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "backends/cpu/cpu_backend.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/backend.h"
#include "core/executable_plan.h"
#include "core/graph.h"
#include "core/op_def.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/npy.h"

namespace switchyard {
namespace {

using ::testing::HasSubstr;

BackendRegistry& CpuRegistry() {
  static BackendRegistry* registry = [] {
    auto* r = new BackendRegistry();
    (void)r->Register("cpu", [] { return cpu::CreateCpuBackend(); });
    return r;
  }();
  return *registry;
}

// graph_fuzzer, crash-b381812b: an empty tensor (a parameter or input with a
// 0 dimension) reached CpuDevice::CopyFromHost as memcpy(dst, nullptr, 0),
// undefined behaviour (UBSan: "null pointer passed as argument 2"), because
// an empty std::vector's data() is null. Fixed in Tensor::FromVector (no copy
// of 0 bytes) and in the CPU backend's copies.
TEST(FuzzRegression, EmptyTensorsCopyNothing) {
  const std::vector<float> none;
  absl::StatusOr<Tensor> empty =
      Tensor::FromVector(Shape({0, 3}), none, Device::Cpu(), CpuRegistry());
  ASSERT_TRUE(empty.ok()) << empty.status();
  absl::StatusOr<std::vector<float>> back = empty->ToVector();
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->empty());

  // The same through a whole graph: relu of an empty batch runs and gives an
  // empty result.
  Graph graph;
  const ValueId x = graph.AddInput("input", Shape({0, 3}), Device::Cpu());
  graph.AddOutput(graph.AddNode("relu", "0", {x}, AttrMap()));
  CompileOptions options;
  options.backends = &CpuRegistry();
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
      Compile(std::move(graph), options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run({*empty});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({0, 3}));
}

// graph_fuzzer, crash-5a15058f: a graph input whose shape was never checked
// ([.., 6, 2^62]: more elements than int64 holds) reached flatten, which
// multiplied its dimensions: signed overflow (UBSan). Shape inference now
// checks every graph input and parameter shape before any op sees it, and
// every shape an op infers.
TEST(FuzzRegression, InvalidInputShapeIsRejectedBeforeAnyOp) {
  Graph graph;
  const ValueId x = graph.AddInput(
      "input", Shape({1, 6, int64_t{1} << 62}), Device::Cpu());
  graph.AddOutput(graph.AddNode("flatten", "0", {x}, AttrMap()));
  CompileOptions options;
  options.backends = &CpuRegistry();
  absl::Status status = InferAndPlace(graph, options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("graph input 'input' has an invalid shape"));
  EXPECT_THAT(status.message(), HasSubstr("has too many elements"));

  Graph negative;
  const ValueId y = negative.AddInput("input", Shape({2, -3}), Device::Cpu());
  negative.AddOutput(negative.AddNode("relu", "0", {y}, AttrMap()));
  status = InferAndPlace(negative, options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("is negative"));
}

// The same overflow with a zero in front: [0, 2^62, 2^62] has 0 elements,
// so Shape::Create used to accept it, and flatten(start_dim=1) would then
// merge 2^62 * 2^62. The non-zero dimensions must now fit as well, in every
// reader too.
TEST(FuzzRegression, EmptyShapeWithHugeDimensionsIsRejected) {
  const int64_t big = int64_t{1} << 62;
  EXPECT_EQ(Shape::Create({0, big, big}).status().code(),
            absl::StatusCode::kInvalidArgument);
  const std::string header =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (0, "
      "4611686018427387904, 4611686018427387904), }\n";
  std::string npy("\x93NUMPY\x01\x00", 8);
  npy.push_back(static_cast<char>(header.size() & 0xff));
  npy.push_back(static_cast<char>(header.size() >> 8));
  npy += header;
  absl::StatusOr<HostArray> array = ParseNpy(npy, "huge_empty.npy");
  EXPECT_EQ(array.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(array.status().message(), HasSubstr("huge_empty.npy"));
}

// Found while fuzzing shape inference (not a crash, a missing check): an op
// may infer a shape that is valid dimension by dimension but too large in
// total (adaptive_avg_pool2d to 2^30 x 2^30 over a batch of 2^20), which the
// buffer plan would multiply out with overflow. InvalidArgument instead.
TEST(FuzzRegression, InferredShapeTooLargeIsInvalidArgument) {
  Graph graph;
  const ValueId x =
      graph.AddInput("input", Shape({int64_t{1} << 20, 1, 1, 1}),
                     Device::Cpu());
  AttrMap attrs;
  attrs.Set("output_size",
            std::vector<int64_t>{int64_t{1} << 30, int64_t{1} << 30});
  graph.AddOutput(graph.AddNode("adaptive_avg_pool2d", "pool", {x}, attrs));
  CompileOptions options;
  options.backends = &CpuRegistry();
  absl::Status status = InferAndPlace(graph, options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("node 'pool/adaptive_avg_pool2d'"));
  EXPECT_THAT(status.message(), HasSubstr("invalid output shape"));
}

// graph_fuzzer, timeout-44249598: softmax over the empty dimension of a
// [2^40, 0] input ran its row loop 2^40 times (a hang) though there is no
// element to compute. The executor now skips nodes whose outputs are all
// empty, and the CPU softmax kernel returns at once on an empty input.
TEST(FuzzRegression, SoftmaxOverAnEmptyDimensionReturnsAtOnce) {
  const Shape shape({int64_t{1} << 40, 0});
  Graph graph;
  const ValueId x = graph.AddInput("input", shape, Device::Cpu());
  AttrMap attrs;
  attrs.Set("dim", int64_t{1});
  graph.AddOutput(graph.AddNode("softmax", "0", {x}, attrs));
  CompileOptions options;
  options.backends = &CpuRegistry();
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
      Compile(std::move(graph), options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<Tensor> input =
      Tensor::FromVector(shape, {}, Device::Cpu(), CpuRegistry());
  ASSERT_TRUE(input.ok()) << input.status();
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run({*input});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), shape);

  // The kernel on its own, as another executor might call it.
  const Graph& placed = (*plan)->graph();
  absl::StatusOr<BackendDevice*> cpu = CpuRegistry().GetDevice(Device::Cpu());
  ASSERT_TRUE(cpu.ok());
  absl::StatusOr<std::unique_ptr<Kernel>> kernel =
      (*cpu)->CreateKernel(placed.nodes()[0], placed);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  Tensor result = (*out)[0];
  const Tensor* operands[] = {&*input};
  Tensor* results[] = {&result};
  EXPECT_TRUE((*kernel)->Run(operands, results).ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// graph_fuzzer, crash-73aa606c: OpDef::Flops multiplied valid but huge
// dimensions (conv2d: 2 * outputs * C/g * kH * kW, with a 2^30 kernel) and
// overflowed int64 (UBSan, ops/conv2d.cc:111); linear, max_pool2d, softmax
// and adaptive_avg_pool2d could too. FLOP counts now saturate at INT64_MAX.
// And adaptive_avg_pool2d summed its window lengths in a loop over the
// output size: seconds for 2^30 (libFuzzer's slow-unit-1ca66329); now
// closed form.
TEST(FuzzRegression, FlopCountsSaturateInsteadOfOverflowing) {
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  const OpDef* conv = *OpRegistry::Global().Find("conv2d");
  // 2^40 outputs, each 2 * 2^30 multiply-adds: 2^71.
  const Shape input({1 << 20, 1, int64_t{1} << 30, 1024});
  const Shape weight({1 << 10, 1, int64_t{1} << 30, 1});
  EXPECT_EQ(conv->Flops(AttrMap(), {input, weight},
                        Shape({1 << 20, 1 << 10, 1, 1024})),
            kMax);
  const OpDef* softmax = *OpRegistry::Global().Find("softmax");
  EXPECT_EQ(softmax->Flops(AttrMap(), {Shape({int64_t{1} << 61})},
                           Shape({int64_t{1} << 61})),
            kMax);
  // Ordinary shapes keep their exact counts.
  EXPECT_EQ(conv->Flops(AttrMap(), {Shape({1, 3, 8, 8}), Shape({4, 3, 3, 3})},
                        Shape({1, 4, 6, 6})),
            2 * 4 * 6 * 6 * 3 * 3 * 3);

  const OpDef* pool = *OpRegistry::Global().Find("adaptive_avg_pool2d");
  AttrMap attrs;
  attrs.Set("output_size",
            std::vector<int64_t>{int64_t{1} << 30, int64_t{1} << 30});
  const auto start = std::chrono::steady_clock::now();
  // 2^10 planes of (2^30 + 2)^2 window elements. (The output argument only
  // adds its element count; the real [2^10, 1, 2^30, 2^30] would not even
  // pass shape inference.)
  EXPECT_EQ(pool->Flops(attrs, {Shape({1 << 10, 1, 3, 3})}, Shape({1})),
            kMax);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  // 7x7 windows over 14x14: each output takes 2x2 inputs, plus the divides.
  attrs.Set("output_size", std::vector<int64_t>{7, 7});
  EXPECT_EQ(pool->Flops(attrs, {Shape({1, 2, 14, 14})}, Shape({1, 2, 7, 7})),
            2 * 14 * 14 + 2 * 7 * 7);
}

}  // namespace
}  // namespace switchyard
