#ifndef SWITCHYARD_TESTS_EXPORTED_MODEL_RUNS_H_
#define SWITCHYARD_TESTS_EXPORTED_MODEL_RUNS_H_

// What the tests of models exported once and run at several input sizes
// share (tests/onnx_image_sizes_test.cc, onnx_sequence_test.cc,
// onnx_detection_test.cc): the parameters (a model folder of
// tests/onnx_models, the sizes its files are named by, the inputs' file
// prefixes, a device), gtest's names, and one run compared with PyTorch's
// output file.
//
//   INSTANTIATE_TEST_SUITE_P(Models, MyTest,
//       testing::ValuesIn(OnDevices({{"fcn_resnet50_narrow", {"96x128"}}},
//                                   {"cpu:0", "ref:0"})),
//       ExportedModelRunName);

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/backend_registry.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "onnx/onnx_model.h"

namespace switchyard {

struct ExportedModelRun {
  std::string model;               // its folder in tests/onnx_models
  std::vector<std::string> sizes;  // "96x128", "7": file suffixes, the export's first
  std::vector<std::string> inputs = {"input"};  // file prefixes, in the model's order
  std::string device;
};

// Every model on every device.
std::vector<ExportedModelRun> OnDevices(const std::vector<ExportedModelRun>& models,
                                        const std::vector<std::string>& devices);

// "<model>_<device>", ':' as '_'.
std::string ExportedModelRunName(const testing::TestParamInfo<ExportedModelRun>& info);

// "tests/onnx_models/<model>".
std::string ModelDir(const ExportedModelRun& run);

// The model loaded and moved to run.device (whose BackendDevice is
// `*device`); Unavailable when this machine lacks the device.
absl::StatusOr<std::unique_ptr<OnnxModel>> LoadOnDevice(const ExportedModelRun& run,
                                                        BackendDevice** device);

// The inputs <prefix>_<size>.npy on `device`.
absl::StatusOr<std::vector<Tensor>> ReadInputs(const ExportedModelRun& run,
                                               const std::string& size,
                                               BackendDevice& device);

// The model's one output on the inputs of `size`, relative to
// output_<size>.npy: max |diff| / max |output|.
absl::StatusOr<double> RelativeDiffAt(OnnxModel& model, BackendDevice& device,
                                      const ExportedModelRun& run, const std::string& size);

}  // namespace switchyard

#endif  // SWITCHYARD_TESTS_EXPORTED_MODEL_RUNS_H_
