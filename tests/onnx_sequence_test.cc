// Two sequence models exported once with a symbolic batch and sequence
// length (tools/export_sequence_models.py) run at three lengths from one
// loaded OnnxModel and match PyTorch: max |diff| / max |output| <= 1e-4.
//   recurrent_narrow: bidirectional 2-layer LSTM, GRU, RNN, an Einsum head.
//   transformer_encoder_narrow: int64 token ids and a bool padding mask
//     through an embedding and a 2-layer transformer encoder.
// Running the first length again compiles nothing new.

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

constexpr const char* kLengths[] = {"7", "3", "12"};

struct Param {
  std::string model;
  std::vector<std::string> inputs;  // file prefixes, in the model's order
  std::string device;
};

absl::StatusOr<Tensor> ReadInput(const std::string& path, BackendDevice& device) {
  SY_ASSIGN_OR_RETURN(HostArray a, ReadNpy(path));
  return Tensor::FromBytes(a.shape, a.dtype, a.bytes.data(), a.bytes.size(), device);
}

// The model's output at one length, relative to PyTorch's.
absl::StatusOr<double> RunLength(OnnxModel& model, BackendDevice& device, const Param& p,
                                 const std::string& length) {
  const std::string dir = absl::StrCat("tests/onnx_models/", p.model, "/");
  std::vector<Tensor> inputs;
  for (const std::string& prefix : p.inputs) {
    SY_ASSIGN_OR_RETURN(Tensor t, ReadInput(absl::StrCat(dir, prefix, "_", length, ".npy"),
                                            device));
    inputs.push_back(std::move(t));
  }
  SY_ASSIGN_OR_RETURN(HostArray want, ReadNpy(absl::StrCat(dir, "output_", length, ".npy")));
  SY_ASSIGN_OR_RETURN(std::vector<Tensor> y, model.Run(inputs));
  if (y.size() != 1) return absl::InternalError(absl::StrCat(y.size(), " outputs, not 1"));
  SY_ASSIGN_OR_RETURN(std::vector<char> bytes, y[0].ToBytes());
  const HostArray got(y[0].shape(), y[0].dtype(), std::move(bytes));
  if (got.shape != want.shape) {
    return absl::InternalError(absl::StrCat("output ", got.shape.ToString(),
                                            ", PyTorch's ", want.shape.ToString()));
  }
  return RelativeDiff(got, want);
}

class OnnxSequenceTest : public testing::TestWithParam<Param> {};

TEST_P(OnnxSequenceTest, OneModelRunsEveryLength) {
  const Param& p = GetParam();
  BackendRegistry& registry = BackendRegistry::Global();
  const Device device = *Device::Parse(p.device);
  absl::StatusOr<BackendDevice*> backend = registry.GetDevice(device);
  if (!backend.ok()) GTEST_SKIP() << backend.status().message();
  absl::StatusOr<std::unique_ptr<OnnxModel>> model = OnnxModel::Load(
      absl::StrCat("tests/onnx_models/", p.model, "/model.onnx"), registry);
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_TRUE((*model)->To(device).ok());

  for (const char* length : kLengths) {
    absl::StatusOr<double> diff = RunLength(**model, **backend, p, length);
    ASSERT_TRUE(diff.ok()) << "length " << length << ": " << diff.status();
    EXPECT_LE(*diff, 1e-4) << "length " << length;
    std::printf("%s on %s, length %s: max |diff| / max |output| = %.3g\n",
                p.model.c_str(), p.device.c_str(), length, *diff);
  }
  const onnx_import::StagedRunStats first = (*model)->run_stats();
  absl::StatusOr<double> again = RunLength(**model, **backend, p, kLengths[0]);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_LE(*again, 1e-4);
  EXPECT_EQ((*model)->run_stats().plans_compiled, first.plans_compiled);
}

std::vector<Param> Params() {
  std::vector<Param> params;
  for (const char* device : {"cpu:0", "ref:0"}) {
    params.push_back({"recurrent_narrow", {"input"}, device});
    params.push_back({"transformer_encoder_narrow", {"input", "mask"}, device});
  }
  return params;
}

INSTANTIATE_TEST_SUITE_P(Models, OnnxSequenceTest, testing::ValuesIn(Params()),
                         [](const testing::TestParamInfo<Param>& info) {
                           std::string name = absl::StrCat(info.param.model, "_",
                                                           info.param.device);
                           for (char& c : name) {
                             if (c == ':') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace switchyard
