#include "tests/exported_model_runs.h"

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "models/host_array.h"
#include "models/npy.h"
#include "tests/relative_diff.h"

namespace switchyard {

std::vector<ExportedModelRun> OnDevices(const std::vector<ExportedModelRun>& models,
                                        const std::vector<std::string>& devices) {
  std::vector<ExportedModelRun> runs;
  for (const std::string& device : devices) {
    for (ExportedModelRun run : models) {
      run.device = device;
      runs.push_back(std::move(run));
    }
  }
  return runs;
}

std::string ExportedModelRunName(const testing::TestParamInfo<ExportedModelRun>& info) {
  std::string name = absl::StrCat(info.param.model, "_", info.param.device);
  for (char& c : name) {
    if (c == ':') c = '_';
  }
  return name;
}

std::string ModelDir(const ExportedModelRun& run) {
  return absl::StrCat("tests/onnx_models/", run.model);
}

absl::StatusOr<std::unique_ptr<OnnxModel>> LoadOnDevice(const ExportedModelRun& run,
                                                        BackendDevice** device) {
  BackendRegistry& registry = BackendRegistry::Global();
  SY_ASSIGN_OR_RETURN(Device d, Device::Parse(run.device));
  absl::StatusOr<BackendDevice*> backend = registry.GetDevice(d);
  if (!backend.ok()) return absl::UnavailableError(backend.status().message());
  *device = *backend;
  SY_ASSIGN_OR_RETURN(std::unique_ptr<OnnxModel> model,
                      OnnxModel::Load(absl::StrCat(ModelDir(run), "/model.onnx"), registry));
  SY_RETURN_IF_ERROR(model->To(d));
  return model;
}

absl::StatusOr<std::vector<Tensor>> ReadInputs(const ExportedModelRun& run,
                                               const std::string& size,
                                               BackendDevice& device) {
  std::vector<Tensor> inputs;
  for (const std::string& prefix : run.inputs) {
    SY_ASSIGN_OR_RETURN(HostArray a,
                        ReadNpy(absl::StrCat(ModelDir(run), "/", prefix, "_", size, ".npy")));
    SY_ASSIGN_OR_RETURN(Tensor t, Tensor::FromBytes(a.shape, a.dtype, a.bytes.data(),
                                                    a.bytes.size(), device));
    inputs.push_back(std::move(t));
  }
  return inputs;
}

absl::StatusOr<double> RelativeDiffAt(OnnxModel& model, BackendDevice& device,
                                      const ExportedModelRun& run, const std::string& size) {
  SY_ASSIGN_OR_RETURN(std::vector<Tensor> inputs, ReadInputs(run, size, device));
  SY_ASSIGN_OR_RETURN(HostArray want,
                      ReadNpy(absl::StrCat(ModelDir(run), "/output_", size, ".npy")));
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

}  // namespace switchyard
