// The Resize and Upsample converters (onnx/convert_resize.cc) on single
// nodes through ConvertNode: the resize op each gives at every opset they
// know (OnnxModel loads opsets 11 to 17; Resize-10, -18, -19 and
// Upsample-7, -9 are converted too, for files and ranges beyond that), and
// the error for every hostile value, before anything is allocated.

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
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
#include "ops/resize_attrs.h"

namespace switchyard {
namespace onnx_import {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

onnx::NodeProto MakeNode(const std::string& op, const std::vector<std::string>& inputs) {
  onnx::NodeProto n;
  n.set_name("r");
  n.set_op_type(op);
  for (const std::string& s : inputs) n.add_input(s);
  n.add_output("y");
  return n;
}

void AddString(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

void AddInt(onnx::NodeProto& n, const std::string& name, int64_t v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void AddInts(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

HostArray Scales(const std::vector<float>& v) {
  return HostArray(Shape({static_cast<int64_t>(v.size())}), v);
}
HostArray Sizes(const std::vector<int64_t>& v) {
  return HostArray::Of<int64_t>(Shape({static_cast<int64_t>(v.size())}), v);
}

// What converting one node gave.
struct Result {
  absl::Status status;
  std::optional<ResizeAttrs> resize;  // the resize node's, if one was added
  std::vector<std::string> ops;       // every node's op, in order
  ConversionState::Need need = ConversionState::Need::kNone;
  std::vector<std::string> needed;
};

// Converts `node` with X of `x` a graph input, `constants` known on the
// host and `run_time` graph values computed while the model runs.
Result Convert(const onnx::NodeProto& node, int opset, const Shape& x,
               const std::map<std::string, HostArray>& constants,
               const std::map<std::string, Shape>& run_time = {}) {
  Graph graph;
  ConversionState state(graph, BackendRegistry::Global(), Device::Cpu(), "",
                        [](const std::string& p) -> absl::StatusOr<ValueId> {
                          return absl::NotFoundError(p);
                        });
  state.run_time_data_allowed = true;
  ValueEntry xe;
  xe.type = {x, DType::kFloat32};
  xe.id = graph.AddInput("X", x, Device::Cpu());
  state.env["X"] = state.Add(xe);
  for (const auto& [name, array] : constants) {
    ValueEntry e;
    e.type = {array.shape, array.dtype};
    e.host = std::make_shared<HostArray>(array);
    state.env[name] = state.Add(e);
  }
  for (const auto& [name, shape] : run_time) {
    ValueEntry e;
    e.type = {shape, DType::kFloat32};
    e.id = graph.AddInput(name, shape, Device::Cpu());
    state.env[name] = state.Add(e);
  }
  Result r;
  r.status = ConvertNode(node, opset, state);
  r.need = state.need;
  r.needed = state.needed;
  for (const switchyard::Node& n : graph.nodes()) {
    r.ops.push_back(n.op);
    if (n.op == "resize") r.resize = *ResizeAttrs::FromAttrMap(n.attrs);
  }
  return r;
}

TEST(ResizeConverterTest, ScalesGiveFloorOfInTimesScale) {
  onnx::NodeProto n = MakeNode("Resize", {"X", "", "s"});
  AddString(n, "mode", "linear");
  AddString(n, "coordinate_transformation_mode", "align_corners");
  const Result r = Convert(n, 13, Shape({1, 1, 2, 4}), {{"s", Scales({1, 1, 0.6f, 0.6f})}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_TRUE(r.resize.has_value());
  EXPECT_THAT(r.resize->sizes, ElementsAre(1, 1, 1, 2));
  // The given scale, not out / in, for the coordinate transform.
  EXPECT_DOUBLE_EQ(r.resize->scales[3], static_cast<double>(0.6f));
  EXPECT_EQ(r.resize->mode, ResizeMode::kLinear);
  EXPECT_EQ(r.resize->coordinate_transformation_mode,
            ResizeCoordinateMode::kAlignCorners);
}

TEST(ResizeConverterTest, SizesWithEmptyScalesAsPyTorchExports) {
  onnx::NodeProto n = MakeNode("Resize", {"X", "roi", "s", "sz"});
  AddString(n, "mode", "linear");
  AddString(n, "coordinate_transformation_mode", "pytorch_half_pixel");
  AddString(n, "nearest_mode", "floor");
  const Result r = Convert(n, 11, Shape({1, 3, 240, 320}),
                           {{"roi", Scales({})}, {"s", Scales({})},
                            {"sz", Sizes({1, 3, 300, 260})}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_TRUE(r.resize.has_value());
  EXPECT_THAT(r.resize->sizes, ElementsAre(1, 3, 300, 260));
  EXPECT_DOUBLE_EQ(r.resize->scales[2], 300.0 / 240);
  EXPECT_DOUBLE_EQ(r.resize->scales[3], 260.0 / 320);
}

TEST(ResizeConverterTest, Opset18AxesAndAspectRatio) {
  onnx::NodeProto n = MakeNode("Resize", {"X", "", "", "sz"});
  AddInts(n, "axes", {-2, -1});
  AddString(n, "keep_aspect_ratio_policy", "not_larger");
  Result r = Convert(n, 18, Shape({1, 3, 200, 400}), {{"sz", Sizes({100, 100})}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_THAT(r.resize->sizes, ElementsAre(1, 3, 50, 100));
  EXPECT_THAT(r.resize->scales, ElementsAre(1, 1, 0.25, 0.25));

  n.mutable_attribute(1)->set_s("not_smaller");
  r = Convert(n, 18, Shape({1, 3, 200, 400}), {{"sz", Sizes({100, 100})}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_THAT(r.resize->sizes, ElementsAre(1, 3, 100, 200));

  n.mutable_attribute(1)->set_s("squash");
  r = Convert(n, 18, Shape({1, 3, 200, 400}), {{"sz", Sizes({100, 100})}});
  EXPECT_EQ(r.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status.message(), HasSubstr("keep_aspect_ratio_policy"));

  // axes listing an axis twice.
  onnx::NodeProto twice = MakeNode("Resize", {"X", "", "s"});
  AddInts(twice, "axes", {3, -1});
  r = Convert(twice, 18, Shape({1, 3, 2, 4}), {{"s", Scales({2, 2})}});
  EXPECT_EQ(r.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status.message(), HasSubstr("lists axis 3 twice"));
}

TEST(ResizeConverterTest, Opset19HalfPixelSymmetric) {
  onnx::NodeProto n = MakeNode("Resize", {"X", "", "s"});
  AddString(n, "mode", "cubic");
  AddString(n, "coordinate_transformation_mode", "half_pixel_symmetric");
  AddInt(n, "exclude_outside", 1);
  Result r = Convert(n, 19, Shape({1, 1, 4, 4}), {{"s", Scales({1, 1, 2, 2})}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_TRUE(r.resize.has_value());
  EXPECT_EQ(r.resize->coordinate_transformation_mode,
            ResizeCoordinateMode::kHalfPixelSymmetric);
  EXPECT_TRUE(r.resize->exclude_outside);
}

// Antialias (values checked against ONNX Runtime by tests/onnx_cases'
// resize_antialias_* cases): one weight matrix per resized axis.
TEST(ResizeConverterTest, AntialiasIsAMatmulPerResizedAxis) {
  onnx::NodeProto n = MakeNode("Resize", {"X", "", "s"});
  AddString(n, "mode", "linear");
  AddInt(n, "antialias", 1);
  Result r = Convert(n, 18, Shape({1, 1, 4, 8}), {{"s", Scales({1, 1, 1, 0.5f})}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_FALSE(r.resize.has_value());
  EXPECT_EQ(std::count(r.ops.begin(), r.ops.end(), "matmul"), 1);
  r = Convert(n, 18, Shape({1, 1, 4, 8}), {{"s", Scales({1, 1, 0.5f, 2})}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(std::count(r.ops.begin(), r.ops.end(), "matmul"), 2);
  // A matrix of 6000 x 5999 weights is refused before it is allocated.
  r = Convert(n, 18, Shape({1, 1, 1, 6000}), {{"s", Scales({1, 1, 1, 0.99984f})}});
  EXPECT_EQ(r.status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(r.status.message(), HasSubstr("antialias resizes axis 3 from 6000 to 5999"));
}

TEST(ResizeConverterTest, LegacyOpsUseAsymmetricCoordinates) {
  // Resize-10: X and scales; nearest rounds down when enlarging.
  onnx::NodeProto n = MakeNode("Resize", {"X", "s"});
  Result r = Convert(n, 10, Shape({1, 1, 2, 2}), {{"s", Scales({1, 1, 2, 3})}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_THAT(r.resize->sizes, ElementsAre(1, 1, 4, 6));
  EXPECT_EQ(r.resize->coordinate_transformation_mode, ResizeCoordinateMode::kAsymmetric);
  EXPECT_EQ(r.resize->nearest_mode, ResizeNearestMode::kFloor);
  // ... and up when shrinking, as ONNX Runtime does.
  r = Convert(n, 10, Shape({1, 1, 4, 4}), {{"s", Scales({1, 1, 0.5f, 0.5f})}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.resize->nearest_mode, ResizeNearestMode::kCeil);
  r = Convert(n, 10, Shape({1, 1, 4, 4}), {{"s", Scales({1, 1, 0.5f, 2})}});
  EXPECT_EQ(r.status.code(), absl::StatusCode::kUnimplemented);

  // Upsample-9: scales as an input; Upsample-7: as an attribute.
  onnx::NodeProto up = MakeNode("Upsample", {"X", "s"});
  AddString(up, "mode", "linear");
  r = Convert(up, 9, Shape({1, 2, 3, 3}), {{"s", Scales({1, 1, 2, 2})}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_THAT(r.resize->sizes, ElementsAre(1, 2, 6, 6));
  EXPECT_EQ(r.resize->mode, ResizeMode::kLinear);
  onnx::NodeProto up7 = MakeNode("Upsample", {"X"});
  onnx::AttributeProto* a = up7.add_attribute();
  a->set_name("scales");
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float s : {1.f, 1.f, 2.f, 3.f}) a->add_floats(s);
  r = Convert(up7, 7, Shape({1, 1, 2, 2}), {});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_THAT(r.resize->sizes, ElementsAre(1, 1, 4, 6));
  AddString(up7, "mode", "cubic");
  r = Convert(up7, 7, Shape({1, 1, 2, 2}), {});
  EXPECT_EQ(r.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status.message(), HasSubstr("must be nearest or linear"));
}

TEST(ResizeConverterTest, UnchangedIsTheInputItself) {
  const Result r = Convert(MakeNode("Resize", {"X", "", "s"}), 13, Shape({1, 3, 4, 4}),
                           {{"s", Scales({1, 1, 1, 1})}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_FALSE(r.resize.has_value());
}

TEST(ResizeConverterTest, HostileScalesAndSizesNameTheNodeInputAndValue) {
  const Shape x({1, 3, 100, 100});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const onnx::NodeProto by_scales = MakeNode("Resize", {"X", "", "s"});
  struct Bad {
    std::vector<float> scales;
    absl::StatusCode code;
    std::string says;
  };
  const Bad bad_scales[] = {
      {{1, 1, nan, 2}, absl::StatusCode::kInvalidArgument, "must be finite and > 0, got nan"},
      {{1, 1, inf, 2}, absl::StatusCode::kInvalidArgument, "got inf"},
      {{1, 1, -2, 2}, absl::StatusCode::kInvalidArgument, "got -2 for axis 2"},
      {{1, 1, 0, 2}, absl::StatusCode::kInvalidArgument, "got 0 for axis 2"},
      {{1, 1, 0.001f, 2}, absl::StatusCode::kInvalidArgument, "an empty output"},
      {{1, 1, 2}, absl::StatusCode::kInvalidArgument, "has 3 values but X [1, 3, 100, 100] needs 4"},
      {{1, 1, 1e9f, 2}, absl::StatusCode::kResourceExhausted, "more than Switchyard allocates"},
  };
  for (const Bad& b : bad_scales) {
    const Result r = Convert(by_scales, 13, x, {{"s", Scales(b.scales)}});
    EXPECT_EQ(r.status.code(), b.code) << r.status;
    EXPECT_THAT(r.status.message(), HasSubstr("ONNX node 'r'"));
    EXPECT_THAT(r.status.message(), HasSubstr("input 2 (scales, 's')")) << r.status;
    EXPECT_THAT(r.status.message(), HasSubstr(b.says));
  }
  // Each axis fits, the whole does not.
  Result r = Convert(by_scales, 13, x, {{"s", Scales({1, 1, 1e4f, 1e4f})}});
  EXPECT_EQ(r.status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(r.status.message(), HasSubstr("the output [1, 3, 1000000, 1000000]"));

  const onnx::NodeProto by_sizes = MakeNode("Resize", {"X", "", "", "sz"});
  r = Convert(by_sizes, 13, x, {{"sz", Sizes({1, 3, 0, 5})}});
  EXPECT_EQ(r.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status.message(), HasSubstr("input 3 (sizes, 'sz') must be > 0, got 0"));
  r = Convert(by_sizes, 13, x, {{"sz", Sizes({1, 3, -4, 5})}});
  EXPECT_THAT(r.status.message(), HasSubstr("got -4 for axis 2"));
  r = Convert(by_sizes, 13, x, {{"sz", Sizes({1, 3, int64_t{1} << 40, 5})}});
  EXPECT_EQ(r.status.code(), absl::StatusCode::kResourceExhausted);

  // Exactly one of scales and sizes.
  r = Convert(MakeNode("Resize", {"X", "", "s", "sz"}), 13, x,
              {{"s", Scales({1, 1, 2, 2})}, {"sz", Sizes({1, 3, 200, 200})}});
  EXPECT_EQ(r.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status.message(), HasSubstr("got both"));
  r = Convert(MakeNode("Resize", {"X", "", "s"}), 13, x, {{"s", Scales({})}});
  EXPECT_THAT(r.status.message(), HasSubstr("got neither"));
}

TEST(ResizeConverterTest, UnsupportedModesAreUnimplemented) {
  onnx::NodeProto n = MakeNode("Resize", {"X", "roi", "", "sz"});
  AddString(n, "coordinate_transformation_mode", "tf_crop_and_resize");
  Result r = Convert(n, 13, Shape({1, 1, 4, 4}),
                     {{"roi", Scales({0, 0, 0, 0, 1, 1, 1, 1})}, {"sz", Sizes({1, 1, 3, 3})}});
  EXPECT_EQ(r.status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(r.status.message(), HasSubstr("tf_crop_and_resize"));
  onnx::NodeProto m = MakeNode("Resize", {"X", "", "", "sz"});
  AddString(m, "mode", "bicubic");
  r = Convert(m, 13, Shape({1, 1, 4, 4}), {{"sz", Sizes({1, 1, 3, 3})}});
  EXPECT_EQ(r.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status.message(), HasSubstr("'mode' must be nearest, linear or cubic"));
}

TEST(ResizeConverterTest, RunTimeScalesAreRequested) {
  // scales computed while the model runs: the staged runner is asked for
  // their contents and converts the node again with them.
  const Result r = Convert(MakeNode("Resize", {"X", "", "s"}), 13, Shape({1, 1, 4, 4}),
                           {}, {{"s", Shape({4})}});
  EXPECT_EQ(r.status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(r.need, ConversionState::Need::kContents);
  EXPECT_THAT(r.needed, ElementsAre("s"));
}

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
