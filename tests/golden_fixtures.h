#ifndef SWITCHYARD_TESTS_GOLDEN_FIXTURES_H_
#define SWITCHYARD_TESTS_GOLDEN_FIXTURES_H_

// Reading the PyTorch golden fixtures in tests/golden/data (made by
// tools/make_goldens.py and committed, so no test needs PyTorch), for every
// test that runs them: golden_test (every device), dnnl_golden_test,
// conv_algorithm_test and nms_golden_test.
//
//   for (const std::string& file : golden::OpCaseFiles()) {
//     absl::StatusOr<golden::OpGolden> op = golden::ReadOpGolden(file, device);
//     ... Compile(std::move(op->graph)), Run(op->inputs) ...
//     golden::ExpectOpClose(*(*out)[0].ToVector(), op->want, file);
//   }
//
// Tolerances (the fixtures' contract): per element |got - want| <=
// 1e-5 + 1e-4 * |want| for single ops; <= 1e-4 * max|want| for models
// (float32 sums in another order).

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attributes.h"
#include "core/device.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "models/host_array.h"
#include "models/module.h"
#include "models/vgg.h"

namespace switchyard {
namespace golden {

inline constexpr char kDataDir[] = "tests/golden/data";

// The single-op fixtures' file names in kDataDir (OP__CASE.safetensors),
// sorted.
std::vector<std::string> OpCaseFiles();

// A fixture's "attrs" metadata (a JSON object the scripts wrote) as graph
// attributes: booleans, integers, floats and integer lists.
absl::StatusOr<AttrMap> ParseAttrs(const std::string& json);

// `array` as a tensor on `device` of the global registry (a failed check of
// the test when that fails).
Tensor OnDevice(const HostArray& array, const Device& device);

// One single-op fixture as a one-node graph on `device`: the op's inputs
// ("input", or "input0" and "input1") are graph inputs, its parameters
// ("weight", "bias", "running_mean", "running_var") constants on `device`.
struct OpGolden {
  std::string op;
  Graph graph;
  std::vector<Tensor> inputs;  // for graph's inputs, in order
  HostArray want;              // PyTorch's output
};
absl::StatusOr<OpGolden> ReadOpGolden(const std::string& file,
                                      const Device& device);

// A model fixture (NAME.safetensors): the model's input, PyTorch's output,
// and the rest of the file, the model's state dict.
struct ModelGolden {
  HostArray input, want;
  std::map<std::string, HostArray> state;
  std::map<std::string, std::string> metadata;
};
absl::StatusOr<ModelGolden> ReadModelGolden(const std::string& name);

// The reduced VGG of "vgg_small" from its metadata.
absl::StatusOr<nn::VggConfig> VggConfigOf(const ModelGolden& golden);

// The model of "conv_bn_small", in torchvision's vgg*_bn layout (a child
// "features" holding conv, bn, relu, conv, bn, relu), so that the state
// dict's names are PyTorch's.
class ConvBnSmall : public Module {
 public:
  ConvBnSmall();
  std::string type_name() const override { return "ConvBnSmall"; }
  absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                const std::string& path) const override;

 private:
  Module* features_;
};

// The fixtures' tolerances as test expectations; `what` names the case.
void ExpectOpClose(const std::vector<float>& got, const HostArray& want,
                   const std::string& what);
void ExpectModelClose(const std::vector<float>& got, const HostArray& want,
                      const std::string& what);

}  // namespace golden
}  // namespace switchyard

#endif  // SWITCHYARD_TESTS_GOLDEN_FIXTURES_H_
