// OnnxModel::Run on graphs whose shapes are decided while they run, built
// here with the ModelProto API: NonZero (a data-dependent count) feeding
// later nodes, a Reshape to a shape fed at run time, If on a condition
// computed from data, NMS whose selected rows feed later nodes, a Resize by
// scales computed from data. Each runs
// with inputs of different sizes from one loaded model, against values
// computed by hand, and the plan cache is checked: the same shapes and
// decisions compile nothing new.

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/backend_registry.h"
#include "core/device.h"
#include "core/profiler.h"
#include "core/run_memory.h"
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
using onnx_testing::AddInitializer;
using onnx_testing::AddInt;
using onnx_testing::AddInt64Initializer;
using onnx_testing::AddInts;
using onnx_testing::AddNode;
using onnx_testing::AddValueInfo;

onnx::ModelProto NewModel() { return onnx_testing::NewModel(13, "staged_runner_test"); }

std::unique_ptr<OnnxModel> Load(const onnx::ModelProto& m, const std::string& name) {
  return onnx_testing::SaveAndLoad(m, name);
}

Tensor Floats(const std::vector<int64_t>& dims, const std::vector<float>& v) {
  return *Tensor::FromVector(Shape(dims), v, Device::Cpu(), BackendRegistry::Global());
}

template <typename T>
Tensor Of(const std::vector<int64_t>& dims, DType dtype, const std::vector<T>& v) {
  BackendDevice* cpu = *BackendRegistry::Global().GetDevice(Device::Cpu());
  return *Tensor::FromBytes(Shape(dims), dtype, v.data(), v.size() * sizeof(T), *cpu);
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return *t.ToHost<T>();
}

// x [n] -> NonZero -> [1, k] -> Squeeze -> [k] -> Gather(x) -> y [k]: the
// non-zero values of x, however many there are.
onnx::ModelProto NonZeroModel() {
  onnx::ModelProto m = NewModel();
  onnx::GraphProto& g = *m.mutable_graph();
  AddValueInfo(g.add_input(), "x", onnx::TensorProto::FLOAT, {-1});
  AddValueInfo(g.add_output(), "y", onnx::TensorProto::FLOAT, {-1});
  AddNode(g, "NonZero", {"x"}, {"nz"});
  AddInts(AddNode(g, "Squeeze", {"nz"}, {"idx"}), "axes", {0});
  AddInt(AddNode(g, "Gather", {"x", "idx"}, {"y"}), "axis", 0);
  // Squeeze's axes as an attribute is opset 11-12's form.
  m.mutable_opset_import(0)->set_version(12);
  return m;
}

TEST(StagedRunnerTest, NonZeroFeedsLaterNodesWhateverItsCount) {
  std::unique_ptr<OnnxModel> model = Load(NonZeroModel(), "nonzero");
  ASSERT_NE(model, nullptr);
  absl::StatusOr<std::vector<Tensor>> y = model->Run({Floats({4}, {0, 1.5f, 0, -2})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].shape(), Shape({2}));
  EXPECT_THAT(Values<float>((*y)[0]), ElementsAre(1.5f, -2));

  y = model->Run({Floats({6}, {3, 0, 0, 7, 0, 4})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(Values<float>((*y)[0]), ElementsAre(3, 7, 4));
  EXPECT_EQ(model->run_stats().host_steps, 2);
  EXPECT_EQ(model->run_stats().run_time_copies, 2);

  // The same input size and count again: nothing new to compile.
  const int64_t compiled = model->run_stats().plans_compiled;
  y = model->Run({Floats({4}, {9, 0, 8, 0})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(Values<float>((*y)[0]), ElementsAre(9, 8));
  EXPECT_EQ(model->run_stats().plans_compiled, compiled);

  // No non-zero element: an empty result, not an error.
  y = model->Run({Floats({3}, {0, 0, 0})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].shape(), Shape({0}));
}

TEST(StagedRunnerTest, EachRunReportsItsMemoryAndTheSameShapesTakeNothingNew) {
  std::unique_ptr<OnnxModel> model = Load(NonZeroModel(), "nonzero_memory");
  ASSERT_NE(model, nullptr);
  const Tensor x = Floats({1000}, std::vector<float>(1000, 1.0f));
  std::vector<DeviceMemoryUse> first, second, bigger, again;
  RunOptions options;
  options.memory = &first;
  {
    absl::StatusOr<std::vector<Tensor>> y = model->Run({x}, options);
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ((*y)[0].shape(), Shape({1000}));
  }
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].device, Device::Cpu());
  // NonZero's int64 indices, the gathered output: at least 12 KB in use.
  EXPECT_GE(first[0].peak_bytes - first[0].start_bytes, 12000);
  EXPECT_GT(first[0].new_blocks, 0);
  EXPECT_THAT(first[0].ToString(), HasSubstr("cpu:0: peak "));

  // The same shapes, the first outputs dropped: all from the cache.
  options.memory = &second;
  ASSERT_TRUE(model->Run({x}, options).ok());
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].new_blocks, 0) << second[0].ToString();
  EXPECT_EQ(second[0].new_bytes, 0);
  EXPECT_GE(second[0].peak_bytes - second[0].start_bytes, 12000);

  // A larger input takes new blocks; coming back to the first size does not.
  options.memory = &bigger;
  ASSERT_TRUE(model->Run({Floats({5000}, std::vector<float>(5000, 2.0f))}, options).ok());
  EXPECT_GT(bigger[0].new_blocks, 0);
  options.memory = &again;
  ASSERT_TRUE(model->Run({x}, options).ok());
  EXPECT_EQ(again[0].new_blocks, 0) << again[0].ToString();
}

// x [n], shape int64 [2] -> Reshape -> Relu -> y: the shape is data.
onnx::ModelProto ReshapeModel() {
  onnx::ModelProto m = NewModel();
  onnx::GraphProto& g = *m.mutable_graph();
  AddValueInfo(g.add_input(), "x", onnx::TensorProto::FLOAT, {-1});
  AddValueInfo(g.add_input(), "shape", onnx::TensorProto::INT64, {2});
  AddValueInfo(g.add_output(), "y", onnx::TensorProto::FLOAT, {-1, -1});
  AddNode(g, "Reshape", {"x", "shape"}, {"r"});
  AddNode(g, "Relu", {"r"}, {"y"});
  return m;
}

TEST(StagedRunnerTest, ReshapeToAShapeGivenAtRunTime) {
  std::unique_ptr<OnnxModel> model = Load(ReshapeModel(), "reshape");
  ASSERT_NE(model, nullptr);
  const Tensor x = Floats({6}, {1, -2, 3, -4, 5, -6});
  absl::StatusOr<std::vector<Tensor>> y =
      model->Run({x, Of<int64_t>({2}, DType::kInt64, {2, 3})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].shape(), Shape({2, 3}));
  EXPECT_THAT(Values<float>((*y)[0]), ElementsAre(1, 0, 3, 0, 5, 0));

  y = model->Run({x, Of<int64_t>({2}, DType::kInt64, {3, -1})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].shape(), Shape({3, 2}));

  const int64_t compiled = model->run_stats().plans_compiled;
  y = model->Run({x, Of<int64_t>({2}, DType::kInt64, {2, 3})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].shape(), Shape({2, 3}));
  EXPECT_EQ(model->run_stats().plans_compiled, compiled);

  // A shape that does not fit the data is the op's own error.
  y = model->Run({x, Of<int64_t>({2}, DType::kInt64, {4, 4})});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
}

// x [1, 1, h, w], factor float [2] -> Concat([1, 1], factor) -> Resize
// (nearest, asymmetric): the scales are data, computed while it runs.
onnx::ModelProto ResizeModel() {
  onnx::ModelProto m = NewModel();
  onnx::GraphProto& g = *m.mutable_graph();
  AddValueInfo(g.add_input(), "x", onnx::TensorProto::FLOAT, {1, 1, -1, -1});
  AddValueInfo(g.add_input(), "factor", onnx::TensorProto::FLOAT, {2});
  AddValueInfo(g.add_output(), "y", onnx::TensorProto::FLOAT, {1, 1, -1, -1});
  onnx::TensorProto* ones = g.add_initializer();
  ones->set_name("ones");
  ones->set_data_type(onnx::TensorProto::FLOAT);
  ones->add_dims(2);
  ones->add_float_data(1);
  ones->add_float_data(1);
  AddInt(AddNode(g, "Concat", {"ones", "factor"}, {"scales"}), "axis", 0);
  onnx::NodeProto* resize = AddNode(g, "Resize", {"x", "", "scales"}, {"y"});
  onnx::AttributeProto* a = resize->add_attribute();
  a->set_name("coordinate_transformation_mode");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s("asymmetric");
  onnx::AttributeProto* f = resize->add_attribute();
  f->set_name("nearest_mode");
  f->set_type(onnx::AttributeProto::STRING);
  f->set_s("floor");
  return m;
}

TEST(StagedRunnerTest, ResizeByScalesComputedAtRunTime) {
  std::unique_ptr<OnnxModel> model = Load(ResizeModel(), "resize");
  ASSERT_NE(model, nullptr);
  const Tensor x = Floats({1, 1, 2, 2}, {1, 2, 3, 4});
  absl::StatusOr<std::vector<Tensor>> y = model->Run({x, Floats({2}, {1, 2})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].shape(), Shape({1, 1, 2, 4}));
  EXPECT_THAT(Values<float>((*y)[0]), ElementsAre(1, 1, 2, 2, 3, 3, 4, 4));
  EXPECT_EQ(model->run_stats().run_time_copies, 1);

  y = model->Run({x, Floats({2}, {1.5f, 1})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].shape(), Shape({1, 1, 3, 2}));
  EXPECT_THAT(Values<float>((*y)[0]), ElementsAre(1, 2, 1, 2, 3, 4));

  // The same factors again: nothing new to compile.
  const int64_t compiled = model->run_stats().plans_compiled;
  y = model->Run({x, Floats({2}, {1, 2})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(model->run_stats().plans_compiled, compiled);

  // A hostile factor is an error naming the node, its input and the value.
  y = model->Run({x, Floats({2}, {-1, 2})});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(y.status().message(), HasSubstr("Resize"));
  EXPECT_THAT(y.status().message(), HasSubstr("input 2 (scales, 'scales')"));
  EXPECT_THAT(y.status().message(), HasSubstr("got -1"));
}

// x [n] -> ReduceSum -> s; cond = Greater(s, 0) -> If: then x + x, else
// -x (both read x from the graph around them).
onnx::ModelProto IfModel() {
  onnx::ModelProto m = NewModel();
  onnx::GraphProto& g = *m.mutable_graph();
  AddValueInfo(g.add_input(), "x", onnx::TensorProto::FLOAT, {-1});
  AddValueInfo(g.add_output(), "y", onnx::TensorProto::FLOAT, {-1});
  AddInitializer(g, "zero", {}, {0});
  AddInt(AddNode(g, "ReduceSum", {"x"}, {"s"}), "keepdims", 0);
  AddNode(g, "Greater", {"s", "zero"}, {"cond"});
  onnx::NodeProto* if_node = AddNode(g, "If", {"cond"}, {"y"});
  auto branch = [&](const char* attr, const char* op, std::vector<std::string> in) {
    onnx::GraphProto* b = onnx_testing::AddGraph(if_node, attr);
    AddNode(*b, op, in, {std::string(attr) + "_y"});
    AddValueInfo(b->add_output(), std::string(attr) + "_y", onnx::TensorProto::FLOAT, {-1});
  };
  branch("then_branch", "Add", {"x", "x"});
  branch("else_branch", "Neg", {"x"});
  return m;
}

TEST(StagedRunnerTest, IfTakesTheBranchThisRunsDataChooses) {
  std::unique_ptr<OnnxModel> model = Load(IfModel(), "if");
  ASSERT_NE(model, nullptr);
  absl::StatusOr<std::vector<Tensor>> y = model->Run({Floats({3}, {1, 2, -1})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(Values<float>((*y)[0]), ElementsAre(2, 4, -2));

  y = model->Run({Floats({2}, {-5, 1})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(Values<float>((*y)[0]), ElementsAre(5, -1));

  // The profiler sees each copy that waits for the device.
  Profiler profiler;
  RunOptions options;
  options.profiler = &profiler;
  ASSERT_TRUE(profiler.BeginIteration(0).ok());
  y = model->Run({Floats({2}, {3, 1})}, options);
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_TRUE(profiler.EndIteration().ok());
  int copies = 0;
  for (const ProfileEvent& e : profiler.events()) {
    if (e.op == "d2h" && e.name.find("run-time value") != std::string::npos) ++copies;
  }
  EXPECT_GE(copies, 1);
}

// cond bool [] -> If: then the non-zero values of x (NonZero inside the
// branch: a data-dependent count), else -x.
onnx::ModelProto IfWithNonZeroModel() {
  onnx::ModelProto m = NewModel();
  onnx::GraphProto& g = *m.mutable_graph();
  AddValueInfo(g.add_input(), "x", onnx::TensorProto::FLOAT, {-1});
  AddValueInfo(g.add_input(), "cond", onnx::TensorProto::BOOL, {});
  AddValueInfo(g.add_output(), "y", onnx::TensorProto::FLOAT, {-1});
  onnx::NodeProto* if_node = AddNode(g, "If", {"cond"}, {"y"});
  if_node->set_name("pick");
  onnx::GraphProto* then_branch = onnx_testing::AddGraph(if_node, "then_branch");
  AddNode(*then_branch, "NonZero", {"x"}, {"nz"});
  AddInts(AddNode(*then_branch, "Squeeze", {"nz"}, {"idx"}), "axes", {0});
  AddInt(AddNode(*then_branch, "Gather", {"x", "idx"}, {"kept"}), "axis", 0);
  AddValueInfo(then_branch->add_output(), "kept", onnx::TensorProto::FLOAT, {-1});
  onnx::GraphProto* else_branch = onnx_testing::AddGraph(if_node, "else_branch");
  AddNode(*else_branch, "Neg", {"x"}, {"negated"});
  AddValueInfo(else_branch->add_output(), "negated", onnx::TensorProto::FLOAT, {-1});
  m.mutable_opset_import(0)->set_version(12);
  return m;
}

TEST(StagedRunnerTest, ABranchThatNeedsRunTimeDataRunsAsAStagedRunOfItsOwn) {
  std::unique_ptr<OnnxModel> model = Load(IfWithNonZeroModel(), "if_nonzero");
  ASSERT_NE(model, nullptr);
  const Tensor yes = Of<uint8_t>({}, DType::kBool, {1});
  const Tensor no = Of<uint8_t>({}, DType::kBool, {0});
  absl::StatusOr<std::vector<Tensor>> y = model->Run({Floats({5}, {0, 3, 0, -1, 2}), yes});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(Values<float>((*y)[0]), ElementsAre(3, -1, 2));
  y = model->Run({Floats({3}, {1, 0, 2}), no});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(Values<float>((*y)[0]), ElementsAre(-1, 0, -2));

  // Another count through the same branch, then the same shapes again:
  // nothing new to compile.
  y = model->Run({Floats({4}, {7, 0, 0, 0}), yes});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(Values<float>((*y)[0]), ElementsAre(7));
  const int64_t compiled = model->run_stats().plans_compiled;
  y = model->Run({Floats({4}, {0, 5, 0, 0}), yes});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(Values<float>((*y)[0]), ElementsAre(5));
  EXPECT_EQ(model->run_stats().plans_compiled, compiled);

  // `graph`'s description names the branch and what ran inside it.
  absl::StatusOr<std::vector<std::string>> steps =
      model->DescribeRun({Floats({3}, {1, 0, 2}), yes});
  ASSERT_TRUE(steps.ok()) << steps.status();
  const std::string text = absl::StrJoin(*steps, "");
  EXPECT_THAT(text, HasSubstr("its then_branch needs run-time data"));
  EXPECT_THAT(text, HasSubstr("ran on the host"));
  EXPECT_THAT(text, HasSubstr("pick/then/"));
}

// boxes [1, n, 4], scores [1, 1, n] -> NMS -> selected [k, 3] -> Gather
// column 2 -> box indices [k] -> Gather(boxes[0]) -> kept boxes [k, 4].
onnx::ModelProto NmsModel() {
  onnx::ModelProto m = NewModel();
  onnx::GraphProto& g = *m.mutable_graph();
  AddValueInfo(g.add_input(), "boxes", onnx::TensorProto::FLOAT, {1, -1, 4});
  AddValueInfo(g.add_input(), "scores", onnx::TensorProto::FLOAT, {1, 1, -1});
  AddValueInfo(g.add_output(), "kept", onnx::TensorProto::FLOAT, {-1, 4});
  AddInt64Initializer(g, "max_boxes", {}, {10});
  AddInitializer(g, "iou", {}, {0.5f});
  AddInt64Initializer(g, "two", {}, {2});
  AddInt64Initializer(g, "zero", {}, {0});
  AddNode(g, "NonMaxSuppression", {"boxes", "scores", "max_boxes", "iou"}, {"sel"});
  AddInt(AddNode(g, "Gather", {"sel", "two"}, {"box_index"}), "axis", 1);
  AddInt(AddNode(g, "Gather", {"boxes", "zero"}, {"all_boxes"}), "axis", 0);
  AddInt(AddNode(g, "Gather", {"all_boxes", "box_index"}, {"kept"}), "axis", 0);
  return m;
}

TEST(StagedRunnerTest, NmsRowsFeedLaterNodes) {
  std::unique_ptr<OnnxModel> model = Load(NmsModel(), "nms");
  ASSERT_NE(model, nullptr);
  // Boxes 0 and 1 overlap (IoU 0.81); 2 stands apart.
  const Tensor boxes = Floats({1, 3, 4}, {0, 0, 10, 10, 0, 0, 10, 9, 20, 20, 30, 30});
  const Tensor scores = Floats({1, 1, 3}, {0.9f, 0.8f, 0.7f});
  absl::StatusOr<std::vector<Tensor>> kept = model->Run({boxes, scores});
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ((*kept)[0].shape(), Shape({2, 4}));
  EXPECT_THAT(Values<float>((*kept)[0]), ElementsAre(0, 0, 10, 10, 20, 20, 30, 30));

  // Four boxes apart from each other: four rows.
  const Tensor apart = Floats({1, 4, 4}, {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7});
  kept = model->Run({apart, Floats({1, 1, 4}, {0.1f, 0.4f, 0.3f, 0.2f})});
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ((*kept)[0].shape(), Shape({4, 4}));
  EXPECT_THAT(Values<float>((*kept)[0]),
              ElementsAre(2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 0, 0, 1, 1));
}

// x [n] -> TopK(k from the input "k") -> values, indices: k decides the
// output shape, so it is read from this run's data.
TEST(StagedRunnerTest, TopKWithKFromData) {
  onnx::ModelProto m = NewModel();
  onnx::GraphProto& g = *m.mutable_graph();
  AddValueInfo(g.add_input(), "x", onnx::TensorProto::FLOAT, {-1});
  AddValueInfo(g.add_input(), "k", onnx::TensorProto::INT64, {1});
  AddValueInfo(g.add_output(), "values", onnx::TensorProto::FLOAT, {-1});
  AddValueInfo(g.add_output(), "indices", onnx::TensorProto::INT64, {-1});
  AddNode(g, "TopK", {"x", "k"}, {"values", "indices"});
  std::unique_ptr<OnnxModel> model = Load(m, "topk");
  ASSERT_NE(model, nullptr);
  const Tensor x = Floats({5}, {3, 9, -1, 9, 4});
  absl::StatusOr<std::vector<Tensor>> y =
      model->Run({x, Of<int64_t>({1}, DType::kInt64, {2})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(Values<float>((*y)[0]), ElementsAre(9, 9));
  EXPECT_THAT(Values<int64_t>((*y)[1]), ElementsAre(1, 3));  // ties: lower index first
  y = model->Run({x, Of<int64_t>({1}, DType::kInt64, {4})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(Values<float>((*y)[0]), ElementsAre(9, 9, 4, 3));
  // A k from data beyond the axis: an error naming the node, nothing read.
  y = model->Run({x, Of<int64_t>({1}, DType::kInt64, {6})});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(y.status().message(), HasSubstr("'k' is 6"));
  EXPECT_THAT(y.status().message(), HasSubstr("TopK"));
  y = model->Run({x, Of<int64_t>({1}, DType::kInt64, {-1})});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
}

// Compress keeps the rows whose condition (from data) is true; ONNX types
// the condition bool, so a float one is refused, not read as "non-zero".
TEST(StagedRunnerTest, CompressKeepsTheRowsItsConditionChooses) {
  auto compress_model = [](onnx::TensorProto::DataType condition_type) {
    onnx::ModelProto m = NewModel();
    onnx::GraphProto& g = *m.mutable_graph();
    AddValueInfo(g.add_input(), "x", onnx::TensorProto::FLOAT, {-1, 2});
    AddValueInfo(g.add_input(), "keep", condition_type, {-1});
    // Its own length, not x's rows (a shorter condition drops the rest).
    g.mutable_input(1)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)
        ->set_dim_param("k");
    AddValueInfo(g.add_output(), "y", onnx::TensorProto::FLOAT, {-1, 2});
    AddInt(AddNode(g, "Compress", {"x", "keep"}, {"y"}), "axis", 0);
    return m;
  };
  std::unique_ptr<OnnxModel> model = Load(compress_model(onnx::TensorProto::BOOL), "compress");
  ASSERT_NE(model, nullptr);
  const Tensor x = Floats({3, 2}, {1, 2, 3, 4, 5, 6});
  absl::StatusOr<std::vector<Tensor>> y =
      model->Run({x, Of<uint8_t>({3}, DType::kBool, {1, 0, 1})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].shape(), Shape({2, 2}));
  EXPECT_THAT(Values<float>((*y)[0]), ElementsAre(1, 2, 5, 6));
  y = model->Run({x, Of<uint8_t>({2}, DType::kBool, {0, 1})});  // shorter: rest dropped
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(Values<float>((*y)[0]), ElementsAre(3, 4));
  // Selecting past the axis is an error naming the node.
  y = model->Run({x, Of<uint8_t>({4}, DType::kBool, {0, 0, 0, 1})});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(y.status().message(), HasSubstr("selects index 3"));

  std::unique_ptr<OnnxModel> floats =
      Load(compress_model(onnx::TensorProto::FLOAT), "compress_float");
  ASSERT_NE(floats, nullptr);
  y = floats->Run({x, Floats({3}, {1, std::nanf(""), 0})});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(y.status().message(), HasSubstr("must be bool, got float32"));
}

TEST(StagedRunnerTest, ChangingParametersDropsCachedSegments) {
  std::unique_ptr<OnnxModel> model = Load(ReshapeModel(), "reshape_clear");
  ASSERT_NE(model, nullptr);
  const Tensor x = Floats({4}, {1, 2, 3, 4});
  ASSERT_TRUE(model->Run({x, Of<int64_t>({2}, DType::kInt64, {2, 2})}).ok());
  EXPECT_GT(model->run_stats().plans_cached, 0);
  ASSERT_TRUE(model->To(Device::Cpu()).ok());
  EXPECT_EQ(model->run_stats().plans_cached, 0);
}

TEST(StagedRunnerTest, WrongInputsAreClearErrors) {
  std::unique_ptr<OnnxModel> model = Load(ReshapeModel(), "reshape_bad");
  ASSERT_NE(model, nullptr);
  absl::StatusOr<std::vector<Tensor>> y = model->Run({Floats({4}, {1, 2, 3, 4})});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(y.status().message(), HasSubstr("takes 2 inputs"));
  y = model->Run({Floats({4}, {1, 2, 3, 4}), Floats({2}, {2, 2})});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(y.status().message(), HasSubstr("float32"));
}

// a [n, 2] + b [n, 2] -> y: both name their first dimension "n".
TEST(StagedRunnerTest, InputsSharingADimensionNameMustAgree) {
  onnx::ModelProto m = NewModel();
  onnx::GraphProto& g = *m.mutable_graph();
  for (const char* name : {"a", "b"}) {
    onnx::ValueInfoProto* info = g.add_input();
    info->set_name(name);
    auto* t = info->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_param("n");
    t->mutable_shape()->add_dim()->set_dim_value(2);
  }
  AddValueInfo(g.add_output(), "y", onnx::TensorProto::FLOAT, {-1, 2});
  AddNode(g, "Add", {"a", "b"}, {"y"});
  std::unique_ptr<OnnxModel> model = Load(m, "shared_dim");
  ASSERT_NE(model, nullptr);
  const Tensor a3 = Floats({3, 2}, {1, 2, 3, 4, 5, 6});
  absl::StatusOr<std::vector<Tensor>> y = model->Run({a3, a3});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(Values<float>((*y)[0]), ElementsAre(2, 4, 6, 8, 10, 12));
  y = model->Run({a3, Floats({1, 2}, {1, 2})});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(y.status().message(), HasSubstr("'n' is 3 in input 'a' but 1 in input 'b'"));
  y = model->Run({a3, Floats({3, 3}, std::vector<float>(9, 0))});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(y.status().message(), HasSubstr("dimension 1 must be 2"));
}

}  // namespace
}  // namespace switchyard
