#include "runtime/session.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "models/model_zoo.h"

namespace switchyard {
namespace runtime {
namespace {

// A dimension list as ValueInfo holds it: a size, or a symbolic name.
ValueInfo Declared(const std::string& name,
                   const std::vector<std::pair<std::optional<int64_t>, std::string>>& dims) {
  ValueInfo info;
  info.name = name;
  info.dtype = DType::kFloat32;
  info.has_shape = true;
  for (const auto& [size, dim_name] : dims) {
    info.dims.push_back(size);
    info.dim_names.push_back(dim_name);
  }
  return info;
}

// The built-in models (VGG) take one float32 image batch and give class
// scores.
std::vector<ValueInfo> BuiltinInputs() {
  return {Declared("input", {{std::nullopt, "batch"},
                             {3, ""},
                             {std::nullopt, "height"},
                             {std::nullopt, "width"}})};
}
std::vector<ValueInfo> BuiltinOutputs() {
  return {Declared("output", {{std::nullopt, "batch"}, {std::nullopt, ""}})};
}

}  // namespace

bool IsBuiltinModel(const std::string& name) {
  const std::vector<std::string> names = ModelNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool IsModelFile(const std::string& name) {
  return !IsBuiltinModel(name) && absl::EndsWith(name, ".onnx");
}

Session::Session(std::string name, std::unique_ptr<Module> module, OnnxModel* file,
                 BackendRegistry& registry)
    : registry_(&registry), name_(std::move(name)), module_(std::move(module)), file_(file) {
  if (file_ != nullptr) {
    inputs_ = file_->inputs();
    outputs_ = file_->outputs();
  } else {
    inputs_ = BuiltinInputs();
    outputs_ = BuiltinOutputs();
  }
}

Session::~Session() = default;

std::unique_ptr<Session> Session::FromFile(std::string name, std::unique_ptr<OnnxModel> file,
                                           BackendRegistry& registry) {
  OnnxModel* typed = file.get();
  return std::unique_ptr<Session>(
      new Session(std::move(name), std::unique_ptr<Module>(std::move(file)), typed, registry));
}

absl::StatusOr<std::unique_ptr<Session>> Session::Open(const std::string& model,
                                                       BackendRegistry& registry) {
  if (IsModelFile(model)) {
    return OpenFile(model, registry);
  }
  // A built-in model, or the zoo's error naming every model there is.
  SY_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, CreateModel(model, registry));
  if (!IsBuiltinModel(model)) {
    return absl::UnimplementedError(absl::StrCat(
        model, ": a model file format other than .onnx is registered, but a session opens "
        "only the built-in models (", absl::StrJoin(ModelNames(), ", "), ") and .onnx files"));
  }
  return std::unique_ptr<Session>(new Session(model, std::move(module), nullptr, registry));
}

absl::StatusOr<std::unique_ptr<Session>> Session::OpenFile(const std::string& path,
                                                           BackendRegistry& registry) {
  SY_ASSIGN_OR_RETURN(std::unique_ptr<OnnxModel> file, OnnxModel::Load(path, registry));
  return FromFile(path, std::move(file), registry);
}

absl::StatusOr<std::unique_ptr<Session>> Session::OpenBytes(absl::string_view bytes,
                                                            const std::string& name,
                                                            BackendRegistry& registry) {
  SY_ASSIGN_OR_RETURN(std::unique_ptr<OnnxModel> file,
                      OnnxModel::LoadFromBytes(bytes, name, "", registry));
  std::unique_ptr<Session> session = FromFile(name, std::move(file), registry);
  session->from_bytes_ = true;
  return session;
}

absl::StatusOr<std::unique_ptr<Session>> Session::Create(const std::string& model,
                                                         const SessionOptions& options,
                                                         BackendRegistry& registry) {
  SY_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Open(model, registry));
  SY_RETURN_IF_ERROR(session->Initialize(options));
  return session;
}

absl::StatusOr<std::vector<ValueInfo>> Session::DeclaredInputs(const std::string& model,
                                                               BackendRegistry& registry) {
  if (IsBuiltinModel(model)) return BuiltinInputs();
  // The declarations alone: converting the graph is for when it runs.
  SY_ASSIGN_OR_RETURN(std::unique_ptr<OnnxModel> file,
                      OnnxModel::Load(model, registry, /*check=*/false));
  return file->inputs();
}

absl::Status Session::Initialize(const SessionOptions& options) {
  if (options.max_loop_iterations.has_value() && !builtin()) {
    SY_RETURN_IF_ERROR(SetMaxLoopIterations(*options.max_loop_iterations));
  }
  SY_RETURN_IF_ERROR(To(options.device));
  SY_RETURN_IF_ERROR(options.weights.empty() ? InitializeWeights(options.seed)
                                             : LoadWeights(options.weights));
  set_placement(options.placement);
  return absl::OkStatus();
}

absl::Status Session::To(const Device& device) { return module_->To(device); }

absl::Status Session::InitializeWeights(uint64_t seed) {
  // A model file's parameters have their values: InitializeModel leaves them.
  return InitializeModel(*module_, seed);
}

absl::Status Session::LoadWeights(const std::string& path) {
  SY_RETURN_IF_ERROR(module_->LoadSafetensors(path));
  weights_ = path;
  return absl::OkStatus();
}

absl::Status Session::SetMaxLoopIterations(int64_t n) {
  if (file_ == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        name_, " is a built-in model without Loop nodes; max_loop_iterations is "
        "for ONNX models"));
  }
  SY_RETURN_IF_ERROR(file_->set_max_loop_iterations(n));
  max_loop_iterations_ = n;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<InputSpec>> Session::InputSpecs(
    std::optional<int64_t> batch, const std::map<std::string, Shape>& overrides,
    const Device& device) const {
  if (batch.has_value() && *batch < 1) {
    return absl::InvalidArgumentError(absl::StrCat("batch must be >= 1, got ", *batch));
  }
  if (file_ != nullptr) return file_->InputSpecs(batch, overrides, device);
  std::optional<Shape> shape;
  for (const auto& [input, given] : overrides) {
    if (!input.empty() && input != inputs_[0].name) {
      return absl::InvalidArgumentError(absl::StrCat(
          name_, " has no input '", input, "'; its one input is ", inputs_[0].ToString()));
    }
    shape = given;
  }
  SY_ASSIGN_OR_RETURN(Shape resolved, ModelInputShape(name_, batch.value_or(1), shape));
  return std::vector<InputSpec>{{resolved, DType::kFloat32, device}};
}

absl::StatusOr<std::vector<InputSpec>> Session::InputSpecsFor(const InputRequest& request,
                                                              const Device& device) const {
  if (request.batch.has_value() && *request.batch < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch must be >= 1, got ", *request.batch));
  }
  // Names and ranks against the declarations. A model file's fixed
  // dimensions may be overridden (an image model exported at 224x224 runs
  // at other sizes); a built-in model's shape is checked by ModelInputShape.
  absl::StatusOr<std::vector<Shape>> shapes = InputShapes(inputs_, request);
  if (file_ != nullptr) {
    if (!shapes.ok()) return shapes.status();
    std::vector<InputSpec> specs;
    for (size_t i = 0; i < shapes->size(); ++i) {
      specs.push_back({(*shapes)[i], inputs_[i].dtype, device});
    }
    return specs;
  }
  // A built-in model's height and width default to its own (224), which
  // the declarations cannot say: no shape given is not an error here.
  std::optional<Shape> given;
  if (!request.shapes.empty()) {
    if (!shapes.ok()) return shapes.status();
    given = (*shapes)[0];
  }
  SY_ASSIGN_OR_RETURN(Shape shape, ModelInputShape(name_, request.batch.value_or(1), given));
  return std::vector<InputSpec>{{shape, DType::kFloat32, device}};
}

absl::StatusOr<std::vector<Tensor>> Session::Run(absl::Span<const Tensor> inputs,
                                                 const RunOptions& options) {
  return module_->Run(inputs, options);
}

RunStats Session::run_stats() const {
  return file_ != nullptr ? file_->run_stats() : RunStats();
}

absl::StatusOr<std::vector<std::string>> Session::DescribeRun(
    absl::Span<const Tensor> inputs) {
  if (file_ == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        name_, " runs as one static plan, not in steps: its graph (Module::TraceGraph, "
        "`switchyard graph`) is the whole run"));
  }
  return file_->DescribeRun(inputs);
}

absl::StatusOr<std::unique_ptr<Session>> Session::MakeReplica(
    const Device& device, std::optional<std::map<std::string, HostArray>>& state) const {
  if (from_bytes_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "replicas load the model once per device, from its file; ", name_,
        " has none: write the bytes to a file and open its path"));
  }
  std::unique_ptr<Session> copy;
  if (file_ != nullptr) {
    SY_ASSIGN_OR_RETURN(copy, OpenFile(name_, *registry_));
    if (max_loop_iterations_.has_value()) {
      SY_RETURN_IF_ERROR(copy->SetMaxLoopIterations(*max_loop_iterations_));
    }
  } else {
    SY_ASSIGN_OR_RETURN(copy, Open(name_, *registry_));
  }
  SY_RETURN_IF_ERROR(copy->To(device));
  if (file_ == nullptr) {
    // The built-in model's values, whether seeded or loaded: read once.
    if (!state.has_value()) {
      SY_ASSIGN_OR_RETURN(state, module_->StateDict());
    }
    SY_RETURN_IF_ERROR(copy->module_->LoadStateDict(*state));
  } else if (!weights_.empty()) {
    SY_RETURN_IF_ERROR(copy->LoadWeights(weights_));
  }
  copy->set_placement(placement());
  return copy;
}

absl::StatusOr<std::unique_ptr<Session>> Session::Replica(const Device& device) const {
  std::optional<std::map<std::string, HostArray>> state;
  return MakeReplica(device, state);
}

absl::StatusOr<std::unique_ptr<ReplicaSet>> Session::Replicate(
    const std::vector<Device>& devices) {
  if (from_bytes_ && devices.size() > 1) {
    std::optional<std::map<std::string, HostArray>> none;
    return MakeReplica(devices[1], none).status();
  }
  std::optional<std::map<std::string, HostArray>> state;
  const ReplicaSet::MakeFn make =
      [&](const Device& d, int index) -> absl::StatusOr<std::shared_ptr<Module>> {
    if (index == 0) {
      // Moving to where it already is would only drop its compiled plans.
      if (device() != d) SY_RETURN_IF_ERROR(To(d));
      return std::shared_ptr<Module>(module_.get(), [](Module*) {});
    }
    SY_ASSIGN_OR_RETURN(std::unique_ptr<Session> copy, MakeReplica(d, state));
    // The replica's Module, kept alive by its Session.
    std::shared_ptr<Session> owner(std::move(copy));
    return std::shared_ptr<Module>(owner, &owner->module());
  };
  // Unset RunFn: each replica runs with Module::Run, as any model does.
  return ReplicaSet::Create(devices, make, *registry_);
}

}  // namespace runtime
}  // namespace switchyard
