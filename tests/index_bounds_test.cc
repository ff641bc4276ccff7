// Indices are data, and data can be hostile: gather_elements, gather_nd,
// scatter_elements and scatter_nd check every index before any read or
// write, on every backend that runs them here (cpu:0, ref:0). A bad one is
// an InvalidArgument naming the node (with its layer: an ONNX node's
// name), the index's position in indices, its value and the dim it points
// along; nothing is read or written out of bounds (the asan build runs
// these too). Negative indices in range wrap, as ONNX defines.

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

class IndexBoundsTest : public ::testing::TestWithParam<std::string> {
 protected:
  Device device() const { return *Device::Parse(GetParam()); }
  BackendDevice& backend() const {
    return **BackendRegistry::Global().GetDevice(device());
  }

  template <typename T>
  Tensor Make(const Shape& shape, std::vector<T> values) const {
    absl::StatusOr<Tensor> t =
        Tensor::FromValues<T>(shape, absl::MakeConstSpan(values), backend());
    EXPECT_TRUE(t.ok()) << t.status();
    return *t;
  }

  // One node of `op` in layer "n3" over `operands`, compiled for this
  // device and run.
  absl::StatusOr<std::vector<float>> Run(const std::string& op, const AttrMap& attrs,
                                         const std::vector<Tensor>& operands) const {
    Graph graph;
    std::vector<ValueId> ids;
    for (size_t i = 0; i < operands.size(); ++i) {
      ids.push_back(graph.AddInput("x" + std::to_string(i), operands[i].shape(),
                                   device(), operands[i].dtype()));
    }
    graph.AddOutput(graph.AddNode(op, "n3", ids, attrs));
    CompileOptions options;
    options.backends = &BackendRegistry::Global();
    absl::StatusOr<std::unique_ptr<ExecutablePlan>> plan =
        Compile(std::move(graph), options);
    if (!plan.ok()) return plan.status();
    absl::StatusOr<std::vector<Tensor>> out = (*plan)->Run(operands);
    if (!out.ok()) return out.status();
    return (*out)[0].ToHost<float>();
  }
};

AttrMap Attr(const std::string& name, AttrValue value) {
  AttrMap a;
  a.Set(name, std::move(value));
  return a;
}

void ExpectBadIndex(const absl::StatusOr<std::vector<float>>& result,
                    const std::string& what) {
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("layer 'n3'"));
  EXPECT_THAT(result.status().message(), HasSubstr(what));
}

TEST_P(IndexBoundsTest, GatherElements) {
  const Tensor data = Make<float>(Shape({2, 4}), {0, 1, 2, 3, 4, 5, 6, 7});
  const AttrMap axis1 = Attr("axis", int64_t{1});
  ExpectBadIndex(Run("gather_elements", axis1,
                     {data, Make<int64_t>(Shape({2, 3}), {0, 1, 2, 3, -4, 17})}),
                 "gather_elements: indices[1, 2] = 17 is out of range for axis 1 of "
                 "size 4 (valid: -4 to 3)");
  ExpectBadIndex(Run("gather_elements", axis1,
                     {data, Make<int64_t>(Shape({1, 1}), {kMin})}),
                 "indices[0, 0] = -9223372036854775808 is out of range");
  ExpectBadIndex(Run("gather_elements", axis1,
                     {data, Make<int32_t>(Shape({1, 2}), {0, -5})}),
                 "indices[0, 1] = -5 is out of range for axis 1 of size 4");
  // In range: negative indices wrap.
  absl::StatusOr<std::vector<float>> good = Run(
      "gather_elements", axis1, {data, Make<int64_t>(Shape({2, 2}), {-1, 0, -4, 2})});
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_THAT(*good, ::testing::ElementsAre(3, 0, 4, 6));
}

TEST_P(IndexBoundsTest, GatherNd) {
  const Tensor data = Make<float>(Shape({2, 3}), {0, 1, 2, 3, 4, 5});
  ExpectBadIndex(Run("gather_nd", {}, {data, Make<int64_t>(Shape({2, 2}), {1, 2, 0, 3})}),
                 "gather_nd: indices[1, 1] = 3 is out of range for axis 1 of size 3");
  ExpectBadIndex(Run("gather_nd", {}, {data, Make<int64_t>(Shape({1, 1}), {-3})}),
                 "indices[0, 0] = -3 is out of range for axis 0 of size 2");
  // batch_dims 1: the tuple indexes data's dim 1.
  ExpectBadIndex(Run("gather_nd", Attr("batch_dims", int64_t{1}),
                     {data, Make<int64_t>(Shape({2, 1}), {0, 5})}),
                 "indices[1, 0] = 5 is out of range for axis 1 of size 3");
  absl::StatusOr<std::vector<float>> good =
      Run("gather_nd", {}, {data, Make<int64_t>(Shape({2, 2}), {-1, -1, 0, 1})});
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_THAT(*good, ::testing::ElementsAre(5, 1));
}

TEST_P(IndexBoundsTest, ScatterElements) {
  const Tensor data = Make<float>(Shape({2, 4}), {0, 1, 2, 3, 4, 5, 6, 7});
  const Tensor updates = Make<float>(Shape({2, 2}), {10, 20, 30, 40});
  const AttrMap axis1 = Attr("axis", int64_t{1});
  ExpectBadIndex(Run("scatter_elements", axis1,
                     {data, Make<int64_t>(Shape({2, 2}), {0, 1, 4, 0}), updates}),
                 "scatter_elements: indices[1, 0] = 4 is out of range for axis 1 of "
                 "size 4");
  ExpectBadIndex(Run("scatter_elements", axis1,
                     {data, Make<int32_t>(Shape({2, 2}), {0, std::numeric_limits<int32_t>::min(), 1, 1}),
                      updates}),
                 "indices[0, 1] = -2147483648 is out of range");
  AttrMap add = axis1;
  add.Set("reduction", std::string("add"));
  absl::StatusOr<std::vector<float>> good =
      Run("scatter_elements", add,
          {data, Make<int64_t>(Shape({2, 2}), {-1, 3, 0, 0}), updates});
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_THAT(*good, ::testing::ElementsAre(0, 1, 2, 33, 74, 5, 6, 7));
}

TEST_P(IndexBoundsTest, ScatterNd) {
  const Tensor data = Make<float>(Shape({2, 3}), {0, 1, 2, 3, 4, 5});
  ExpectBadIndex(
      Run("scatter_nd", {},
          {data, Make<int64_t>(Shape({2, 1}), {1, 2}), Make<float>(Shape({2, 3}), {9, 9, 9, 9, 9, 9})}),
      "scatter_nd: indices[1, 0] = 2 is out of range for axis 0 of size 2");
  ExpectBadIndex(Run("scatter_nd", {},
                     {data, Make<int64_t>(Shape({1, 2}), {0, -4}),
                      Make<float>(Shape({1}), {9})}),
                 "indices[0, 1] = -4 is out of range for axis 1 of size 3");
  absl::StatusOr<std::vector<float>> good =
      Run("scatter_nd", Attr("reduction", std::string("mul")),
          {data, Make<int64_t>(Shape({2, 2}), {-1, -1, -1, -1}),
           Make<float>(Shape({2}), {2, 3})});
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_THAT(*good, ::testing::ElementsAre(0, 1, 2, 3, 4, 30));
}

INSTANTIATE_TEST_SUITE_P(CpuAndReference, IndexBoundsTest,
                         ::testing::Values("cpu:0", "ref:0"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param == "cpu:0" ? std::string("cpu")
                                                        : std::string("ref");
                         });

}  // namespace
}  // namespace switchyard
