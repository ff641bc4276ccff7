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

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "onnx/onnx_model.h"
#include "tests/exported_model_runs.h"

namespace switchyard {
namespace {

class OnnxSequenceTest : public testing::TestWithParam<ExportedModelRun> {};

TEST_P(OnnxSequenceTest, OneModelRunsEveryLength) {
  const ExportedModelRun& p = GetParam();
  BackendDevice* device = nullptr;
  absl::StatusOr<std::unique_ptr<OnnxModel>> model = LoadOnDevice(p, &device);
  if (absl::IsUnavailable(model.status())) GTEST_SKIP() << model.status().message();
  ASSERT_TRUE(model.ok()) << model.status();

  for (const std::string& length : p.sizes) {
    absl::StatusOr<double> diff = RelativeDiffAt(**model, *device, p, length);
    ASSERT_TRUE(diff.ok()) << "length " << length << ": " << diff.status();
    EXPECT_LE(*diff, 1e-4) << "length " << length;
    std::printf("%s on %s, length %s: max |diff| / max |output| = %.3g\n",
                p.model.c_str(), p.device.c_str(), length.c_str(), *diff);
  }
  const onnx_import::StagedRunStats first = (*model)->run_stats();
  absl::StatusOr<double> again = RelativeDiffAt(**model, *device, p, p.sizes[0]);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_LE(*again, 1e-4);
  EXPECT_EQ((*model)->run_stats().plans_compiled, first.plans_compiled);
}

INSTANTIATE_TEST_SUITE_P(
    Models, OnnxSequenceTest,
    testing::ValuesIn(OnDevices(
        {
            {"recurrent_narrow", {"7", "3", "12"}},
            {"transformer_encoder_narrow", {"7", "3", "12"}, {"input", "mask"}},
        },
        {"cpu:0", "ref:0"})),
    ExportedModelRunName);

}  // namespace
}  // namespace switchyard
