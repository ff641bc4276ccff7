// The torchvision classification families exported to ONNX by
// tools/export_onnx_models.py (small variants in tests/onnx_models/), run on
// every device and compared with PyTorch's logits and ONNX Runtime's:
// max |diff| / max |logit| <= 1e-4 (issue 11).

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/backend_registry.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "models/host_array.h"
#include "models/npy.h"
#include "onnx/onnx_model.h"
#include "tests/relative_diff.h"

namespace switchyard {
namespace {

constexpr const char* kModels[] = {
    "alexnet",        "convnext_tiny",      "densenet121",
    "efficientnet_b0", "googlenet",         "mobilenet_v2",
    "mobilenet_v3_small", "resnet18",       "resnet18_dynamic",
    "resnet50",       "shufflenet_v2_x1_0", "squeezenet1_1",
    "vgg11_bn",       "vit_b_16",           "vit_b_16_dynamic",
};

struct Param {
  std::string model;
  std::string device;
};

std::string Name(const testing::TestParamInfo<Param>& info) {
  std::string device = info.param.device;
  for (char& c : device) {
    if (c == ':') c = '_';
  }
  return absl::StrCat(info.param.model, "_", device);
}

std::vector<Param> Params() {
  std::vector<Param> params;
  for (const char* model : kModels) {
    for (const char* device : {"cpu:0", "ref:0", "cuda:0"}) {
      params.push_back({model, device});
    }
  }
  return params;
}

class OnnxModelsTest : public testing::TestWithParam<Param> {};

TEST_P(OnnxModelsTest, MatchesPyTorchAndOnnxRuntime) {
  BackendRegistry& registry = BackendRegistry::Global();
  const Device device = *Device::Parse(GetParam().device);
  absl::StatusOr<BackendDevice*> backend = registry.GetDevice(device);
  if (!backend.ok()) GTEST_SKIP() << backend.status().message();
  const std::string dir = absl::StrCat("tests/onnx_models/", GetParam().model);

  absl::StatusOr<std::unique_ptr<OnnxModel>> model =
      OnnxModel::Load(dir + "/model.onnx", registry);
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_TRUE((*model)->To(device).ok());
  absl::StatusOr<HostArray> input = ReadNpy(dir + "/input.npy");
  ASSERT_TRUE(input.ok()) << input.status();
  absl::StatusOr<Tensor> x = Tensor::FromBytes(
      input->shape, input->dtype, input->bytes.data(), input->bytes.size(), **backend);
  ASSERT_TRUE(x.ok()) << x.status();
  const std::vector<Tensor> inputs = {*x};
  absl::StatusOr<std::vector<Tensor>> y =
      (*model)->Forward(absl::MakeConstSpan(inputs));
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ(y->size(), 1u);
  absl::StatusOr<std::vector<char>> bytes = (*y)[0].ToBytes();
  ASSERT_TRUE(bytes.ok());
  const HostArray got((*y)[0].shape(), (*y)[0].dtype(), std::move(*bytes));

  for (const char* reference : {"output_pytorch.npy", "output_onnxruntime.npy"}) {
    absl::StatusOr<HostArray> want = ReadNpy(absl::StrCat(dir, "/", reference));
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_EQ(got.shape, want->shape) << reference;
    const double diff = RelativeDiff(got, *want);
    EXPECT_LE(diff, 1e-4) << reference;
    RecordProperty(reference, absl::StrCat(diff));
  }
}

INSTANTIATE_TEST_SUITE_P(Families, OnnxModelsTest, testing::ValuesIn(Params()), Name);

}  // namespace
}  // namespace switchyard
