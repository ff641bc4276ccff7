#include "models/module.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/compile.h"
#include "core/status_macros.h"
#include "models/safetensors.h"

namespace switchyard {
namespace {

std::string Join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : absl::StrCat(prefix, ".", name);
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

void Module::RegisterParameter(const std::string& name, const Shape& shape) {
  parameters_.push_back({name, shape, Tensor()});
}

Module* Module::RegisterChild(const std::string& name,
                              std::unique_ptr<Module> child) {
  child->parent_ = this;
  child->SetRegistryRecursively(registry_);
  child->SetDeviceRecursively(device_);
  children_.emplace_back(name, std::move(child));
  return children_.back().second.get();
}

void Module::CollectParameters(
    const std::string& prefix,
    std::vector<std::pair<std::string, Parameter*>>* out) {
  for (Parameter& p : parameters_) out->emplace_back(Join(prefix, p.name), &p);
  for (auto& [name, child] : children_) {
    child->CollectParameters(Join(prefix, name), out);
  }
}

void Module::CollectParameters(
    const std::string& prefix,
    std::vector<std::pair<std::string, const Parameter*>>* out) const {
  for (const Parameter& p : parameters_) {
    out->emplace_back(Join(prefix, p.name), &p);
  }
  for (const auto& [name, child] : children_) {
    const Module& c = *child;
    c.CollectParameters(Join(prefix, name), out);
  }
}

std::vector<std::pair<std::string, const Tensor*>> Module::NamedParameters()
    const {
  std::vector<std::pair<std::string, const Parameter*>> all;
  CollectParameters("", &all);
  std::vector<std::pair<std::string, const Tensor*>> out;
  for (const auto& [name, p] : all) out.emplace_back(name, &p->tensor);
  return out;
}

std::vector<std::pair<std::string, Shape>> Module::ParameterShapes() const {
  std::vector<std::pair<std::string, const Parameter*>> all;
  CollectParameters("", &all);
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

void Module::ClearOwnPlans() {
  absl::MutexLock lock(&plans_mu_);
  plans_.clear();
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
  SY_RETURN_IF_ERROR(registry_->GetDevice(device).status());
  std::vector<std::pair<std::string, Parameter*>> all;
  CollectParameters("", &all);
  // Copy everything first; commit only when every copy succeeded.
  std::vector<Tensor> moved;
  for (const auto& [name, p] : all) {
    if (!p->tensor.defined()) {
      moved.emplace_back();
      continue;
    }
    absl::StatusOr<Tensor> t = p->tensor.To(device, *registry_);
    if (!t.ok()) {
      return absl::Status(t.status().code(),
                          absl::StrCat("moving parameter '", name, "' to ",
                                       device.ToString(), ": ",
                                       t.status().message()));
    }
    moved.push_back(*std::move(t));
  }
  for (size_t i = 0; i < all.size(); ++i) all[i].second->tensor = moved[i];
  SetDeviceRecursively(device);
  ClearPlans();
  return absl::OkStatus();
}

ParameterPlacement Module::Placement() const {
  ParameterPlacement placement;
  std::vector<std::pair<std::string, const Parameter*>> all;
  CollectParameters("", &all);
  bool one_device = true;
  for (const auto& [name, p] : all) {
    const Device d = p->tensor.defined() ? p->tensor.device() : device_;
    placement.per_parameter.emplace_back(name, d);
    if (d != placement.per_parameter.front().second) one_device = false;
  }
  if (one_device) {
    placement.device = all.empty() ? device_ : placement.per_parameter.front().second;
  }
  return placement;
}

std::vector<float> Module::InitialValues(const std::string& name,
                                         const Shape& shape,
                                         std::mt19937_64& rng) const {
  // fan_in of the weight this parameter belongs to: the elements of one
  // output row (in_features, or in_channels/groups * kh * kw).
  int64_t fan_in = 1;
  for (const Parameter& p : parameters_) {
    if (p.name == "weight" && p.shape.rank() > 1) {
      fan_in = p.shape.num_elements() / p.shape.dim(0);
    }
  }
  const float bound = fan_in > 0 ? 1.0f / std::sqrt(static_cast<float>(fan_in)) : 0;
  std::vector<float> values(shape.num_elements());
  for (float& v : values) v = UniformSample(rng, bound);
  return values;
}

absl::Status Module::InitializeParameters(uint64_t seed) {
  std::mt19937_64 rng(seed);
  // Each module draws its own parameters in registration order, depth first.
  std::vector<std::pair<Module*, Parameter*>> order;
  std::function<void(Module*)> visit = [&](Module* m) {
    for (Parameter& p : m->parameters_) order.emplace_back(m, &p);
    for (auto& [name, child] : m->children_) visit(child.get());
  };
  visit(this);
  std::vector<Tensor> values;
  for (const auto& [module, p] : order) {
    std::vector<float> init = module->InitialValues(p->name, p->shape, rng);
    SY_ASSIGN_OR_RETURN(
        Tensor t, Tensor::FromVector(p->shape, init, device_, *registry_));
    values.push_back(std::move(t));
  }
  for (size_t i = 0; i < order.size(); ++i) order[i].second->tensor = values[i];
  ClearPlans();
  return absl::OkStatus();
}

absl::Status Module::LoadStateDict(
    const std::map<std::string, HostArray>& state) {
  std::map<std::string, HostArrayView> views;
  for (const auto& [name, array] : state) {
    if (static_cast<int64_t>(array.values.size()) !=
        array.shape.num_elements()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot load state dict into ", type_name(), ": '", name, "' has ",
          array.values.size(), " values but shape ", array.shape.ToString(),
          " has ", array.shape.num_elements(), " elements"));
    }
    views[name] = HostArrayView{
        array.shape, reinterpret_cast<const char*>(array.values.data()),
        array.values.size() * sizeof(float)};
  }
  return LoadParameters(views, nullptr);
}

absl::Status Module::LoadSafetensors(const std::string& path) {
  SY_ASSIGN_OR_RETURN(std::unique_ptr<MappedSafetensors> file,
                      MappedSafetensors::Open(path));
  absl::Status loaded =
      LoadParameters(file->tensors(), [&](const char* data, size_t size) {
        file->Release(data, size);
      });
  if (!loaded.ok()) {
    return absl::Status(loaded.code(),
                        absl::StrCat(path, ": ", loaded.message()));
  }
  return absl::OkStatus();
}

absl::Status Module::LoadParameters(
    const std::map<std::string, HostArrayView>& state,
    const std::function<void(const char*, size_t)>& copied) {
  std::vector<std::pair<std::string, Parameter*>> all;
  CollectParameters("", &all);
  std::vector<std::string> missing, unexpected, wrong_shape;
  std::map<std::string, Parameter*> by_name;
  for (const auto& [name, p] : all) {
    by_name[name] = p;
    auto it = state.find(name);
    if (it == state.end()) {
      missing.push_back(name);
    } else if (it->second.shape != p->shape) {
      wrong_shape.push_back(absl::StrCat(name, " (expected ", p->shape.ToString(),
                                         ", file has ",
                                         it->second.shape.ToString(), ")"));
    }
  }
  for (const auto& [name, array] : state) {
    if (by_name.count(name) == 0) unexpected.push_back(name);
  }
  if (!missing.empty() || !unexpected.empty() || !wrong_shape.empty()) {
    std::string message = absl::StrCat("cannot load state dict into ", type_name(), ":");
    if (!missing.empty()) {
      absl::StrAppend(&message, "\n  missing parameters: ", absl::StrJoin(missing, ", "));
    }
    if (!unexpected.empty()) {
      absl::StrAppend(&message, "\n  unexpected parameters: ",
                      absl::StrJoin(unexpected, ", "));
    }
    if (!wrong_shape.empty()) {
      absl::StrAppend(&message, "\n  wrong shapes: ", absl::StrJoin(wrong_shape, "; "));
    }
    absl::StrAppend(&message,
                    "\nThe file must hold exactly this model's parameters, "
                    "named as in PyTorch's state_dict().");
    return absl::InvalidArgumentError(message);
  }
  // Each tensor goes straight from `state` to the device, in pieces: a piece
  // of the destination is addressed as data() + offset (Buffer::data() is an
  // address in the device's address space) and `copied` may give the source
  // piece back (a mapped file's pages), so loading needs little more memory
  // than the parameters themselves. Nothing changes unless all succeed.
  constexpr size_t kPieceBytes = size_t{16} << 20;
  SY_ASSIGN_OR_RETURN(BackendDevice * device, registry_->GetDevice(device_));
  std::vector<Tensor> values;
  for (const auto& [name, p] : all) {
    const HostArrayView& source = state.at(name);
    SY_ASSIGN_OR_RETURN(Tensor t, Tensor::Empty(p->shape, DType::kFloat32,
                                                device_, *registry_));
    if (source.size_bytes != t.size_bytes()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "parameter '", name, "': ", source.size_bytes,
          " bytes of data for shape ", p->shape.ToString(), " (",
          t.size_bytes(), " bytes)"));
    }
    for (size_t offset = 0; offset < source.size_bytes; offset += kPieceBytes) {
      const size_t n = std::min(kPieceBytes, source.size_bytes - offset);
      Buffer piece(t.device(), static_cast<char*>(t.buffer()->data()) + offset,
                   n, /*release=*/nullptr);
      absl::Status status =
          device->CopyFromHost(source.data + offset, piece, n);
      if (!status.ok()) {
        return absl::Status(status.code(),
                            absl::StrCat("copying parameter '", name, "' to ",
                                         device_.ToString(), ": ",
                                         status.message()));
      }
      if (copied) copied(source.data + offset, n);
    }
    values.push_back(std::move(t));
  }
  SY_RETURN_IF_ERROR(device->Synchronize());
  for (size_t i = 0; i < all.size(); ++i) all[i].second->tensor = values[i];
  ClearPlans();
  return absl::OkStatus();
}

absl::StatusOr<std::map<std::string, HostArray>> Module::StateDict() const {
  std::map<std::string, HostArray> state;
  for (const auto& [name, tensor] : NamedParameters()) {
    if (!tensor->defined()) {
      return absl::FailedPreconditionError(
          absl::StrCat("parameter '", name, "' is not initialized"));
    }
    SY_ASSIGN_OR_RETURN(std::vector<float> values, tensor->ToVector(*registry_));
    state[name] = HostArray{tensor->shape(), std::move(values)};
  }
  return state;
}

absl::StatusOr<ValueId> Module::ParameterValue(Graph& graph,
                                               const std::string& name,
                                               const std::string& path) const {
  for (const Parameter& p : parameters_) {
    if (p.name != name) continue;
    const std::string full = Join(path, name);
    if (!p.tensor.defined()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "parameter '", full, "' has no value; call InitializeParameters(seed) "
          "or LoadStateDict(...) first"));
    }
    return graph.AddConstant(full, p.tensor);
  }
  return absl::InternalError(absl::StrCat(type_name(), " has no parameter '", name, "'"));
}

absl::StatusOr<Graph> Module::TraceGraph(const Shape& input_shape,
                                         const Device& input_device) const {
  Graph graph;
  ValueId x = graph.AddInput("input", input_shape, input_device);
  SY_ASSIGN_OR_RETURN(ValueId y, Trace(graph, x, ""));
  graph.AddOutput(y);
  return graph;
}

absl::StatusOr<ExecutablePlan*> Module::Compiled(const Shape& input_shape,
                                                 const Device& input_device) {
  const std::string key =
      absl::StrCat(input_shape.ToString(), "@", input_device.ToString());
  absl::MutexLock lock(&plans_mu_);
  auto it = plans_.find(key);
  if (it != plans_.end()) return it->second.get();
  SY_ASSIGN_OR_RETURN(Graph graph, TraceGraph(input_shape, input_device));
  CompileOptions options;
  options.backends = registry_;
  options.placement = placement_;
  options.target = device_;
  SY_ASSIGN_OR_RETURN(std::unique_ptr<ExecutablePlan> plan,
                      Compile(std::move(graph), options));
  return (plans_[key] = std::move(plan)).get();
}

absl::StatusOr<Tensor> Module::Forward(const Tensor& x) {
  if (!x.defined()) {
    return absl::InvalidArgumentError("Forward was given an undefined tensor");
  }
  if (x.dtype() != DType::kFloat32) {
    return absl::UnimplementedError(absl::StrCat(
        "input is ", DTypeName(x.dtype()), "; only float32 is supported"));
  }
  SY_ASSIGN_OR_RETURN(ExecutablePlan * plan, Compiled(x.shape(), x.device()));
  SY_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, plan->Run({x}));
  return outputs[0];
}

}  // namespace switchyard
