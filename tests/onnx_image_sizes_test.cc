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

#include <cstdio>
#include <memory>
#include <string>
#include <utility>
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

struct Param {
  std::string model;               // its folder in tests/onnx_models
  std::vector<std::string> sizes;  // HxW, the export's first
  std::string device;
};

// The model's output on input_<size>.npy, relative to output_<size>.npy.
absl::StatusOr<double> RunSize(OnnxModel& model, BackendDevice& device,
                               const std::string& dir, const std::string& size) {
  SY_ASSIGN_OR_RETURN(HostArray input,
                      ReadNpy(absl::StrCat(dir, "/input_", size, ".npy")));
  SY_ASSIGN_OR_RETURN(HostArray want,
                      ReadNpy(absl::StrCat(dir, "/output_", size, ".npy")));
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

class OnnxImageSizesTest : public testing::TestWithParam<Param> {};

TEST_P(OnnxImageSizesTest, OneModelRunsEverySize) {
  const Param& p = GetParam();
  BackendRegistry& registry = BackendRegistry::Global();
  const Device device = *Device::Parse(p.device);
  absl::StatusOr<BackendDevice*> backend = registry.GetDevice(device);
  if (!backend.ok()) GTEST_SKIP() << backend.status().message();
  const std::string dir = absl::StrCat("tests/onnx_models/", p.model);
  absl::StatusOr<std::unique_ptr<OnnxModel>> model =
      OnnxModel::Load(absl::StrCat(dir, "/model.onnx"), registry);
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_TRUE((*model)->To(device).ok());

  for (const std::string& size : p.sizes) {
    absl::StatusOr<double> diff = RunSize(**model, **backend, dir, size);
    ASSERT_TRUE(diff.ok()) << size << ": " << diff.status();
    EXPECT_LE(*diff, 1e-4) << size;
    std::printf("%s on %s, %s: max |diff| / max |output| = %.3g\n", p.model.c_str(),
                p.device.c_str(), size.c_str(), *diff);
  }
  const onnx_import::StagedRunStats first = (*model)->run_stats();
  EXPECT_EQ(first.runs, static_cast<int64_t>(p.sizes.size()));
  EXPECT_GE(first.plans_compiled, static_cast<int64_t>(p.sizes.size()));

  // The first size again: every segment comes from the cache.
  absl::StatusOr<double> again = RunSize(**model, **backend, dir, p.sizes[0]);
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

std::vector<Param> Params() {
  const std::vector<std::pair<std::string, std::vector<std::string>>> models = {
      {"lraspp_mobilenet_v3_narrow", {"240x320", "300x260", "512x512"}},
      {"fcn_resnet50_narrow", {"96x128", "128x96"}},
      {"deeplabv3_mobilenet_v3_large_narrow", {"96x128", "128x96"}},
      {"swin_t_narrow", {"96x128", "128x96"}},
  };
  std::vector<Param> params;
  for (const char* device : {"cpu:0", "ref:0", "cuda:0"}) {
    for (const auto& [model, sizes] : models) params.push_back({model, sizes, device});
  }
  return params;
}

INSTANTIATE_TEST_SUITE_P(Models, OnnxImageSizesTest, testing::ValuesIn(Params()),
                         [](const testing::TestParamInfo<Param>& info) {
                           std::string name =
                               absl::StrCat(info.param.model, "_", info.param.device);
                           for (char& c : name) {
                             if (c == ':') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace switchyard
