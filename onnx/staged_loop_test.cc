// ONNX Loop through OnnxModel::Run, on graphs built with the ModelProto API:
// a trip count from data with a loop-carried value and a scan output, a
// while loop whose condition the body computes, a carried value that grows
// every iteration, the iteration limit, and malformed loops. Expected values
// are worked out by hand in each test.

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/backend_registry.h"
#include "core/device.h"
#include "core/profiler.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx/onnx_model.h"
#include "onnx/onnx_pb.h"
#include "onnx/testing/model_proto_builder.h"

namespace switchyard {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using onnx_testing::AddGraph;
using onnx_testing::AddInitializer;
using onnx_testing::AddInt;
using onnx_testing::AddNode;
using onnx_testing::AddValueInfo;
using onnx_testing::NewModel;
using onnx_testing::SaveAndLoad;

BackendDevice& Cpu() { return **BackendRegistry::Global().GetDevice(Device::Cpu()); }

Tensor Floats(const std::vector<int64_t>& dims, const std::vector<float>& v) {
  return *Tensor::FromBytes(Shape(dims), DType::kFloat32, v.data(), v.size() * 4, Cpu());
}

Tensor Int64Scalar(int64_t v) {
  return *Tensor::FromBytes(Shape({}), DType::kInt64, &v, sizeof(v), Cpu());
}

// Loop(M, "", x) with body (i, cond, acc) -> (cond, acc + x, acc + x): x is
// read from the graph around the body. Outputs: the final acc and the scan
// of every iteration's acc.
onnx::ModelProto TripCountModel() {
  onnx::ModelProto m = NewModel(13, "loop_trip_count");
  onnx::GraphProto& g = *m.mutable_graph();
  AddValueInfo(g.add_input(), "M", onnx::TensorProto::INT64, {});
  AddValueInfo(g.add_input(), "x", {-1});
  AddValueInfo(g.add_output(), "final", {-1});
  AddValueInfo(g.add_output(), "scan", {-1, -1});
  onnx::NodeProto* loop = AddNode(g, "Loop", {"M", "", "x"}, {"final", "scan"});
  onnx::GraphProto& body = *AddGraph(loop, "body");
  AddValueInfo(body.add_input(), "i", onnx::TensorProto::INT64, {});
  AddValueInfo(body.add_input(), "cond", onnx::TensorProto::BOOL, {});
  AddValueInfo(body.add_input(), "acc", {-1});
  AddNode(body, "Add", {"acc", "x"}, {"acc_next"});
  AddNode(body, "Identity", {"acc_next"}, {"acc_scan"});
  AddValueInfo(body.add_output(), "cond", onnx::TensorProto::BOOL, {});
  AddValueInfo(body.add_output(), "acc_next", {-1});
  AddValueInfo(body.add_output(), "acc_scan", {-1});
  return m;
}

TEST(StagedLoopTest, TripCountFromDataWithCarriedValueAndScan) {
  std::unique_ptr<OnnxModel> model = SaveAndLoad(TripCountModel(), "loop_trip");
  ASSERT_NE(model, nullptr);
  absl::StatusOr<std::vector<Tensor>> y = model->Run({Int64Scalar(3), Floats({2}, {1, 2})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(*(*y)[0].ToHost<float>(), ElementsAre(4, 8));
  EXPECT_EQ((*y)[1].shape(), Shape({3, 2}));
  EXPECT_THAT(*(*y)[1].ToHost<float>(), ElementsAre(2, 4, 3, 6, 4, 8));
  EXPECT_EQ(model->run_stats().loop_iterations, 3);

  // Iterations of one shape share the body's plan; another trip count with
  // the same shapes compiles nothing new.
  const int64_t compiled = model->run_stats().plans_compiled;
  EXPECT_EQ(compiled, 1);
  y = model->Run({Int64Scalar(5), Floats({2}, {1, 2})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(*(*y)[0].ToHost<float>(), ElementsAre(6, 12));
  EXPECT_EQ(model->run_stats().plans_compiled, compiled);

  // No iteration: the initial value, and an empty scan.
  y = model->Run({Int64Scalar(0), Floats({2}, {1, 2})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(*(*y)[0].ToHost<float>(), ElementsAre(1, 2));
  EXPECT_EQ((*y)[1].num_elements(), 0);

  y = model->Run({Int64Scalar(-1), Floats({2}, {1, 2})});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(y.status().message(), HasSubstr("trip count M ('M') is -1"));
}

TEST(StagedLoopTest, BodyNodesAreNamedByTheLoopInTheProfile) {
  std::unique_ptr<OnnxModel> model = SaveAndLoad(TripCountModel(), "loop_profile");
  ASSERT_NE(model, nullptr);
  Profiler profiler;
  RunOptions options;
  options.profiler = &profiler;
  ASSERT_TRUE(profiler.BeginIteration(0).ok());
  ASSERT_TRUE(model->Run({Int64Scalar(2), Floats({2}, {1, 2})}, options).ok());
  ASSERT_TRUE(profiler.EndIteration().ok());
  int body_adds = 0;
  for (const ProfileEvent& e : profiler.events()) {
    if (e.kind == ProfileEvent::Kind::kNode && e.op == "add") {
      EXPECT_THAT(e.layer, HasSubstr("Loop_0/body/"));
      ++body_adds;
    }
  }
  EXPECT_EQ(body_adds, 2);  // one per iteration
}

// while (v < limit) v = 2 * v, the condition computed by the body; the scan
// output collects the iteration numbers.
onnx::ModelProto WhileModel() {
  onnx::ModelProto m = NewModel(13, "loop_while");
  onnx::GraphProto& g = *m.mutable_graph();
  AddValueInfo(g.add_input(), "x", {});
  AddValueInfo(g.add_output(), "v", {});
  AddValueInfo(g.add_output(), "iterations", onnx::TensorProto::INT64, {-1});
  AddInitializer(g, "limit", {}, {100});
  AddInitializer(g, "two", {}, {2});
  AddNode(g, "Less", {"x", "limit"}, {"go"});
  onnx::NodeProto* loop = AddNode(g, "Loop", {"", "go", "x"}, {"v", "iterations"});
  onnx::GraphProto& body = *AddGraph(loop, "body");
  AddValueInfo(body.add_input(), "i", onnx::TensorProto::INT64, {});
  AddValueInfo(body.add_input(), "c", onnx::TensorProto::BOOL, {});
  AddValueInfo(body.add_input(), "v_in", {});
  AddNode(body, "Mul", {"v_in", "two"}, {"v_out"});
  AddNode(body, "Less", {"v_out", "limit"}, {"c_out"});
  AddNode(body, "Identity", {"i"}, {"i_out"});
  AddValueInfo(body.add_output(), "c_out", onnx::TensorProto::BOOL, {});
  AddValueInfo(body.add_output(), "v_out", {});
  AddValueInfo(body.add_output(), "i_out", onnx::TensorProto::INT64, {});
  return m;
}

TEST(StagedLoopTest, WhileLoopStopsWhenTheBodysConditionFails) {
  std::unique_ptr<OnnxModel> model = SaveAndLoad(WhileModel(), "loop_while");
  ASSERT_NE(model, nullptr);
  absl::StatusOr<std::vector<Tensor>> y = model->Run({Floats({}, {3})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(*(*y)[0].ToHost<float>(), ElementsAre(192));  // 3 * 2^6
  EXPECT_THAT(*(*y)[1].ToHost<int64_t>(), ElementsAre(0, 1, 2, 3, 4, 5));
  // Already past the limit: the body never runs.
  y = model->Run({Floats({}, {500})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(*(*y)[0].ToHost<float>(), ElementsAre(500));
  EXPECT_EQ((*y)[1].num_elements(), 0);
  EXPECT_EQ((*y)[1].dtype(), DType::kInt64);
}

TEST(StagedLoopTest, IterationsAreBoundedByALimitTheUserCanRaise) {
  // No trip count and a condition the body passes through: it never stops
  // by itself, and x is never below 100.
  onnx::ModelProto m = WhileModel();
  onnx::GraphProto& body = *m.mutable_graph()->mutable_node(1)->mutable_attribute(0)->mutable_g();
  body.mutable_output(0)->set_name("c");
  m.mutable_graph()->mutable_node(1)->set_input(1, "");
  std::unique_ptr<OnnxModel> model = SaveAndLoad(m, "loop_forever");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->set_max_loop_iterations(0).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(model->set_max_loop_iterations(20).ok());
  absl::StatusOr<std::vector<Tensor>> y = model->Run({Floats({}, {1e-30f})});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(y.status().message(), HasSubstr("ran 20 iterations"));
  EXPECT_THAT(y.status().message(), HasSubstr("--max-loop-iterations"));
  EXPECT_THAT(y.status().message(), HasSubstr("Loop_1"));
}

// acc = Concat(acc, x) for M iterations: a carried value whose shape grows.
TEST(StagedLoopTest, CarriedValueMayChangeShapeEachIteration) {
  onnx::ModelProto m = NewModel(13, "loop_grow");
  onnx::GraphProto& g = *m.mutable_graph();
  AddValueInfo(g.add_input(), "M", onnx::TensorProto::INT64, {});
  AddValueInfo(g.add_input(), "x", {-1});
  AddValueInfo(g.add_output(), "acc", {-1});
  onnx::NodeProto* loop = AddNode(g, "Loop", {"M", "", "x"}, {"acc"});
  onnx::GraphProto& body = *AddGraph(loop, "body");
  AddValueInfo(body.add_input(), "i", onnx::TensorProto::INT64, {});
  AddValueInfo(body.add_input(), "cond", onnx::TensorProto::BOOL, {});
  AddValueInfo(body.add_input(), "acc_in", {-1});
  AddInt(AddNode(body, "Concat", {"acc_in", "x"}, {"acc_out"}), "axis", 0);
  AddValueInfo(body.add_output(), "cond", onnx::TensorProto::BOOL, {});
  AddValueInfo(body.add_output(), "acc_out", {-1});
  std::unique_ptr<OnnxModel> model = SaveAndLoad(m, "loop_grow");
  ASSERT_NE(model, nullptr);
  absl::StatusOr<std::vector<Tensor>> y = model->Run({Int64Scalar(3), Floats({1}, {7})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(*(*y)[0].ToHost<float>(), ElementsAre(7, 7, 7, 7));
}

TEST(StagedLoopTest, MalformedLoopsAreRefusedAtLoad) {
  onnx::ModelProto m = TripCountModel();
  onnx::GraphProto& body = *m.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g();
  body.mutable_input()->RemoveLast();
  const std::string path = onnx_testing::TmpPath("loop_bad.onnx");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  ASSERT_TRUE(m.SerializeToOstream(&out));
  out.close();
  absl::StatusOr<std::unique_ptr<OnnxModel>> model = OnnxModel::Load(path);
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(model.status().message(), HasSubstr("the body takes 2 inputs"));
}

}  // namespace
}  // namespace switchyard
