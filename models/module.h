#ifndef SWITCHYARD_MODELS_MODULE_H_
#define SWITCHYARD_MODELS_MODULE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/executable_plan.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "models/host_array.h"

namespace switchyard {

// Where a module's parameters live: one device, or which parameter is where.
struct ParameterPlacement {
  std::optional<Device> device;  // set when every parameter shares one device
  std::vector<std::pair<std::string, Device>> per_parameter;
  // "cpu:0", or "mixed: 0.weight on cpu:0, 0.bias on cuda:0, ..." listing
  // every parameter with its device.
  std::string ToString() const;
};

// A layer or a model, as torch.nn.Module: named parameters, named children,
// To(device), and Forward(x). Forward traces the module into a Graph, runs
// shape inference and strict placement, lowers it onto the backends and
// runs it; the compiled plan is cached per input signature (shape, dtype,
// device) until parameters change.
//
// Parameters start unmaterialized (shape only); InitializeParameters(seed)
// or LoadStateDict gives them values, on the module's device.
//
//   Sequential net;
//   net.Add(std::make_unique<Linear>(4, 8));
//   net.Add(std::make_unique<ReLU>());
//   SY_RETURN_IF_ERROR(net.InitializeParameters(/*seed=*/0));
//   SY_RETURN_IF_ERROR(net.To(*Device::Parse("cuda:0")));
//   absl::StatusOr<Tensor> y = net.Forward(x_on_cuda);
//
// Threads: Forward and Compiled may be called from many threads at once.
// Plans are compiled under a lock and cached per signature, and runs of one
// plan are serialized, so every caller gets what a single thread would
// (tests/concurrency_test.cc, clean under --config=tsan). Changing
// parameters (To, InitializeParameters, LoadStateDict, LoadSafetensors)
// must not overlap any other call on the same model, as with torch.nn.
class Module {
 public:
  explicit Module(BackendRegistry& registry = BackendRegistry::Global())
      : registry_(&registry) {}
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // "Conv2d", "Sequential", ...
  virtual std::string type_name() const = 0;

  // Appends this module's ops to `graph`, reading value `x`, and returns the
  // output value. `path` is the module's name in its model ("features.0").
  virtual absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                        const std::string& path) const = 0;

  // Parameters of this module and its children, with dotted names in
  // registration order ("features.0.weight", "features.0.bias", ...).
  std::vector<std::pair<std::string, const Tensor*>> NamedParameters() const;
  std::vector<std::pair<std::string, Shape>> ParameterShapes() const;
  int64_t NumParameters() const;  // elements

  // Moves every parameter to `device`, all or nothing.
  absl::Status To(const Device& device);
  // The device the module's parameters are on (or will be materialized on).
  const Device& device() const { return device_; }
  ParameterPlacement Placement() const;

  // Fills every parameter from `seed` with the layer's own initialisation
  // (documented per layer; the same values on every platform).
  absl::Status InitializeParameters(uint64_t seed);

  // Loads a state dict by parameter name, as PyTorch's load_state_dict
  // (strict): missing, unexpected and wrongly shaped entries are all listed
  // in one InvalidArgument error, and nothing changes unless all is well.
  absl::Status LoadStateDict(const std::map<std::string, HostArray>& state);
  // Loads a .safetensors file (PyTorch's state_dict names) with the same
  // checks, all or nothing. The file is memory-mapped and each tensor copied
  // from the mapping straight to the module's device, the copied pages given
  // back as it goes, so peak memory is about the parameters' size, not the
  // 2-3x of reading the file and then copying it. Errors start with `path`.
  absl::Status LoadSafetensors(const std::string& path);
  // The parameters copied to the host, by name.
  absl::StatusOr<std::map<std::string, HostArray>> StateDict() const;

  // The graph of this module applied to one input.
  absl::StatusOr<Graph> TraceGraph(const Shape& input_shape,
                                   const Device& input_device) const;

  // Runs the module on `x`: trace, place, lower (cached), execute.
  absl::StatusOr<Tensor> Forward(const Tensor& x);

  // The compiled plan Forward uses for this input signature.
  absl::StatusOr<ExecutablePlan*> Compiled(const Shape& input_shape,
                                           const Device& input_device);

  BackendRegistry& registry() const { return *registry_; }

  // How Forward places the graph: strict (the default) or auto, which copies
  // inputs to the module's device and falls back to the CPU for nodes the
  // device cannot run. The compiled plan's placement_report() says what
  // moved.
  void set_placement(PlacementPolicy policy);
  PlacementPolicy placement() const { return placement_; }

 protected:
  // For layers' constructors: declares a parameter of this module.
  void RegisterParameter(const std::string& name, const Shape& shape);
  // For containers: adds a named child and returns it.
  Module* RegisterChild(const std::string& name, std::unique_ptr<Module> child);

  // The value of this module's own parameter `name` as a graph constant;
  // FailedPrecondition if it was never initialized or loaded.
  absl::StatusOr<ValueId> ParameterValue(Graph& graph, const std::string& name,
                                         const std::string& path) const;

  // Initial values of this module's own parameter `name`. The default is
  // PyTorch's for Linear and Conv2d: U(-1/sqrt(fan_in), 1/sqrt(fan_in))
  // with fan_in = elements per output row of the weight.
  virtual std::vector<float> InitialValues(const std::string& name,
                                           const Shape& shape,
                                           std::mt19937_64& rng) const;

  const std::vector<std::pair<std::string, std::unique_ptr<Module>>>& children()
      const {
    return children_;
  }

 private:
  struct Parameter {
    std::string name;
    Shape shape;
    Tensor tensor;  // undefined until initialized or loaded
  };

  // LoadStateDict's work, from views; `copied` (optional) is told about
  // each piece of a view once it is on the device.
  absl::Status LoadParameters(
      const std::map<std::string, HostArrayView>& state,
      const std::function<void(const char*, size_t)>& copied);

  // Every parameter of the tree, with its dotted name.
  void CollectParameters(const std::string& prefix,
                         std::vector<std::pair<std::string, Parameter*>>* out);
  void CollectParameters(
      const std::string& prefix,
      std::vector<std::pair<std::string, const Parameter*>>* out) const;
  void SetDeviceRecursively(const Device& device);
  void SetRegistryRecursively(BackendRegistry* registry);
  // Drops the cached plans of this module, its descendants and its
  // ancestors: all of them bind parameters that just changed.
  void ClearPlans();
  void ClearOwnPlans();

  BackendRegistry* registry_;
  Module* parent_ = nullptr;  // the container this module was added to
  Device device_ = Device::Cpu();
  PlacementPolicy placement_ = PlacementPolicy::kStrict;
  std::vector<Parameter> parameters_;
  std::vector<std::pair<std::string, std::unique_ptr<Module>>> children_;

  absl::Mutex plans_mu_;
  std::map<std::string, std::unique_ptr<ExecutablePlan>> plans_
      ABSL_GUARDED_BY(plans_mu_);
};

// Draws from N(0, stddev^2) with a fixed transform (Box-Muller over
// mt19937_64), so seeded models are identical across standard libraries.
float NormalSample(std::mt19937_64& rng, float stddev);
// Draws from U(-bound, bound), same portability.
float UniformSample(std::mt19937_64& rng, float bound);

}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_MODULE_H_
