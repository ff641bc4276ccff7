// Models exported once with a symbolic height and width run at several
// image sizes from one loaded OnnxModel, without re-import, and match
// PyTorch: max |diff| / max |output| <= 1e-4. Running the first size again
// compiles nothing new.
//   lraspp_mobilenet_v3_narrow (tools/export_segmentation_model.py):
//     torchvision's LRASPP ending in a bilinear Resize to the input's size,
//     at 240x320, 300x260 and 512x512.
//   fcn_resnet50_narrow, deeplabv3_mobilenet_v3_large_narrow, swin_t_narrow
//     (tools/export_family_models.py): torchvision's FCN and DeepLabV3
//     segmenters and a Swin classifier, at 96x128 and 128x96.
//   r3d_18_narrow (tools/export_family_models.py): torchvision's r3d_18
//     video classifier (3-D convolutions) on clips of 8x32x32 and 6x40x48.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "onnx/onnx_model.h"
#include "tests/exported_model_runs.h"

namespace switchyard {
namespace {

class OnnxImageSizesTest : public testing::TestWithParam<ExportedModelRun> {};

TEST_P(OnnxImageSizesTest, OneModelRunsEverySize) {
  const ExportedModelRun& p = GetParam();
  BackendDevice* device = nullptr;
  absl::StatusOr<std::unique_ptr<OnnxModel>> model = LoadOnDevice(p, &device);
  if (absl::IsUnavailable(model.status())) GTEST_SKIP() << model.status().message();
  ASSERT_TRUE(model.ok()) << model.status();

  for (const std::string& size : p.sizes) {
    absl::StatusOr<double> diff = RelativeDiffAt(**model, *device, p, size);
    ASSERT_TRUE(diff.ok()) << size << ": " << diff.status();
    EXPECT_LE(*diff, 1e-4) << size;
    std::printf("%s on %s, %s: max |diff| / max |output| = %.3g\n", p.model.c_str(),
                p.device.c_str(), size.c_str(), *diff);
  }
  const onnx_import::StagedRunStats first = (*model)->run_stats();
  EXPECT_EQ(first.runs, static_cast<int64_t>(p.sizes.size()));
  EXPECT_GE(first.plans_compiled, static_cast<int64_t>(p.sizes.size()));

  // The first size again: every segment comes from the cache.
  absl::StatusOr<double> again = RelativeDiffAt(**model, *device, p, p.sizes[0]);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_LE(*again, 1e-4);
  const onnx_import::StagedRunStats second = (*model)->run_stats();
  EXPECT_EQ(second.plans_compiled, first.plans_compiled);
  EXPECT_GT(second.plan_cache_hits, first.plan_cache_hits);
  std::printf("%s on %s: plans compiled %lld after every size, %lld after the first "
              "again\n", p.model.c_str(), p.device.c_str(),
              static_cast<long long>(first.plans_compiled),
              static_cast<long long>(second.plans_compiled));
}

INSTANTIATE_TEST_SUITE_P(
    Models, OnnxImageSizesTest,
    testing::ValuesIn(OnDevices(
        {
            {"lraspp_mobilenet_v3_narrow", {"240x320", "300x260", "512x512"}},
            {"fcn_resnet50_narrow", {"96x128", "128x96"}},
            {"deeplabv3_mobilenet_v3_large_narrow", {"96x128", "128x96"}},
            {"swin_t_narrow", {"96x128", "128x96"}},
            {"r3d_18_narrow", {"8x32x32", "6x40x48"}},
        },
        {"cpu:0", "ref:0", "cuda:0"})),
    ExportedModelRunName);

}  // namespace
}  // namespace switchyard
