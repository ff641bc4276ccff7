// The Gelu converter (onnx/convert_elementwise.cc, ONNX opset 20) on single
// nodes through ConvertNode: approximate "none" is the gelu op, "tanh" is
// composed from mul, add and tanh (checked against its formula on cpu:0),
// and any other approximation is an InvalidArgument naming the node.

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx/graph_conversion.h"
#include "onnx/node_context.h"
#include "onnx/onnx_pb.h"

namespace switchyard {
namespace onnx_import {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

onnx::NodeProto GeluNode(const char* approximate) {
  onnx::NodeProto n;
  n.set_name("act");
  n.set_op_type("Gelu");
  n.add_input("X");
  n.add_output("y");
  if (approximate != nullptr) {
    onnx::AttributeProto* a = n.add_attribute();
    a->set_name("approximate");
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(approximate);
  }
  return n;
}

struct Converted {
  absl::Status status;
  Graph graph;
};

// Converts `node` at opset 20 with X a float32 graph input of `shape`; the
// graph's output is the last node's.
Converted Convert(const onnx::NodeProto& node, const Shape& shape) {
  Converted c;
  ConversionState state(c.graph, BackendRegistry::Global(), Device::Cpu(), "",
                        [](const std::string& p) -> absl::StatusOr<ValueId> {
                          return absl::NotFoundError(p);
                        });
  ValueEntry x;
  x.type = {shape, DType::kFloat32};
  x.id = c.graph.AddInput("X", shape, Device::Cpu());
  state.env["X"] = state.Add(x);
  c.status = ConvertNode(node, /*opset=*/20, state);
  if (c.status.ok() && !c.graph.nodes().empty()) {
    c.graph.AddOutput(c.graph.nodes().back().outputs[0]);
  }
  return c;
}

std::vector<std::string> Ops(const Graph& graph) {
  std::vector<std::string> ops;
  for (const Node& n : graph.nodes()) ops.push_back(n.op);
  return ops;
}

TEST(GeluConverterTest, ExactIsTheGeluOp) {
  for (const char* approximate : {static_cast<const char*>(nullptr), "none"}) {
    Converted c = Convert(GeluNode(approximate), Shape({2, 3}));
    ASSERT_TRUE(c.status.ok()) << c.status;
    EXPECT_THAT(Ops(c.graph), ElementsAre("gelu"));
  }
}

TEST(GeluConverterTest, TanhIsComposedAndMatchesItsFormula) {
  Converted c = Convert(GeluNode("tanh"), Shape({13}));
  ASSERT_TRUE(c.status.ok()) << c.status;
  EXPECT_THAT(Ops(c.graph), Contains("tanh"));
  EXPECT_THAT(Ops(c.graph), Not(Contains("gelu")));
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan = Compile(std::move(c.graph));
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::vector<float> x;
  for (int i = 0; i < 13; ++i) x.push_back(-3.0f + 0.5f * i);
  absl::StatusOr<Tensor> input =
      Tensor::FromVector(Shape({13}), x, Device::Cpu(), BackendRegistry::Global());
  ASSERT_TRUE(input.ok()) << input.status();
  absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run({*input});
  ASSERT_TRUE(out.ok()) << out.status();
  absl::StatusOr<std::vector<float>> y = (*out)[0].ToVector();
  ASSERT_TRUE(y.ok()) << y.status();
  for (int i = 0; i < 13; ++i) {
    const double v = x[i];
    const double expected =
        0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
    EXPECT_NEAR((*y)[i], expected, 1e-6 * (1 + std::fabs(expected))) << v;
  }
}

TEST(GeluConverterTest, AnotherApproximationIsRefusedNamingTheNode) {
  Converted c = Convert(GeluNode("sigmoid"), Shape({2}));
  EXPECT_EQ(c.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(c.status.message()), HasSubstr("'act'"));
  EXPECT_THAT(std::string(c.status.message()), HasSubstr("approximate is 'sigmoid'"));
  EXPECT_THAT(std::string(c.status.message()), HasSubstr("'none'"));
}

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
