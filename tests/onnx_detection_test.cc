// An ONNX Faster R-CNN exported at 200x240 with dynamic image size
// (tools/export_detection_model.py: torchvision's FasterRCNN on a narrow
// backbone with an FPN) runs at 200x240, 240x200 and 180x300 from one loaded
// OnnxModel and finds what PyTorch finds: the same number of detections,
// and each of PyTorch's matched by one of Switchyard's with its label, its
// box and its score within rtol 1e-3, atol 1e-5 (how torchvision's own ONNX
// tests compare ONNX Runtime; matched as sets, since boxes of equal score
// may come in either order).

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/backend_registry.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "models/host_array.h"
#include "models/npy.h"
#include "onnx/onnx_model.h"

namespace switchyard {
namespace {

constexpr const char* kDir = "tests/onnx_models/fasterrcnn_narrow";
constexpr const char* kSizes[] = {"200x240", "240x200", "180x300"};

bool Close(double got, double want) { return std::abs(got - want) <= 1e-5 + 1e-3 * std::abs(want); }

struct Detections {
  std::vector<float> boxes;  // 4 per detection
  std::vector<int64_t> labels;
  std::vector<float> scores;
};

absl::StatusOr<Detections> ReadExpected(const std::string& size) {
  Detections d;
  SY_ASSIGN_OR_RETURN(HostArray boxes, ReadNpy(absl::StrCat(kDir, "/boxes_", size, ".npy")));
  SY_ASSIGN_OR_RETURN(HostArray labels, ReadNpy(absl::StrCat(kDir, "/labels_", size, ".npy")));
  SY_ASSIGN_OR_RETURN(HostArray scores, ReadNpy(absl::StrCat(kDir, "/scores_", size, ".npy")));
  for (int64_t i = 0; i < boxes.num_elements(); ++i) d.boxes.push_back(boxes.ElementAsDouble(i));
  for (int64_t i = 0; i < labels.num_elements(); ++i) {
    d.labels.push_back(static_cast<int64_t>(labels.ElementAsDouble(i)));
  }
  for (int64_t i = 0; i < scores.num_elements(); ++i) d.scores.push_back(scores.ElementAsDouble(i));
  return d;
}

absl::StatusOr<Detections> Detect(OnnxModel& model, BackendDevice& device,
                                  const std::string& size) {
  SY_ASSIGN_OR_RETURN(HostArray image, ReadNpy(absl::StrCat(kDir, "/input_", size, ".npy")));
  SY_ASSIGN_OR_RETURN(Tensor x, Tensor::FromBytes(image.shape, image.dtype, image.bytes.data(),
                                                  image.bytes.size(), device));
  const std::vector<Tensor> inputs = {x};
  SY_ASSIGN_OR_RETURN(std::vector<Tensor> y, model.Run(inputs));
  if (y.size() != 3) return absl::InternalError(absl::StrCat(y.size(), " outputs, not 3"));
  Detections d;
  SY_ASSIGN_OR_RETURN(d.boxes, y[0].ToHost<float>());
  SY_ASSIGN_OR_RETURN(d.labels, y[1].ToHost<int64_t>());
  SY_ASSIGN_OR_RETURN(d.scores, y[2].ToHost<float>());
  return d;
}

// "" when every expected detection has its own match in `got`.
std::string Unmatched(const Detections& got, const Detections& want) {
  if (got.labels.size() != want.labels.size()) {
    return absl::StrCat(got.labels.size(), " detections, PyTorch ", want.labels.size());
  }
  std::vector<bool> used(got.labels.size(), false);
  for (size_t w = 0; w < want.labels.size(); ++w) {
    bool found = false;
    for (size_t g = 0; g < got.labels.size() && !found; ++g) {
      if (used[g] || got.labels[g] != want.labels[w] || !Close(got.scores[g], want.scores[w])) {
        continue;
      }
      bool box = true;
      for (int k = 0; k < 4; ++k) box &= Close(got.boxes[4 * g + k], want.boxes[4 * w + k]);
      if (box) used[g] = found = true;
    }
    if (!found) {
      return absl::StrCat("PyTorch's detection ", w, " (label ", want.labels[w], ", score ",
                          want.scores[w], ", box ", want.boxes[4 * w], ", ", want.boxes[4 * w + 1],
                          ", ", want.boxes[4 * w + 2], ", ", want.boxes[4 * w + 3],
                          ") has no match");
    }
  }
  return "";
}

class OnnxDetectionTest : public testing::TestWithParam<std::string> {};

TEST_P(OnnxDetectionTest, OneModelDetectsAtEverySize) {
  BackendRegistry& registry = BackendRegistry::Global();
  const Device device = *Device::Parse(GetParam());
  absl::StatusOr<BackendDevice*> backend = registry.GetDevice(device);
  if (!backend.ok()) GTEST_SKIP() << backend.status().message();
  absl::StatusOr<std::unique_ptr<OnnxModel>> model =
      OnnxModel::Load(absl::StrCat(kDir, "/model.onnx"), registry);
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_TRUE((*model)->To(device).ok());
  for (const char* size : kSizes) {
    absl::StatusOr<Detections> want = ReadExpected(size);
    ASSERT_TRUE(want.ok()) << want.status();
    absl::StatusOr<Detections> got = Detect(**model, **backend, size);
    ASSERT_TRUE(got.ok()) << size << ": " << got.status();
    EXPECT_EQ(Unmatched(*got, *want), "") << size;
    std::printf("%s %s: %zu detections, all matched PyTorch's\n", GetParam().c_str(), size,
                got->labels.size());
  }
  const onnx_import::StagedRunStats stats = (*model)->run_stats();
  std::printf("%s: %lld runs, %lld plans compiled, %lld host steps, %lld run-time copies\n",
              GetParam().c_str(), static_cast<long long>(stats.runs),
              static_cast<long long>(stats.plans_compiled),
              static_cast<long long>(stats.host_steps),
              static_cast<long long>(stats.run_time_copies));
}

INSTANTIATE_TEST_SUITE_P(Devices, OnnxDetectionTest, testing::Values("cpu:0", "ref:0", "cuda:0"),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (c == ':') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace switchyard
