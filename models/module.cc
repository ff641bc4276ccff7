#include "models/module.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/compile.h"
#include "core/releasable_weights.h"
#include "core/shared_memory.h"
#include "core/status_macros.h"
#include "models/safetensors.h"

namespace switchyard {
namespace {

std::string Join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : absl::StrCat(prefix, ".", name);
}

// The module whose default Trace or TraceValues is running on this thread:
// each default calls the other, so a module that overrides neither would
// recurse forever; this turns that into an error.
thread_local const Module* default_trace_of = nullptr;

class DefaultTraceScope {
 public:
  explicit DefaultTraceScope(const Module* module)
      : saved_(default_trace_of), reentered_(default_trace_of == module) {
    default_trace_of = module;
  }
  ~DefaultTraceScope() { default_trace_of = saved_; }
  bool reentered() const { return reentered_; }

 private:
  const Module* saved_;
  bool reentered_;
};

absl::Status NeitherTraceOverridden(const Module& module) {
  return absl::InternalError(absl::StrCat(
      module.type_name(),
      " overrides neither Trace (one input, one output) nor TraceValues "
      "(several); a module must override one of them"));
}

std::string Where(const Module& module, const std::string& path) {
  return path.empty() ? absl::StrCat(module.type_name())
                      : absl::StrCat("'", path, "' (", module.type_name(), ")");
}

// Host bytes of `dtype` holding `values` converted.
std::vector<char> ToDTypeBytes(const std::vector<float>& values, DType dtype) {
  std::vector<char> bytes(values.size() * DTypeSize(dtype));
  for (size_t i = 0; i < values.size(); ++i) {
    SetElementFromDouble(bytes.data(), dtype, static_cast<int64_t>(i),
                         values[i]);
  }
  return bytes;
}

}  // namespace

float NormalSample(std::mt19937_64& rng, float stddev) {
  // 53-bit uniforms in (0, 1]; Box-Muller, one sample per call.
  const double u1 = (static_cast<double>(rng() >> 11) + 1.0) * 0x1.0p-53;
  const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
  return static_cast<float>(stddev * std::sqrt(-2.0 * std::log(u1)) *
                            std::cos(2.0 * M_PI * u2));
}

float UniformSample(std::mt19937_64& rng, float bound) {
  const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // [0, 1)
  return static_cast<float>((2.0 * u - 1.0) * bound);
}

std::string ParameterPlacement::ToString() const {
  if (device) return device->ToString();
  if (per_parameter.empty()) return "no parameters";
  return absl::StrCat(
      "mixed: ", absl::StrJoin(per_parameter, ", ",
                               [](std::string* out, const auto& p) {
                                 absl::StrAppend(out, p.first, " on ",
                                                 p.second.ToString());
                               }));
}

absl::StatusOr<ValueId> Module::Trace(Graph& graph, ValueId x,
                                      const std::string& path) const {
  DefaultTraceScope scope(this);
  if (scope.reentered()) return NeitherTraceOverridden(*this);
  const ValueId inputs[] = {x};
  SY_ASSIGN_OR_RETURN(std::vector<ValueId> outputs,
                      TraceValues(graph, inputs, path));
  if (outputs.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        Where(*this, path), " returns ", outputs.size(),
        " outputs where one is expected (as inside Sequential); call it with "
        "TraceValues or Forward(absl::Span<const Tensor>)"));
  }
  return outputs[0];
}

absl::StatusOr<std::vector<ValueId>> Module::TraceValues(
    Graph& graph, absl::Span<const ValueId> inputs,
    const std::string& path) const {
  DefaultTraceScope scope(this);
  if (scope.reentered()) return NeitherTraceOverridden(*this);
  if (inputs.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        Where(*this, path), " takes one input, got ", inputs.size()));
  }
  SY_ASSIGN_OR_RETURN(ValueId y, Trace(graph, inputs[0], path));
  return std::vector<ValueId>{y};
}

void Module::RegisterParameter(const std::string& name, const Shape& shape,
                               DType dtype) {
  state_.push_back({name, shape, dtype, /*is_buffer=*/false, Tensor()});
}

void Module::RegisterBuffer(const std::string& name, const Shape& shape,
                            DType dtype) {
  state_.push_back({name, shape, dtype, /*is_buffer=*/true, Tensor()});
}

Module* Module::RegisterChild(const std::string& name,
                              std::unique_ptr<Module> child) {
  child->parent_ = this;
  child->SetRegistryRecursively(registry_);
  child->SetDeviceRecursively(device_);
  children_.emplace_back(name, std::move(child));
  return children_.back().second.get();
}

void Module::CollectState(
    const std::string& prefix, Kinds kinds,
    std::vector<std::pair<std::string, StateTensor*>>* out) {
  for (const bool buffers : {false, true}) {
    if (kinds != Kinds::kAll && buffers != (kinds == Kinds::kBuffers)) continue;
    for (StateTensor& t : state_) {
      if (t.is_buffer == buffers) out->emplace_back(Join(prefix, t.name), &t);
    }
  }
  for (auto& [name, child] : children_) {
    child->CollectState(Join(prefix, name), kinds, out);
  }
}

void Module::CollectState(
    const std::string& prefix, Kinds kinds,
    std::vector<std::pair<std::string, const StateTensor*>>* out) const {
  std::vector<std::pair<std::string, StateTensor*>> mutable_out;
  const_cast<Module*>(this)->CollectState(prefix, kinds, &mutable_out);
  for (const auto& [name, t] : mutable_out) out->emplace_back(name, t);
}

std::vector<std::pair<std::string, const Tensor*>> Module::Named(
    Kinds kinds) const {
  std::vector<std::pair<std::string, const StateTensor*>> all;
  CollectState("", kinds, &all);
  std::vector<std::pair<std::string, const Tensor*>> out;
  for (const auto& [name, t] : all) out.emplace_back(name, &t->tensor);
  return out;
}

std::vector<std::pair<std::string, const Tensor*>> Module::NamedParameters()
    const {
  return Named(Kinds::kParameters);
}

std::vector<std::pair<std::string, const Tensor*>> Module::NamedBuffers()
    const {
  return Named(Kinds::kBuffers);
}

std::vector<StateSpec> Module::StateSpecs() const {
  std::vector<std::pair<std::string, const StateTensor*>> all;
  CollectState("", Kinds::kAll, &all);
  std::vector<StateSpec> out;
  for (const auto& [name, t] : all) {
    out.push_back({name, t->shape, t->dtype, t->is_buffer});
  }
  return out;
}

std::vector<std::pair<std::string, Shape>> Module::ParameterShapes() const {
  std::vector<std::pair<std::string, const StateTensor*>> all;
  CollectState("", Kinds::kParameters, &all);
  std::vector<std::pair<std::string, Shape>> out;
  for (const auto& [name, p] : all) out.emplace_back(name, p->shape);
  return out;
}

int64_t Module::NumParameters() const {
  int64_t n = 0;
  for (const auto& [name, shape] : ParameterShapes()) n += shape.num_elements();
  return n;
}

void Module::SetDeviceRecursively(const Device& device) {
  device_ = device;
  for (auto& [name, child] : children_) child->SetDeviceRecursively(device);
}

void Module::SetRegistryRecursively(BackendRegistry* registry) {
  registry_ = registry;
  for (auto& [name, child] : children_) {
    child->SetRegistryRecursively(registry);
  }
}

std::shared_ptr<WorkspacePool> Module::workspaces() const {
  absl::MutexLock lock(&plans_mu_);
  return workspaces_;
}

void Module::ClearOwnPlans() {
  {
    absl::MutexLock lock(&plans_mu_);
    plans_.clear();
    // Blocks sized for the old parameters' device or shapes go back.
    workspaces_ = std::make_shared<WorkspacePool>();
  }
  OnPlansCleared();
}

void Module::ClearPlans() {
  // A plan binds the parameters of the module it was traced from and of all
  // its descendants, so changing parameters here makes the plans of every
  // ancestor (which contain them) and every descendant (whose parameters
  // may be among those that changed) stale.
  for (Module* m = parent_; m != nullptr; m = m->parent_) m->ClearOwnPlans();
  std::function<void(Module*)> down = [&](Module* m) {
    m->ClearOwnPlans();
    for (auto& [name, child] : m->children_) down(child.get());
  };
  down(this);
}

void Module::set_placement(PlacementPolicy policy) {
  placement_ = policy;
  ClearOwnPlans();
}

absl::Status Module::To(const Device& device) {
  SY_ASSIGN_OR_RETURN(BackendDevice * target, registry_->GetDevice(device));
  std::vector<std::pair<std::string, StateTensor*>> all;
  CollectState("", Kinds::kAll, &all);
  // Copy everything first; commit only when every copy succeeded. Between
  // devices of host memory (cpu:0 and dnnl:0) nothing is copied: the
  // parameters are held once, under the new device (core/shared_memory.h).
  std::vector<Tensor> moved;
  for (const auto& [name, t] : all) {
    if (!t->tensor.defined()) {
      moved.emplace_back();
      continue;
    }
    SY_ASSIGN_OR_RETURN(const std::shared_ptr<const void> resident,
                        ReleasableWeights::Global().Pin(t->tensor));
    absl::StatusOr<Tensor> copy = MoveOrShare(t->tensor, *target);
    if (!copy.ok()) {
      return absl::Status(
          copy.status().code(),
          absl::StrCat("moving ", t->is_buffer ? "buffer '" : "parameter '",
                       name, "' to ", device.ToString(), ": ",
                       copy.status().message()));
    }
    moved.push_back(*std::move(copy));
  }
  for (size_t i = 0; i < all.size(); ++i) all[i].second->tensor = moved[i];
  SetDeviceRecursively(device);
  ClearPlans();
  return absl::OkStatus();
}

ParameterPlacement Module::Placement() const {
  ParameterPlacement placement;
  std::vector<std::pair<std::string, const StateTensor*>> all;
  CollectState("", Kinds::kAll, &all);
  bool one_device = true;
  for (const auto& [name, t] : all) {
    const Device d = t->tensor.defined() ? t->tensor.device() : device_;
    placement.per_parameter.emplace_back(name, d);
    if (d != placement.per_parameter.front().second) one_device = false;
  }
  if (one_device) {
    placement.device =
        all.empty() ? device_ : placement.per_parameter.front().second;
  }
  return placement;
}

std::vector<float> Module::InitialValues(const std::string& name,
                                         const Shape& shape,
                                         std::mt19937_64& rng) const {
  // fan_in of the weight this parameter belongs to: the elements of one
  // output row (in_features, or in_channels/groups * kh * kw).
  int64_t fan_in = 1;
  for (const StateTensor& p : state_) {
    if (!p.is_buffer && p.name == "weight" && p.shape.rank() > 1) {
      fan_in = p.shape.num_elements() / p.shape.dim(0);
    }
  }
  const float bound =
      fan_in > 0 ? 1.0f / std::sqrt(static_cast<float>(fan_in)) : 0;
  std::vector<float> values(shape.num_elements());
  for (float& v : values) v = UniformSample(rng, bound);
  return values;
}

std::vector<float> Module::InitialBufferValues(const std::string& name,
                                               const Shape& shape) const {
  return std::vector<float>(shape.num_elements(), 0.0f);
}

absl::Status Module::InitializeParameters(uint64_t seed) {
  SY_ASSIGN_OR_RETURN(BackendDevice * device, registry_->GetDevice(device_));
  std::mt19937_64 rng(seed);
  // Each module draws its own parameters in registration order, depth
  // first; buffers draw nothing.
  std::vector<std::pair<Module*, StateTensor*>> order;
  std::function<void(Module*)> visit = [&](Module* m) {
    for (StateTensor& t : m->state_) order.emplace_back(m, &t);
    for (auto& [name, child] : m->children_) visit(child.get());
  };
  visit(this);
  std::vector<Tensor> values;
  for (const auto& [module, t] : order) {
    const std::vector<float> init =
        t->is_buffer ? module->InitialBufferValues(t->name, t->shape)
                     : module->InitialValues(t->name, t->shape, rng);
    const std::vector<char> bytes = ToDTypeBytes(init, t->dtype);
    SY_ASSIGN_OR_RETURN(Tensor tensor,
                        Tensor::FromBytes(t->shape, t->dtype, bytes.data(),
                                          bytes.size(), *device));
    values.push_back(std::move(tensor));
  }
  for (size_t i = 0; i < order.size(); ++i) order[i].second->tensor = values[i];
  ClearPlans();
  return absl::OkStatus();
}

absl::Status Module::FillState(
    const std::function<absl::Status(absl::Span<const StateFill>)>& fill) {
  std::vector<std::pair<std::string, StateTensor*>> all;
  CollectState("", Kinds::kAll, &all);
  SY_ASSIGN_OR_RETURN(BackendDevice * device, registry_->GetDevice(device_));
  // On a device whose memory is the host's the values are drawn in place:
  // no staging copy, each page touched once.
  const bool in_place = device->host_memory();
  std::vector<Tensor> values;
  std::vector<std::vector<char>> staging;
  std::vector<StateFill> targets;
  for (const auto& [name, t] : all) {
    SY_ASSIGN_OR_RETURN(Tensor tensor, Tensor::Empty(t->shape, t->dtype, *device));
    char* bytes = nullptr;
    if (in_place) {
      bytes = static_cast<char*>(tensor.buffer()->data());
    } else {
      staging.emplace_back(tensor.size_bytes());
      bytes = staging.back().data();
    }
    targets.push_back({name, t->shape, t->dtype, t->is_buffer, bytes});
    values.push_back(std::move(tensor));
  }
  SY_RETURN_IF_ERROR(fill(targets));
  if (!in_place) {
    for (size_t i = 0; i < values.size(); ++i) {
      SY_RETURN_IF_ERROR(device->CopyFromHost(targets[i].bytes, *values[i].buffer(),
                                              values[i].size_bytes()));
    }
    SY_RETURN_IF_ERROR(device->Synchronize());
  }
  for (size_t i = 0; i < all.size(); ++i) all[i].second->tensor = values[i];
  ClearPlans();
  return absl::OkStatus();
}

absl::Status Module::LoadStateDict(
    const std::map<std::string, HostArray>& state) {
  std::map<std::string, HostArrayView> views;
  for (const auto& [name, array] : state) {
    absl::Status whole =
        CheckArrayBytes(array, array.shape, absl::StrCat("'", name, "'"));
    if (!whole.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot load state dict into ", type_name(), ": ", whole.message()));
    }
    views[name] = HostArrayView{array.shape, array.dtype, array.bytes.data(),
                                array.bytes.size()};
  }
  return LoadState(views, nullptr);
}

absl::Status Module::LoadSafetensors(const std::string& path) {
  SY_ASSIGN_OR_RETURN(std::unique_ptr<MappedSafetensors> file,
                      MappedSafetensors::Open(path));
  absl::Status loaded = LoadState(
      file->tensors(),
      [&](const char* data, size_t size) { file->Release(data, size); });
  if (!loaded.ok()) {
    return absl::Status(loaded.code(),
                        absl::StrCat(path, ": ", loaded.message()));
  }
  return absl::OkStatus();
}

absl::Status Module::LoadState(
    const std::map<std::string, HostArrayView>& state,
    const std::function<void(const char*, size_t)>& copied) {
  std::vector<std::pair<std::string, StateTensor*>> all;
  CollectState("", Kinds::kAll, &all);
  std::vector<std::string> missing, unexpected, wrong_shape, wrong_dtype;
  std::map<std::string, StateTensor*> by_name;
  for (const auto& [name, t] : all) {
    by_name[name] = t;
    auto it = state.find(name);
    if (it == state.end()) {
      missing.push_back(name);
      continue;
    }
    const HostArrayView& source = it->second;
    if (source.shape != t->shape) {
      wrong_shape.push_back(absl::StrCat(name, " (expected ",
                                         t->shape.ToString(), ", file has ",
                                         source.shape.ToString(), ")"));
    }
    if (source.dtype != t->dtype &&
        !(IsFloatingPoint(source.dtype) && IsFloatingPoint(t->dtype))) {
      wrong_dtype.push_back(absl::StrCat(name, " (expected ",
                                         DTypeName(t->dtype), ", file has ",
                                         DTypeName(source.dtype), ")"));
    }
  }
  for (const auto& [name, array] : state) {
    if (by_name.count(name) == 0) unexpected.push_back(name);
  }
  if (!missing.empty() || !unexpected.empty() || !wrong_shape.empty() ||
      !wrong_dtype.empty()) {
    std::string message =
        absl::StrCat("cannot load state dict into ", type_name(), ":");
    if (!missing.empty()) {
      absl::StrAppend(&message,
                      "\n  missing parameters: ", absl::StrJoin(missing, ", "));
    }
    if (!unexpected.empty()) {
      absl::StrAppend(&message, "\n  unexpected parameters: ",
                      absl::StrJoin(unexpected, ", "));
    }
    if (!wrong_shape.empty()) {
      absl::StrAppend(&message,
                      "\n  wrong shapes: ", absl::StrJoin(wrong_shape, "; "));
    }
    if (!wrong_dtype.empty()) {
      absl::StrAppend(&message,
                      "\n  wrong dtypes: ", absl::StrJoin(wrong_dtype, "; "),
                      " (only floating-point dtypes convert on loading)");
    }
    absl::StrAppend(&message,
                    "\nThe file must hold exactly this model's parameters "
                    "and buffers, named as in PyTorch's state_dict().");
    return absl::InvalidArgumentError(message);
  }
  // Each tensor goes straight from `state` to the device, in pieces: a piece
  // of the destination is addressed as data() + offset (Buffer::data() is an
  // address in the device's address space) and `copied` may give the source
  // piece back (a mapped file's pages), so loading needs little more memory
  // than the parameters themselves. A tensor of another floating dtype is
  // converted on the host first (that one tensor's size). Nothing changes
  // unless all succeed.
  constexpr size_t kPieceBytes = size_t{16} << 20;
  SY_ASSIGN_OR_RETURN(BackendDevice * device, registry_->GetDevice(device_));
  std::vector<Tensor> values;
  for (const auto& [name, t] : all) {
    const HostArrayView& view = state.at(name);
    SY_ASSIGN_OR_RETURN(Tensor tensor,
                        Tensor::Empty(t->shape, t->dtype, *device));
    std::vector<char> converted;
    const char* source = view.data;
    size_t source_bytes = view.size_bytes;
    if (view.dtype != t->dtype) {
      converted.resize(tensor.size_bytes());
      for (int64_t i = 0; i < t->shape.num_elements(); ++i) {
        SetElementFromDouble(converted.data(), t->dtype, i,
                             ElementAsDouble(view.data, view.dtype, i));
      }
      if (copied) copied(view.data, view.size_bytes);
      source = converted.data();
      source_bytes = converted.size();
    }
    if (source_bytes != tensor.size_bytes()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'", name, "': ", source_bytes, " bytes of data for shape ",
          t->shape.ToString(), " of ", DTypeName(t->dtype), " (",
          tensor.size_bytes(), " bytes)"));
    }
    for (size_t offset = 0; offset < source_bytes; offset += kPieceBytes) {
      const size_t n = std::min(kPieceBytes, source_bytes - offset);
      Buffer piece(*device, tensor.device(),
                   static_cast<char*>(tensor.buffer()->data()) + offset, n,
                   /*release=*/nullptr);
      absl::Status status = device->CopyFromHost(source + offset, piece, n);
      if (!status.ok()) {
        return absl::Status(
            status.code(),
            absl::StrCat("copying '", name, "' to ", device_.ToString(), ": ",
                         status.message()));
      }
      if (copied && converted.empty()) copied(source + offset, n);
    }
    values.push_back(std::move(tensor));
  }
  SY_RETURN_IF_ERROR(device->Synchronize());
  for (size_t i = 0; i < all.size(); ++i) all[i].second->tensor = values[i];
  ClearPlans();
  return absl::OkStatus();
}

absl::StatusOr<std::map<std::string, HostArray>> Module::StateDict() const {
  std::vector<std::pair<std::string, const StateTensor*>> all;
  CollectState("", Kinds::kAll, &all);
  std::map<std::string, HostArray> state;
  for (const auto& [name, t] : all) {
    if (!t->tensor.defined()) {
      return absl::FailedPreconditionError(
          absl::StrCat(t->is_buffer ? "buffer '" : "parameter '", name,
                       "' is not initialized"));
    }
    SY_ASSIGN_OR_RETURN(const std::shared_ptr<const void> resident,
                        ReleasableWeights::Global().Pin(t->tensor));
    SY_ASSIGN_OR_RETURN(std::vector<char> bytes, t->tensor.ToBytes());
    state[name] =
        HostArray(t->tensor.shape(), t->tensor.dtype(), std::move(bytes));
  }
  return state;
}

absl::StatusOr<ValueId> Module::ParameterValue(Graph& graph,
                                               const std::string& name,
                                               const std::string& path) const {
  for (const StateTensor& t : state_) {
    if (t.name != name) continue;
    const std::string full = Join(path, name);
    if (!t.tensor.defined()) {
      return absl::FailedPreconditionError(
          absl::StrCat(t.is_buffer ? "buffer '" : "parameter '", full,
                       "' has no value; call InitializeParameters(seed) or "
                       "LoadStateDict(...) first"));
    }
    // Its memory resident (read back if it was given back) and kept so
    // while the graph needs it (core/releasable_weights.h).
    SY_ASSIGN_OR_RETURN(std::shared_ptr<ConstantResidency> residency,
                        ReleasableWeights::Global().Residency(t.tensor));
    return graph.AddConstant(full, t.tensor, std::move(residency));
  }
  return absl::InternalError(
      absl::StrCat(type_name(), " has no parameter or buffer '", name, "'"));
}

absl::StatusOr<Graph> Module::TraceGraph(
    absl::Span<const InputSpec> inputs) const {
  Graph graph;
  std::vector<ValueId> ids;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name =
        inputs.size() == 1 ? "input" : absl::StrCat("input_", i);
    ids.push_back(graph.AddInput(name, inputs[i].shape, inputs[i].device,
                                 inputs[i].dtype));
  }
  SY_ASSIGN_OR_RETURN(std::vector<ValueId> outputs,
                      TraceValues(graph, ids, ""));
  if (outputs.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(type_name(), " returned no outputs"));
  }
  for (ValueId y : outputs) graph.AddOutput(y);
  return graph;
}

absl::StatusOr<Graph> Module::TraceGraph(const Shape& input_shape,
                                         const Device& input_device) const {
  const InputSpec input{input_shape, DType::kFloat32, input_device};
  return TraceGraph(absl::MakeConstSpan(&input, 1));
}

absl::StatusOr<ExecutablePlan*> Module::Compiled(
    absl::Span<const InputSpec> inputs) {
  std::string key;
  for (const InputSpec& input : inputs) {
    absl::StrAppend(&key, DTypeName(input.dtype), input.shape.ToString(), "@",
                    input.device.ToString(), ";");
  }
  absl::MutexLock lock(&plans_mu_);
  auto it = plans_.find(key);
  if (it != plans_.end()) return it->second.get();
  SY_ASSIGN_OR_RETURN(Graph graph, TraceGraph(inputs));
  CompileOptions options;
  options.backends = registry_;
  options.placement = placement_;
  options.target = device_;
  options.workspaces = workspaces_;
  SY_ASSIGN_OR_RETURN(std::unique_ptr<ExecutablePlan> plan,
                      Compile(std::move(graph), options));
  return (plans_[key] = std::move(plan)).get();
}

absl::StatusOr<ExecutablePlan*> Module::Compiled(const Shape& input_shape,
                                                 const Device& input_device) {
  const InputSpec input{input_shape, DType::kFloat32, input_device};
  return Compiled(absl::MakeConstSpan(&input, 1));
}

absl::StatusOr<std::vector<Tensor>> Module::Forward(
    absl::Span<const Tensor> inputs) {
  return Module::Run(inputs, RunOptions());
}

absl::StatusOr<std::vector<Tensor>> Module::Run(absl::Span<const Tensor> inputs,
                                                const RunOptions& options) {
  std::vector<InputSpec> specs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined()) {
      return absl::InvalidArgumentError(
          inputs.size() == 1
              ? std::string("Forward was given an undefined tensor")
              : absl::StrCat("Forward was given an undefined tensor as input ",
                             i));
    }
    specs.push_back({inputs[i].shape(), inputs[i].dtype(), inputs[i].device()});
  }
  SY_ASSIGN_OR_RETURN(ExecutablePlan * plan, Compiled(specs));
  return plan->Run(inputs, options);
}

absl::StatusOr<Tensor> Module::Forward(const Tensor& x) {
  SY_ASSIGN_OR_RETURN(std::vector<Tensor> outputs,
                      Forward(absl::MakeConstSpan(&x, 1)));
  if (outputs.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        type_name(), " returns ", outputs.size(),
        " outputs; call Forward(absl::Span<const Tensor>) to get them all"));
  }
  return outputs[0];
}

}  // namespace switchyard
