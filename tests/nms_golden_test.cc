// NMS against torchvision: the fixtures in tests/golden/data/nms/, made by
// tools/make_nms_goldens.py with torchvision.ops.nms and batched_nms
// (Debian's PyTorch 1.13 / torchvision 0.14) and committed, run on cpu:0,
// the reference backend and every CUDA device there is. Indices must match
// exactly. Kinds (the file's "kind" metadata):
//   nms          functional::Nms(boxes, scores, iou_threshold) == keep
//   batched_nms  functional::BatchedNms(boxes, scores, idxs, ...) == keep
//   op           the non_max_suppression op == selected, ONNX's rows; its
//                padded output (rows of -1 after them) and count checked too

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/backend_registry.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "models/safetensors.h"
#include "ops/functional.h"
#include "ops/nms_attrs.h"
#include "tests/golden_fixtures.h"

namespace switchyard {
namespace {

constexpr char kDataDir[] = "tests/golden/data/nms";

std::vector<std::string> Cases() {
  std::vector<std::string> cases;
  for (const auto& entry : std::filesystem::directory_iterator(kDataDir)) {
    if (entry.path().extension() == ".safetensors") {
      cases.push_back(entry.path().stem().string());
    }
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

std::vector<std::string> Devices() {
  std::vector<std::string> names = {"cpu:0", "ref:0"};
  for (const Device& d : BackendRegistry::Global().AvailableDevices()) {
    if (d.type() == "cuda") names.push_back(d.ToString());
  }
  return names;
}

std::vector<int64_t> Int64s(const HostArray& a) {
  EXPECT_EQ(a.dtype, DType::kInt64);
  std::vector<int64_t> v(a.num_elements());
  if (!v.empty()) std::memcpy(v.data(), a.bytes.data(), v.size() * 8);
  return v;
}

absl::StatusOr<NonMaxSuppressionAttrs> ParseAttrs(const std::string& text) {
  absl::StatusOr<AttrMap> attrs = golden::ParseAttrs(text);
  if (!attrs.ok()) return attrs.status();
  return NonMaxSuppressionAttrs::FromAttrMap(*attrs);
}

// "first difference at 12: 40 vs 41 (got 300 values, want 301)".
std::string Difference(const std::vector<int64_t>& got,
                       const std::vector<int64_t>& want) {
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  return absl::StrCat(
      "first difference at ", i, ": ",
      i < got.size() ? absl::StrCat(got[i]) : std::string("(end)"), " vs ",
      i < want.size() ? absl::StrCat(want[i]) : std::string("(end)"),
      " (got ", got.size(), " values, want ", want.size(), ")");
}

class NmsGoldenTest
    : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(NmsGoldenTest, MatchesTorchvision) {
  const auto& [name, device_name] = GetParam();
  BackendRegistry& registry = BackendRegistry::Global();
  absl::StatusOr<BackendDevice*> device =
      registry.GetDevice(*Device::Parse(device_name));
  ASSERT_TRUE(device.ok()) << device.status();
  absl::StatusOr<SafetensorsFile> golden =
      ReadSafetensors(absl::StrCat(kDataDir, "/", name, ".safetensors"));
  ASSERT_TRUE(golden.ok()) << golden.status();
  const auto& t = golden->tensors;
  const std::string kind = golden->metadata.at("kind");
  auto on_device = [&](const HostArray& a) {
    absl::StatusOr<Tensor> tensor =
        Tensor::FromBytes(a.shape, a.dtype, a.bytes.data(), a.bytes.size(), **device);
    EXPECT_TRUE(tensor.ok()) << tensor.status();
    return *tensor;
  };
  const Tensor boxes = on_device(t.at("boxes"));
  const Tensor scores = on_device(t.at("scores"));

  if (kind == "nms" || kind == "batched_nms") {
    const double iou = std::stod(golden->metadata.at("iou_threshold"));
    absl::StatusOr<Tensor> keep =
        kind == "nms"
            ? functional::Nms(boxes, scores, iou, registry)
            : functional::BatchedNms(boxes, scores, on_device(t.at("idxs")), iou,
                                     registry);
    ASSERT_TRUE(keep.ok()) << keep.status();
    EXPECT_EQ(keep->device(), boxes.device());
    const std::vector<int64_t> got = *keep->ToHost<int64_t>();
    const std::vector<int64_t> want = Int64s(t.at("keep"));
    EXPECT_EQ(got, want) << name << " on " << device_name << ": "
                         << Difference(got, want);
    return;
  }

  ASSERT_EQ(kind, "op");
  absl::StatusOr<NonMaxSuppressionAttrs> attrs =
      ParseAttrs(golden->metadata.at("attrs"));
  ASSERT_TRUE(attrs.ok()) << attrs.status();
  const HostArray& selected = t.at("selected");
  const std::vector<int64_t> want = Int64s(selected);
  absl::StatusOr<Tensor> rows =
      functional::NonMaxSuppression(boxes, scores, *attrs, registry);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(rows->shape(), Shape({selected.shape.dim(0), 3}));
  const std::vector<int64_t> got = *rows->ToHost<int64_t>();
  EXPECT_EQ(got, want) << name << " on " << device_name << ": "
                       << Difference(got, want);

  // The op's own outputs: the same rows, then -1 rows, and the count.
  absl::StatusOr<std::vector<Tensor>> out = functional::Call(
      "non_max_suppression", {boxes, scores}, attrs->ToAttrMap(), registry);
  ASSERT_TRUE(out.ok()) << out.status();
  const int64_t per_class =
      std::min(boxes.shape().dim(1), attrs->max_output_boxes_per_class);
  EXPECT_EQ((*out)[0].shape(),
            Shape({scores.shape().dim(0) * scores.shape().dim(1) * per_class, 3}));
  std::vector<int64_t> padded = *(*out)[0].ToHost<int64_t>();
  EXPECT_EQ(*(*out)[1].ToHost<int64_t>(),
            std::vector<int64_t>{static_cast<int64_t>(want.size() / 3)});
  std::vector<int64_t> expected_padded = want;
  expected_padded.resize(padded.size(), -1);
  EXPECT_EQ(padded, expected_padded);
}

INSTANTIATE_TEST_SUITE_P(
    Torchvision, NmsGoldenTest,
    ::testing::Combine(::testing::ValuesIn(Cases()), ::testing::ValuesIn(Devices())),
    [](const ::testing::TestParamInfo<std::tuple<std::string, std::string>>& info) {
      std::string name =
          absl::StrCat(std::get<0>(info.param), "_on_", std::get<1>(info.param));
      std::replace(name.begin(), name.end(), ':', '_');
      return name;
    });

// A guard: the fixtures are there and cover every kind.
TEST(NmsGoldenFilesTest, EveryKindHasCases) {
  int nms = 0, batched = 0, op = 0;
  for (const std::string& name : Cases()) {
    nms += name.rfind("nms_", 0) == 0;
    batched += name.rfind("batched_nms_", 0) == 0;
    op += name.rfind("op_", 0) == 0;
  }
  EXPECT_GE(nms, 8);
  EXPECT_GE(batched, 2);
  EXPECT_GE(op, 2);
}

}  // namespace
}  // namespace switchyard
