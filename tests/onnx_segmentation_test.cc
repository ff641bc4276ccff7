// An ONNX segmenter exported at 240x320 with dynamic height and width
// (tools/export_segmentation_model.py: torchvision's LRASPP on a narrow
// MobileNetV3-Large, ending in a bilinear Resize to the input's size) runs
// at 240x320, 300x260 and 512x512 from one loaded OnnxModel, without
// re-import, and matches PyTorch: max |diff| / max |output| <= 1e-4. Running
// the first size again compiles nothing new.

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
#include "tests/relative_diff.h"

namespace switchyard {
namespace {

constexpr const char* kDir = "tests/onnx_models/lraspp_mobilenet_v3_narrow";
constexpr const char* kSizes[] = {"240x320", "300x260", "512x512"};

// The model's output on input_<size>.npy, relative to output_<size>.npy.
absl::StatusOr<double> RunSize(OnnxModel& model, BackendDevice& device,
                               const std::string& size) {
  SY_ASSIGN_OR_RETURN(HostArray input,
                      ReadNpy(absl::StrCat(kDir, "/input_", size, ".npy")));
  SY_ASSIGN_OR_RETURN(HostArray want,
                      ReadNpy(absl::StrCat(kDir, "/output_", size, ".npy")));
  SY_ASSIGN_OR_RETURN(Tensor x, Tensor::FromBytes(input.shape, input.dtype,
                                                  input.bytes.data(),
                                                  input.bytes.size(), device));
  const std::vector<Tensor> inputs = {x};
  SY_ASSIGN_OR_RETURN(std::vector<Tensor> y, model.Run(inputs));
  if (y.size() != 1) {
    return absl::InternalError(absl::StrCat(y.size(), " outputs, not 1"));
  }
  SY_ASSIGN_OR_RETURN(std::vector<char> bytes, y[0].ToBytes());
  const HostArray got(y[0].shape(), y[0].dtype(), std::move(bytes));
  if (got.shape != want.shape) {
    return absl::InternalError(absl::StrCat("output ", got.shape.ToString(),
                                            ", PyTorch's ", want.shape.ToString()));
  }
  return RelativeDiff(got, want);
}

class OnnxSegmentationTest : public testing::TestWithParam<std::string> {};

TEST_P(OnnxSegmentationTest, OneModelRunsEverySize) {
  BackendRegistry& registry = BackendRegistry::Global();
  const Device device = *Device::Parse(GetParam());
  absl::StatusOr<BackendDevice*> backend = registry.GetDevice(device);
  if (!backend.ok()) GTEST_SKIP() << backend.status().message();
  absl::StatusOr<std::unique_ptr<OnnxModel>> model =
      OnnxModel::Load(absl::StrCat(kDir, "/model.onnx"), registry);
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_TRUE((*model)->To(device).ok());

  for (const char* size : kSizes) {
    absl::StatusOr<double> diff = RunSize(**model, **backend, size);
    ASSERT_TRUE(diff.ok()) << size << ": " << diff.status();
    EXPECT_LE(*diff, 1e-4) << size;
    RecordProperty(absl::StrCat("diff_", size), absl::StrCat(*diff));
    std::printf("%s %s: max |diff| / max |output| = %.3g\n",
                GetParam().c_str(), size, *diff);
  }
  const onnx_import::StagedRunStats first = (*model)->run_stats();
  EXPECT_EQ(first.runs, 3);
  EXPECT_GE(first.plans_compiled, 3);  // a plan (or more) per size

  // The first size again: every segment comes from the cache.
  absl::StatusOr<double> again = RunSize(**model, **backend, kSizes[0]);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_LE(*again, 1e-4);
  const onnx_import::StagedRunStats second = (*model)->run_stats();
  EXPECT_EQ(second.plans_compiled, first.plans_compiled);
  EXPECT_GT(second.plan_cache_hits, first.plan_cache_hits);
  std::printf("%s: plans compiled %lld after three sizes, %lld after 240x320 "
              "again; cache hits %lld -> %lld\n",
              GetParam().c_str(), static_cast<long long>(first.plans_compiled),
              static_cast<long long>(second.plans_compiled),
              static_cast<long long>(first.plan_cache_hits),
              static_cast<long long>(second.plan_cache_hits));
}

INSTANTIATE_TEST_SUITE_P(Devices, OnnxSegmentationTest,
                         testing::Values("cpu:0", "ref:0", "cuda:0"),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (c == ':') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace switchyard
