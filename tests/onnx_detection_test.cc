// Detectors exported once with a dynamic image size run at several sizes
// from one loaded OnnxModel and find what PyTorch finds: the same number of
// detections, and each of PyTorch's matched by one of Switchyard's with its
// label, its box and its score within rtol 1e-3, atol 1e-5 (how
// torchvision's own ONNX tests compare ONNX Runtime; matched as sets, since
// boxes of equal score may come in either order), and Mask R-CNN's mask of
// each matched detection within the same tolerance.
//   fasterrcnn_narrow (tools/export_detection_model.py): 200x240, 240x200,
//     180x300.
//   retinanet_resnet50_fpn_narrow, ssdlite320_mobilenet_v3_large_narrow,
//     maskrcnn_resnet50_fpn_narrow (tools/export_family_models.py): 96x128,
//     128x96.
// Outputs are found by name (boxes, labels, scores, masks): RetinaNet and
// SSD give scores before labels.

#include <algorithm>
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
#include "tests/exported_model_runs.h"

namespace switchyard {
namespace {


bool Close(double got, double want) { return std::abs(got - want) <= 1e-5 + 1e-3 * std::abs(want); }

struct Detections {
  std::vector<float> boxes;  // 4 per detection
  std::vector<int64_t> labels;
  std::vector<float> scores;
  std::vector<float> masks;  // Mask R-CNN's: one image-sized map each
};

std::vector<float> Floats(const HostArray& a) {
  std::vector<float> v;
  for (int64_t i = 0; i < a.num_elements(); ++i) v.push_back(a.ElementAsDouble(i));
  return v;
}

absl::StatusOr<Detections> ReadExpected(const std::string& dir, const std::string& size,
                                        bool masks) {
  Detections d;
  SY_ASSIGN_OR_RETURN(HostArray boxes, ReadNpy(absl::StrCat(dir, "/boxes_", size, ".npy")));
  SY_ASSIGN_OR_RETURN(HostArray labels, ReadNpy(absl::StrCat(dir, "/labels_", size, ".npy")));
  SY_ASSIGN_OR_RETURN(HostArray scores, ReadNpy(absl::StrCat(dir, "/scores_", size, ".npy")));
  d.boxes = Floats(boxes);
  for (int64_t i = 0; i < labels.num_elements(); ++i) {
    d.labels.push_back(static_cast<int64_t>(labels.ElementAsDouble(i)));
  }
  d.scores = Floats(scores);
  if (masks) {
    SY_ASSIGN_OR_RETURN(HostArray m, ReadNpy(absl::StrCat(dir, "/masks_", size, ".npy")));
    d.masks = Floats(m);
  }
  return d;
}

absl::StatusOr<Detections> Detect(OnnxModel& model, BackendDevice& device,
                                  const ExportedModelRun& run, const std::string& size) {
  SY_ASSIGN_OR_RETURN(std::vector<Tensor> inputs, ReadInputs(run, size, device));
  SY_ASSIGN_OR_RETURN(std::vector<Tensor> y, model.Run(inputs));
  const std::vector<std::string> names = model.OutputNames();
  if (y.size() != names.size()) {
    return absl::InternalError(absl::StrCat(y.size(), " outputs for ", names.size(), " names"));
  }
  Detections d;
  for (size_t i = 0; i < y.size(); ++i) {
    if (names[i] == "boxes") {
      SY_ASSIGN_OR_RETURN(d.boxes, y[i].ToHost<float>());
    } else if (names[i] == "labels") {
      SY_ASSIGN_OR_RETURN(d.labels, y[i].ToHost<int64_t>());
    } else if (names[i] == "scores") {
      SY_ASSIGN_OR_RETURN(d.scores, y[i].ToHost<float>());
    } else if (names[i] == "masks") {
      SY_ASSIGN_OR_RETURN(d.masks, y[i].ToHost<float>());
    } else {
      return absl::InternalError(absl::StrCat("unexpected output '", names[i], "'"));
    }
  }
  return d;
}

// "" when every expected detection has its own match in `got` (and, with
// masks, its mask matches that detection's).
std::string Unmatched(const Detections& got, const Detections& want) {
  if (got.labels.size() != want.labels.size()) {
    return absl::StrCat(got.labels.size(), " detections, PyTorch ", want.labels.size());
  }
  if (got.masks.size() != want.masks.size()) {
    return absl::StrCat(got.masks.size(), " mask values, PyTorch ", want.masks.size());
  }
  const size_t mask_size = want.labels.empty() ? 0 : want.masks.size() / want.labels.size();
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
      for (size_t k = 0; found && k < mask_size; ++k) {
        if (!Close(got.masks[g * mask_size + k], want.masks[w * mask_size + k])) {
          return absl::StrCat("the mask of PyTorch's detection ", w, " differs at ", k, ": ",
                              got.masks[g * mask_size + k], " vs ",
                              want.masks[w * mask_size + k]);
        }
      }
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

class OnnxDetectionTest : public testing::TestWithParam<ExportedModelRun> {};

TEST_P(OnnxDetectionTest, OneModelDetectsAtEverySize) {
  const ExportedModelRun& p = GetParam();
  BackendDevice* device = nullptr;
  absl::StatusOr<std::unique_ptr<OnnxModel>> model = LoadOnDevice(p, &device);
  if (absl::IsUnavailable(model.status())) GTEST_SKIP() << model.status().message();
  ASSERT_TRUE(model.ok()) << model.status();
  const std::vector<std::string> names = (*model)->OutputNames();
  const bool masks = std::find(names.begin(), names.end(), "masks") != names.end();
  for (const std::string& size : p.sizes) {
    absl::StatusOr<Detections> want = ReadExpected(ModelDir(p), size, masks);
    ASSERT_TRUE(want.ok()) << want.status();
    absl::StatusOr<Detections> got = Detect(**model, *device, p, size);
    ASSERT_TRUE(got.ok()) << size << ": " << got.status();
    EXPECT_EQ(Unmatched(*got, *want), "") << size;
    std::printf("%s on %s, %s: %zu detections%s, all matched PyTorch's\n", p.model.c_str(),
                p.device.c_str(), size.c_str(), got->labels.size(),
                masks ? " with masks" : "");
  }
  const onnx_import::StagedRunStats stats = (*model)->run_stats();
  std::printf("%s on %s: %lld runs, %lld plans compiled, %lld host steps, %lld run-time "
              "copies\n", p.model.c_str(), p.device.c_str(),
              static_cast<long long>(stats.runs),
              static_cast<long long>(stats.plans_compiled),
              static_cast<long long>(stats.host_steps),
              static_cast<long long>(stats.run_time_copies));
}

INSTANTIATE_TEST_SUITE_P(
    Models, OnnxDetectionTest,
    testing::ValuesIn(OnDevices(
        {
            {"fasterrcnn_narrow", {"200x240", "240x200", "180x300"}},
            {"retinanet_resnet50_fpn_narrow", {"96x128", "128x96"}},
            {"ssdlite320_mobilenet_v3_large_narrow", {"96x128", "128x96"}},
            {"maskrcnn_resnet50_fpn_narrow", {"96x128", "128x96"}},
        },
        {"cpu:0", "ref:0", "cuda:0"})),
    ExportedModelRunName);

}  // namespace
}  // namespace switchyard
