// FuseQdqGroups on QDQ graphs built here: the groups ONNX Runtime runs as
// one QLinearConv or QLinearAdd become that node, and every condition that
// keeps ONNX Runtime from fusing keeps the graph as it was.

#include "onnx/qdq_fusion.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "onnx/testing/model_proto_builder.h"

namespace switchyard {
namespace onnx_import {
namespace {

using onnx_testing::AddInitializer;
using onnx_testing::AddInt;
using onnx_testing::AddNode;

// An initializer of `type` from its little-endian bytes.
void AddRaw(onnx::GraphProto& g, const std::string& name, onnx::TensorProto::DataType type,
            const std::vector<int64_t>& dims, const std::string& bytes) {
  onnx::TensorProto* t = g.add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(bytes);
}

std::string Int32Bytes(const std::vector<int32_t>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(int32_t));
}

void SetFloats(onnx::TensorProto* t, const std::vector<float>& v) {
  t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)));
}

std::vector<std::string> OpTypes(const onnx::GraphProto& g) {
  std::vector<std::string> ops;
  for (const onnx::NodeProto& n : g.node()) ops.push_back(n.op_type());
  return ops;
}

// xq -> DQ -> Conv(DQ(w), DQ(b)) -> Q -> yq, per-channel int8 weights
// (2 output channels), x_scale 0.5, w_scales 0.25 and 0.125, bias scales
// their products.
onnx::GraphProto QdqAdd();

onnx::GraphProto QdqConv() {
  onnx::GraphProto g;
  AddInitializer(g, "x_s", {}, {0.5f});
  AddRaw(g, "x_z", onnx::TensorProto::UINT8, {}, std::string(1, '\x80'));
  AddRaw(g, "w_q", onnx::TensorProto::INT8, {2, 1, 1, 1}, std::string("\x03\xfd", 2));
  AddInitializer(g, "w_s", {2}, {0.25f, 0.125f});
  AddRaw(g, "w_z", onnx::TensorProto::INT8, {2}, std::string(2, '\0'));
  AddRaw(g, "b_q", onnx::TensorProto::INT32, {2}, Int32Bytes({10, -10}));
  AddInitializer(g, "b_s", {2}, {0.125f, 0.0625f});
  AddInitializer(g, "y_s", {}, {0.1f});
  AddRaw(g, "y_z", onnx::TensorProto::UINT8, {}, std::string(1, '\x05'));
  AddNode(g, "DequantizeLinear", {"xq", "x_s", "x_z"}, {"x"});
  AddInt(AddNode(g, "DequantizeLinear", {"w_q", "w_s", "w_z"}, {"w"}), "axis", 0);
  AddInt(AddNode(g, "DequantizeLinear", {"b_q", "b_s"}, {"b"}), "axis", 0);
  AddNode(g, "Conv", {"x", "w", "b"}, {"c"});
  AddNode(g, "QuantizeLinear", {"c", "y_s", "y_z"}, {"yq"});
  g.add_output()->set_name("yq");
  return g;
}

TEST(QdqFusionTest, ConvGroupBecomesQLinearConv) {
  onnx::GraphProto g = QdqConv();
  EXPECT_EQ(FuseQdqGroups(g, ""), 1);
  ASSERT_EQ(OpTypes(g), std::vector<std::string>{"QLinearConv"});
  const onnx::NodeProto& n = g.node(0);
  const std::vector<std::string> inputs(n.input().begin(), n.input().end());
  EXPECT_EQ(inputs, (std::vector<std::string>{"xq", "x_s", "x_z", "w_q", "w_s", "w_z", "y_s",
                                              "y_z", "b_q"}));
  EXPECT_EQ(n.output(0), "yq");
}

TEST(QdqFusionTest, ConvWithoutBiasOrWeightZeroPoint) {
  onnx::GraphProto g = QdqConv();
  g.mutable_node(3)->mutable_input()->RemoveLast();  // Conv(x, w)
  g.mutable_node(1)->mutable_input()->RemoveLast();  // DQ(w_q, w_s): int8's 0
  EXPECT_EQ(FuseQdqGroups(g, ""), 1);
  // Every DequantizeLinear nobody reads goes, the bias's too.
  EXPECT_EQ(OpTypes(g), std::vector<std::string>{"QLinearConv"});
  EXPECT_EQ(g.node(0).input(5), "");
  EXPECT_EQ(g.node(0).input_size(), 8);
}

// x's type is its zero point's; without one (int8 data would then make
// QLinearConv's output int8 where QuantizeLinear makes uint8) nothing fuses.
TEST(QdqFusionTest, InputWithoutZeroPointStays) {
  onnx::GraphProto g = QdqConv();
  g.mutable_node(0)->mutable_input()->RemoveLast();  // DQ(xq, x_s)
  EXPECT_EQ(FuseQdqGroups(g, ""), 0);
}

// The fusion reads nodes before any converter checks their arity: a
// QuantizeLinear without outputs, a DequantizeLinear without inputs must
// leave the group alone (the first crashed the importer, found by fuzzing).
TEST(QdqFusionTest, NodesOfTheWrongArityStay) {
  onnx::GraphProto no_output = QdqConv();
  no_output.mutable_node(4)->clear_output();
  EXPECT_EQ(FuseQdqGroups(no_output, ""), 0);
  onnx::GraphProto no_inputs = QdqConv();
  no_inputs.mutable_node(1)->clear_input();
  EXPECT_EQ(FuseQdqGroups(no_inputs, ""), 0);
  onnx::GraphProto add_no_output = QdqAdd();
  add_no_output.mutable_node(3)->clear_output();
  EXPECT_EQ(FuseQdqGroups(add_no_output, ""), 0);
  onnx::GraphProto add_no_inputs = QdqAdd();
  add_no_inputs.mutable_node(0)->clear_input();
  EXPECT_EQ(FuseQdqGroups(add_no_inputs, ""), 0);
}

TEST(QdqFusionTest, HostileDimsStay) {
  onnx::GraphProto g = QdqConv();
  g.mutable_initializer(3)->set_dims(0, -2);  // w_s
  EXPECT_EQ(FuseQdqGroups(g, ""), 0);
  g = QdqConv();
  g.mutable_initializer(3)->set_dims(0, int64_t{1} << 62);
  g.mutable_initializer(3)->add_dims(int64_t{1} << 62);
  EXPECT_EQ(FuseQdqGroups(g, ""), 0);
}

TEST(QdqFusionTest, ConvOutputReadElsewhereStays) {
  onnx::GraphProto g = QdqConv();
  AddNode(g, "Relu", {"c"}, {"r"});
  g.add_output()->set_name("r");
  EXPECT_EQ(FuseQdqGroups(g, ""), 0);
  EXPECT_EQ(g.node_size(), 6);
}

TEST(QdqFusionTest, ConvOutputAsGraphOutputStays) {
  onnx::GraphProto g = QdqConv();
  g.add_output()->set_name("c");
  EXPECT_EQ(FuseQdqGroups(g, ""), 0);
}

TEST(QdqFusionTest, BiasScaleOtherThanTheProductStays) {
  onnx::GraphProto g = QdqConv();
  ASSERT_EQ(g.initializer(6).name(), "b_s");
  SetFloats(g.mutable_initializer(6), {0.125f, 0.07f});  // b_s[1] != 0.5 * 0.125
  EXPECT_EQ(FuseQdqGroups(g, ""), 0);
}

TEST(QdqFusionTest, WeightScaleComputedAtRunTimeStays) {
  onnx::GraphProto g = QdqConv();
  g.mutable_node(1)->set_input(1, "runtime_scale");
  EXPECT_EQ(FuseQdqGroups(g, ""), 0);
}

TEST(QdqFusionTest, PerChannelScaleOnAnotherAxisStays) {
  onnx::GraphProto g = QdqConv();
  g.mutable_node(1)->mutable_attribute(0)->set_i(1);
  EXPECT_EQ(FuseQdqGroups(g, ""), 0);
}

TEST(QdqFusionTest, FloatWeightsStay) {
  onnx::GraphProto g = QdqConv();
  g.mutable_initializer(2)->set_data_type(onnx::TensorProto::FLOAT);
  EXPECT_EQ(FuseQdqGroups(g, ""), 0);
}

TEST(QdqFusionTest, QuantizeToAnotherTypeStays) {
  onnx::GraphProto g = QdqConv();
  g.mutable_initializer(8)->set_data_type(onnx::TensorProto::INT8);  // y_z
  EXPECT_EQ(FuseQdqGroups(g, ""), 0);
}

TEST(QdqFusionTest, NonPositiveScaleStays) {
  onnx::GraphProto g = QdqConv();
  SetFloats(g.mutable_initializer(0), {-0.5f});  // x_s
  EXPECT_EQ(FuseQdqGroups(g, ""), 0);
}

TEST(QdqFusionTest, BlockedDequantizeStays) {
  onnx::GraphProto g = QdqConv();
  AddInt(g.mutable_node(1), "block_size", 2);
  EXPECT_EQ(FuseQdqGroups(g, ""), 0);
}

// DQ(a), DQ(b) -> Add -> Q.
onnx::GraphProto QdqAdd() {
  onnx::GraphProto g;
  AddInitializer(g, "a_s", {}, {0.5f});
  AddRaw(g, "a_z", onnx::TensorProto::UINT8, {}, std::string(1, '\x80'));
  AddInitializer(g, "b_s", {}, {0.25f});
  AddRaw(g, "b_z", onnx::TensorProto::UINT8, {}, std::string(1, '\x10'));
  AddInitializer(g, "y_s", {}, {0.75f});
  AddRaw(g, "y_z", onnx::TensorProto::UINT8, {}, std::string(1, '\x00'));
  AddNode(g, "DequantizeLinear", {"aq", "a_s", "a_z"}, {"a"});
  AddNode(g, "DequantizeLinear", {"bq", "b_s", "b_z"}, {"b"});
  AddNode(g, "Add", {"a", "b"}, {"s"});
  AddNode(g, "QuantizeLinear", {"s", "y_s", "y_z"}, {"yq"});
  g.add_output()->set_name("yq");
  return g;
}

TEST(QdqFusionTest, AddGroupBecomesQLinearAdd) {
  onnx::GraphProto g = QdqAdd();
  EXPECT_EQ(FuseQdqGroups(g, ""), 1);
  ASSERT_EQ(OpTypes(g), std::vector<std::string>{"QLinearAdd"});
  EXPECT_EQ(g.node(0).domain(), "com.microsoft");
  const std::vector<std::string> inputs(g.node(0).input().begin(), g.node(0).input().end());
  EXPECT_EQ(inputs, (std::vector<std::string>{"aq", "a_s", "a_z", "bq", "b_s", "b_z", "y_s",
                                              "y_z"}));
}

TEST(QdqFusionTest, AddOfTwoTypesStays) {
  onnx::GraphProto g = QdqAdd();
  g.mutable_initializer(3)->set_data_type(onnx::TensorProto::INT8);  // b_z
  EXPECT_EQ(FuseQdqGroups(g, ""), 0);
}

TEST(QdqFusionTest, AddOfAFloatOperandStays) {
  onnx::GraphProto g = QdqAdd();
  g.mutable_node(2)->set_input(1, "float_input");
  EXPECT_EQ(FuseQdqGroups(g, ""), 0);
  EXPECT_EQ(g.node_size(), 4);
}

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
