// Hostile and unsupported values for the converters written as compositions
// (onnx/convert_einsum.cc, convert_recurrent.cc, convert_generated.cc,
// convert_composite.cc's LRN, convert_shape.cc's Dropout, the 3-D Conv and
// pools of convert_volumetric.cc, convert_grid_sample.cc and
// convert_reverse_sequence.cc), on single nodes
// through ConvertNode: each is an error naming what and why, before
// anything is allocated, never a crash or a graph the size of the value.

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "core/backend_registry.h"
#include "core/graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/host_array.h"
#include "onnx/graph_conversion.h"
#include "onnx/node_context.h"
#include "onnx/onnx_pb.h"

namespace switchyard {
namespace onnx_import {
namespace {

using ::testing::HasSubstr;

onnx::NodeProto MakeNode(const std::string& op, const std::vector<std::string>& inputs,
                         int outputs = 1) {
  onnx::NodeProto n;
  n.set_name(op);
  n.set_op_type(op);
  for (const std::string& s : inputs) n.add_input(s);
  for (int i = 0; i < outputs; ++i) n.add_output("y" + std::to_string(i));
  return n;
}

onnx::AttributeProto* Attr(onnx::NodeProto& n, const std::string& name,
                           onnx::AttributeProto::AttributeType type) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(type);
  return a;
}

void SetInts(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& values) {
  onnx::AttributeProto* a = Attr(n, name, onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
}

// Converts `node` whose inputs are graph values of the given shapes
// (float32) or host constants. `output_folded`, when given, says whether
// the first output became a host constant (else a graph value).
absl::Status Convert(const onnx::NodeProto& node, int opset,
                     const std::map<std::string, Shape>& graph_inputs,
                     const std::map<std::string, HostArray>& constants = {},
                     bool* output_folded = nullptr) {
  Graph graph;
  ConversionState state(graph, BackendRegistry::Global(), Device::Cpu(), "",
                        [](const std::string& p) -> absl::StatusOr<ValueId> {
                          return absl::NotFoundError(p);
                        });
  state.run_time_data_allowed = true;
  for (const auto& [name, shape] : graph_inputs) {
    ValueEntry e;
    e.type = {shape, DType::kFloat32};
    e.id = graph.AddInput(name, shape, Device::Cpu());
    state.env[name] = state.Add(e);
  }
  for (const auto& [name, array] : constants) {
    ValueEntry e;
    e.type = {array.shape, array.dtype};
    e.host = std::make_shared<HostArray>(array);
    state.env[name] = state.Add(e);
  }
  // Every output counts as read, so optional ones are computed too.
  for (const std::string& out : node.output()) state.consumed.insert(out);
  absl::Status converted = ConvertNode(node, opset, state);
  if (converted.ok() && output_folded != nullptr) {
    *output_folded = state.entry(state.env.at(node.output(0))).host != nullptr;
  }
  return converted;
}

HostArray Zeros(const std::vector<int64_t>& dims) {
  return HostArray(Shape(dims), std::vector<float>(Shape(dims).num_elements(), 0.0f));
}

TEST(ConverterLimitsTest, EinsumDiagonalIsRefusedByName) {
  onnx::NodeProto n = MakeNode("Einsum", {"x"});
  Attr(n, "equation", onnx::AttributeProto::STRING)->set_s("ii->i");
  const absl::Status s = Convert(n, 12, {{"x", Shape({3, 3})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("repeats label 'i' (a diagonal)"));
}

TEST(ConverterLimitsTest, EinsumLabelsMustAgreeAndTermsFit) {
  onnx::NodeProto n = MakeNode("Einsum", {"x", "w"});
  Attr(n, "equation", onnx::AttributeProto::STRING)->set_s("ij,jk->ik");
  absl::Status s = Convert(n, 12, {{"x", Shape({2, 3})}, {"w", Shape({4, 5})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("label 'j' is 3 in one operand and 4 in input 1"));

  onnx::NodeProto m = MakeNode("Einsum", {"x"});
  Attr(m, "equation", onnx::AttributeProto::STRING)->set_s("ijk->i");
  s = Convert(m, 12, {{"x", Shape({2, 3})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("does not fit input 0 of shape [2, 3]"));

  onnx::NodeProto o = MakeNode("Einsum", {"x"});
  Attr(o, "equation", onnx::AttributeProto::STRING)->set_s("i.j->i");
  s = Convert(o, 12, {{"x", Shape({2, 3})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("'.' only as one '...' per term"));
}

// LSTM: X [seq 2, batch 2, input 1], hidden 1.
std::map<std::string, HostArray> LstmWeights() {
  return {{"w", Zeros({1, 4, 1})}, {"r", Zeros({1, 4, 1})}};
}

TEST(ConverterLimitsTest, SequenceLengthsBeyondTheSequenceAreRefused) {
  onnx::NodeProto n = MakeNode("LSTM", {"x", "w", "r", "", "lens"}, 2);
  Attr(n, "hidden_size", onnx::AttributeProto::INT)->set_i(1);
  std::map<std::string, HostArray> c = LstmWeights();
  c.emplace("lens", HostArray::Of<int32_t>(Shape({2}), {5, 1}));
  const absl::Status s = Convert(n, 14, {{"x", Shape({2, 2, 1})}}, c);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("sequence_lens holds 5, outside [0, 2]"));
}

TEST(ConverterLimitsTest, WeightsOfTheWrongShapeAreRefused) {
  onnx::NodeProto n = MakeNode("LSTM", {"x", "w", "r"}, 2);
  Attr(n, "hidden_size", onnx::AttributeProto::INT)->set_i(2);
  const absl::Status s = Convert(n, 14, {{"x", Shape({2, 2, 1})}}, LstmWeights());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("W must be [1, 8, 1] and R [1, 8, 2]"));
}

TEST(ConverterLimitsTest, AnUnknownActivationIsNamed) {
  onnx::NodeProto n = MakeNode("RNN", {"x", "w", "r"}, 2);
  Attr(n, "hidden_size", onnx::AttributeProto::INT)->set_i(1);
  Attr(n, "activations", onnx::AttributeProto::STRINGS)->add_strings("Gelu");
  const absl::Status s = Convert(n, 14, {{"x", Shape({2, 2, 1})}},
                                 {{"w", Zeros({1, 1, 1})}, {"r", Zeros({1, 1, 1})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("activation 'Gelu' is not supported"));
}

TEST(ConverterLimitsTest, AVeryLongSequenceIsNotUnrolled) {
  onnx::NodeProto n = MakeNode("RNN", {"x", "w", "r"}, 2);
  Attr(n, "hidden_size", onnx::AttributeProto::INT)->set_i(1);
  const absl::Status s = Convert(n, 14, {{"x", Shape({1000000, 1, 1})}},
                                 {{"w", Zeros({1, 1, 1})}, {"r", Zeros({1, 1, 1})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(s.message(), HasSubstr("Switchyard unrolls at most 16384"));
}

TEST(ConverterLimitsTest, WindowSizesFromDataAreChecked) {
  onnx::NodeProto n = MakeNode("HannWindow", {"size"});
  absl::Status s = Convert(n, 17, {}, {{"size", HostArray::Of<int64_t>(Shape(), {int64_t{1} << 40})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(s.message(), HasSubstr("allows at most 16777216"));
  s = Convert(n, 17, {}, {{"size", HostArray::Of<int64_t>(Shape(), {-3})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("size must be a whole number >= 0, got -3"));
  // Computed at run time: its contents are asked for (a staged run reads
  // them first), not guessed.
  s = Convert(n, 17, {{"size", Shape()}});
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
}

TEST(ConverterLimitsTest, AHugeEyeLikeIsRefusedBeforeAllocating) {
  onnx::NodeProto n = MakeNode("EyeLike", {"x"});
  const absl::Status s = Convert(n, 11, {{"x", Shape({100000, 100000})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(s.message(), HasSubstr("EyeLike's output would have 10000000000 elements"));
}

TEST(ConverterLimitsTest, LrnNeedsAWindow) {
  onnx::NodeProto n = MakeNode("LRN", {"x"});
  Attr(n, "size", onnx::AttributeProto::INT)->set_i(0);
  const absl::Status s = Convert(n, 13, {{"x", Shape({1, 3, 4, 4})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("needs size >= 1"));
}

TEST(ConverterLimitsTest, DropoutTrainsOnlyWithRatioZero) {
  onnx::NodeProto n = MakeNode("Dropout", {"x", "ratio", "training"});
  const HostArray on = HostArray(Shape(), DType::kBool, std::vector<char>{1});
  absl::Status s = Convert(n, 13, {{"x", Shape({4})}},
                           {{"ratio", HostArray(Shape(), {0.5f})}, {"training", on}});
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("training_mode is true with ratio 0.5"));
  s = Convert(n, 13, {{"x", Shape({4})}},
              {{"ratio", HostArray(Shape(), {0.0f})}, {"training", on}});
  EXPECT_TRUE(s.ok()) << s;
}

TEST(ConverterLimitsTest, ThreeDWindowsAreCheckedBeforeAnyArithmetic) {
  onnx::NodeProto conv = MakeNode("Conv", {"x", "w"});
  SetInts(conv, "strides", {0, 1, 1});
  absl::Status s = Convert(conv, 11, {{"x", Shape({1, 2, 4, 4, 4})}},
                           {{"w", Zeros({3, 2, 2, 2, 2})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("spatial axis 0 has stride 0"));

  onnx::NodeProto pads = MakeNode("Conv", {"x", "w"});
  SetInts(pads, "pads", {int64_t{1} << 40, 0, 0, 0, 0, 0});
  s = Convert(pads, 11, {{"x", Shape({1, 2, 4, 4, 4})}}, {{"w", Zeros({3, 2, 2, 2, 2})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("pads 1099511627776 and 0"));

  // A kernel deeper than the (padded) clip: no output frame.
  s = Convert(MakeNode("Conv", {"x", "w"}), 11, {{"x", Shape({1, 2, 2, 4, 4})}},
              {{"w", Zeros({3, 2, 3, 2, 2})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("depth 2 is smaller than the kernel's span 3"));

  // Groups that do not divide the channels.
  onnx::NodeProto grouped = MakeNode("Conv", {"x", "w"});
  Attr(grouped, "group", onnx::AttributeProto::INT)->set_i(3);
  s = Convert(grouped, 11, {{"x", Shape({1, 4, 4, 4, 4})}}, {{"w", Zeros({3, 1, 2, 2, 2})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("group 3 does not fit"));

  onnx::NodeProto pool = MakeNode("MaxPool", {"x"});
  SetInts(pool, "kernel_shape", {2, 2, 2});
  SetInts(pool, "dilations", {1, -1, 1});
  s = Convert(pool, 12, {{"x", Shape({1, 2, 4, 4, 4})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("spatial axis 1 has stride 1, dilation -1"));

  // Four spatial dims are still refused by name.
  onnx::NodeProto four = MakeNode("AveragePool", {"x"});
  SetInts(four, "kernel_shape", {2, 2, 2, 2});
  s = Convert(four, 11, {{"x", Shape({1, 2, 4, 4, 4, 4})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("only 1-D, 2-D and 3-D AveragePool"));
}

TEST(ConverterLimitsTest, GridSampleChecksItsGridAndModes) {
  absl::Status s = Convert(MakeNode("GridSample", {"x", "g"}), 16,
                           {{"x", Shape({2, 3, 4, 4})}, {"g", Shape({1, 5, 5, 2})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("the grid must be [N, H_out, W_out, 2]"));
  onnx::NodeProto n = MakeNode("GridSample", {"x", "g"});
  Attr(n, "mode", onnx::AttributeProto::STRING)->set_s("cubic");
  s = Convert(n, 16, {{"x", Shape({1, 3, 4, 4})}, {"g", Shape({1, 5, 5, 2})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("unknown mode 'cubic'"));
  s = Convert(MakeNode("GridSample", {"x", "g"}), 16,
              {{"x", Shape({1, 3, 2, 4, 4})}, {"g", Shape({1, 2, 5, 5, 3})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("only 4-D GridSample"));
}

TEST(ConverterLimitsTest, ReverseSequenceNeedsALengthPerBatchEntry) {
  absl::Status s = Convert(MakeNode("ReverseSequence", {"x", "lens"}), 11,
                           {{"x", Shape({5, 3, 2})}},
                           {{"lens", HostArray::Of<int64_t>(Shape({2}), {1, 2})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("sequence_lens must be [3]"));
  onnx::NodeProto n = MakeNode("ReverseSequence", {"x", "lens"});
  Attr(n, "time_axis", onnx::AttributeProto::INT)->set_i(2);
  s = Convert(n, 11, {{"x", Shape({5, 3, 2})}},
              {{"lens", HostArray::Of<int64_t>(Shape({3}), {1, 2, 3})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("must be 0 and 1 in either order"));
}

// Known at import but much larger than their operands: left to the graph,
// or every compile would upload them and every plan hold them (a detector's
// RoI indices and zero-filled features, 150 MB per image size).
TEST(ConverterLimitsTest, LargeExpansionsOfHostValuesAreGraphWork) {
  bool folded = true;
  onnx::NodeProto expand = MakeNode("Expand", {"x", "shape"});
  HostArray shape(Shape({2}), DType::kInt64, std::vector<char>(16));
  const int64_t big[2] = {512, 512};
  std::memcpy(shape.bytes.data(), big, 16);
  ASSERT_TRUE(Convert(expand, 13, {}, {{"x", Zeros({1, 1})}, {"shape", shape}}, &folded).ok());
  EXPECT_FALSE(folded);
  const int64_t small[2] = {16, 16};
  std::memcpy(shape.bytes.data(), small, 16);
  ASSERT_TRUE(Convert(expand, 13, {}, {{"x", Zeros({1, 1})}, {"shape", shape}}, &folded).ok());
  EXPECT_TRUE(folded);
  // A transform as large as its operand (a weight's) is still folded.
  onnx::NodeProto transpose = MakeNode("Transpose", {"w"});
  ASSERT_TRUE(Convert(transpose, 13, {}, {{"w", Zeros({512, 512})}}, &folded).ok());
  EXPECT_TRUE(folded);

  onnx::NodeProto fill = MakeNode("ConstantOfShape", {"shape"});
  std::memcpy(shape.bytes.data(), big, 16);
  ASSERT_TRUE(Convert(fill, 13, {}, {{"shape", shape}}, &folded).ok());
  EXPECT_FALSE(folded);
  std::memcpy(shape.bytes.data(), small, 16);
  ASSERT_TRUE(Convert(fill, 13, {}, {{"shape", shape}}, &folded).ok());
  EXPECT_TRUE(folded);
}

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
