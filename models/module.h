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
#include "absl/types/span.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/dtype.h"
#include "core/executable_plan.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "models/host_array.h"

namespace switchyard {

// Where a module's parameters and buffers live: one device, or which is
// where.
struct ParameterPlacement {
  std::optional<Device> device;  // set when all of them share one device
  std::vector<std::pair<std::string, Device>> per_parameter;
  // "cpu:0", or "mixed: 0.weight on cpu:0, 0.bias on cuda:0, ..." listing
  // every parameter and buffer with its device.
  std::string ToString() const;
};

// What a module declares about one parameter or buffer.
struct StateSpec {
  std::string name;  // dotted, as in PyTorch's state_dict
  Shape shape;
  DType dtype = DType::kFloat32;
  bool is_buffer = false;
};

// One input a module is traced and compiled for.
struct InputSpec {
  Shape shape;
  DType dtype = DType::kFloat32;
  Device device = Device::Cpu();
};

// A layer or a model, as torch.nn.Module: named parameters and buffers,
// named children, To(device), and Forward. Forward traces the module into a
// Graph, runs the compile pipeline (shape inference, batch-norm folding,
// placement, lowering) and runs it; the compiled plan is cached per input
// signature (shapes, dtypes, devices) until parameters or buffers change.
//
// Parameters and buffers (running statistics such as BatchNorm's
// running_mean; in the state dict but not counted as parameters) start
// unmaterialized (shape and dtype only); InitializeParameters(seed) or
// LoadStateDict gives them values, on the module's device, in their dtype.
//
//   Sequential net;
//   net.Add(std::make_unique<Linear>(4, 8));
//   net.Add(std::make_unique<ReLU>());
//   SY_RETURN_IF_ERROR(net.InitializeParameters(/*seed=*/0));
//   SY_RETURN_IF_ERROR(net.To(*Device::Parse("cuda:0")));
//   absl::StatusOr<Tensor> y = net.Forward(x_on_cuda);
//
// A module with several inputs or outputs (a detection head, a split)
// overrides TraceValues instead of Trace and is run with
// Forward(absl::Span<const Tensor>):
//
//   absl::StatusOr<std::vector<Tensor>> boxes_and_scores =
//       head.Forward({features_p3, features_p4});
//
// Threads: Forward and Compiled may be called from many threads at once.
// Plans are compiled under a lock and cached per signature, and runs of one
// plan are serialized, so every caller gets what a single thread would
// (tests/concurrency_test.cc, clean under --config=tsan). Changing
// parameters or buffers (To, InitializeParameters, LoadStateDict,
// LoadSafetensors) must not overlap any other call on the same model, as
// with torch.nn.
class Module {
 public:
  explicit Module(BackendRegistry& registry = BackendRegistry::Global())
      : registry_(&registry) {}
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // "Conv2d", "Sequential", ...
  virtual std::string type_name() const = 0;

  // The names of the model's outputs, when it has its own (an imported
  // file's); empty otherwise. Tools name output files after them.
  virtual std::vector<std::string> OutputNames() const { return {}; }

  // Appends this module's ops to `graph`, reading value `x`, and returns the
  // output value. `path` is the module's name in its model ("features.0").
  // Single-input, single-output layers override this; the default calls
  // TraceValues and needs exactly one output.
  virtual absl::StatusOr<ValueId> Trace(Graph& graph, ValueId x,
                                        const std::string& path) const;
  // The same for any number of inputs and outputs. Modules with several
  // override this; the default calls Trace and needs exactly one input.
  // (Override at least one of the two.)
  virtual absl::StatusOr<std::vector<ValueId>> TraceValues(
      Graph& graph, absl::Span<const ValueId> inputs,
      const std::string& path) const;

  // Parameters of this module and its children, with dotted names in
  // registration order ("features.0.weight", "features.0.bias", ...).
  std::vector<std::pair<std::string, const Tensor*>> NamedParameters() const;
  std::vector<std::pair<std::string, Shape>> ParameterShapes() const;
  int64_t NumParameters() const;  // elements of the parameters, not buffers
  // Buffers, the same way ("bn1.running_mean", "bn1.num_batches_tracked").
  std::vector<std::pair<std::string, const Tensor*>> NamedBuffers() const;
  // Every parameter and buffer as declared (known before they have values),
  // in state_dict order: per module its parameters, its buffers, then its
  // children's.
  std::vector<StateSpec> StateSpecs() const;

  // Moves every parameter and buffer to `device`, all or nothing.
  absl::Status To(const Device& device);
  // The device the module's parameters are on (or will be materialized on).
  const Device& device() const { return device_; }
  ParameterPlacement Placement() const;

  // Fills every parameter from `seed` with the layer's own initialisation
  // (documented per layer; the same values on every platform), and every
  // buffer with its initial value (BatchNorm's running_var: ones).
  absl::Status InitializeParameters(uint64_t seed);

  // Loads a state dict of parameters and buffers by name, as PyTorch's
  // load_state_dict (strict): missing, unexpected, wrongly shaped and
  // wrongly typed entries are all listed in one InvalidArgument error, and
  // nothing changes unless all is well. Each keeps its own dtype: a
  // floating-point entry of another floating dtype is converted (as
  // PyTorch's copy_), any other dtype difference is an error.
  absl::Status LoadStateDict(const std::map<std::string, HostArray>& state);
  // Loads a .safetensors file (PyTorch's state_dict names) with the same
  // checks, all or nothing. The file is memory-mapped and each tensor copied
  // from the mapping straight to the module's device, the copied pages given
  // back as it goes, so peak memory is about the parameters' size, not the
  // 2-3x of reading the file and then copying it. Errors start with `path`.
  absl::Status LoadSafetensors(const std::string& path);
  // The parameters and buffers copied to the host, by name, in their dtypes.
  absl::StatusOr<std::map<std::string, HostArray>> StateDict() const;

  // The graph of this module applied to `inputs` (graph inputs "input" for
  // one, "input_0", "input_1", ... for several).
  absl::StatusOr<Graph> TraceGraph(absl::Span<const InputSpec> inputs) const;
  absl::StatusOr<Graph> TraceGraph(const Shape& input_shape,
                                   const Device& input_device) const;

  // Runs the model: the one way every front end runs any model (the
  // command line, Python, bench, replicas, the image pipeline). The default
  // is Forward with `options` (a profiler, a memory watch); a model whose
  // shapes are decided while it runs (an imported file with If, Loop or
  // NonZero) overrides it to run as a chain of plans.
  virtual absl::StatusOr<std::vector<Tensor>> Run(
      absl::Span<const Tensor> inputs, const RunOptions& options = RunOptions());

  // Runs the module: trace, compile (cached), execute, as one static plan.
  // One output per value TraceValues returned.
  absl::StatusOr<std::vector<Tensor>> Forward(absl::Span<const Tensor> inputs);
  // One input, one output (InvalidArgument for a module with several).
  absl::StatusOr<Tensor> Forward(const Tensor& x);

  // The compiled plan Forward uses for this input signature.
  absl::StatusOr<ExecutablePlan*> Compiled(absl::Span<const InputSpec> inputs);
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
  // Where this module's plans borrow memory for intermediate values (one
  // pool for all its input sizes; replaced when its plans are dropped).
  std::shared_ptr<WorkspacePool> workspaces() const;

  // For layers' constructors: declares a parameter (learned, counted by
  // NumParameters) or a buffer (state such as running statistics) of this
  // module, named as in PyTorch's state_dict.
  void RegisterParameter(const std::string& name, const Shape& shape,
                         DType dtype = DType::kFloat32);
  void RegisterBuffer(const std::string& name, const Shape& shape,
                      DType dtype = DType::kFloat32);
  // LoadStateDict from views of memory someone else owns (an imported
  // file's tensors), with its checks, all or nothing; `copied` (optional) is
  // told about each piece of a view once it is on the device, so the owner
  // can give that memory back as loading goes.
  absl::Status LoadStateViews(
      const std::map<std::string, HostArrayView>& state,
      const std::function<void(const char*, size_t)>& copied) {
    return LoadState(state, copied);
  }
  // Where FillState writes one parameter's or buffer's initial bytes.
  struct StateFill {
    std::string name;  // dotted, as in the state dict
    Shape shape;
    DType dtype = DType::kFloat32;
    bool is_buffer = false;
    char* bytes = nullptr;  // shape.num_elements() * DTypeSize(dtype) bytes
  };
  // Gives every parameter and buffer a new tensor on the module's device and
  // calls `fill` once with all of them (in state-dict order) to write their
  // values: straight into the tensors where the device's memory is the
  // host's, else into host copies that are then copied over. The memory is
  // not zeroed: `fill` writes every byte. All or nothing.
  absl::Status FillState(const std::function<absl::Status(absl::Span<const StateFill>)>& fill);
  // Called whenever this module's cached plans are dropped (its parameters
  // or buffers changed); a module that caches plans of its own drops them.
  virtual void OnPlansCleared() {}

  // For containers: adds a named child and returns it.
  Module* RegisterChild(const std::string& name, std::unique_ptr<Module> child);

  // The value of this module's own parameter or buffer `name` as a graph
  // constant; FailedPrecondition if it was never initialized or loaded.
  absl::StatusOr<ValueId> ParameterValue(Graph& graph, const std::string& name,
                                         const std::string& path) const;

  // Initial values of this module's own parameter `name` (converted to its
  // dtype). The default is PyTorch's for Linear and Conv2d:
  // U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = elements per output row
  // of the weight.
  virtual std::vector<float> InitialValues(const std::string& name,
                                           const Shape& shape,
                                           std::mt19937_64& rng) const;
  // Initial values of this module's own buffer `name`; the default: zeros.
  virtual std::vector<float> InitialBufferValues(const std::string& name,
                                                 const Shape& shape) const;

  const std::vector<std::pair<std::string, std::unique_ptr<Module>>>& children()
      const {
    return children_;
  }

 private:
  // A parameter or a buffer.
  struct StateTensor {
    std::string name;
    Shape shape;
    DType dtype = DType::kFloat32;
    bool is_buffer = false;
    Tensor tensor;  // undefined until initialized or loaded
  };
  enum class Kinds { kParameters, kBuffers, kAll };

  // LoadStateDict's work, from views; `copied` (optional) is told about
  // each piece of a view once it is on the device.
  absl::Status LoadState(
      const std::map<std::string, HostArrayView>& state,
      const std::function<void(const char*, size_t)>& copied);

  // The parameters and/or buffers of the tree, with dotted names; per
  // module its parameters, then its buffers, then its children's, as
  // PyTorch's state_dict.
  void CollectState(const std::string& prefix, Kinds kinds,
                    std::vector<std::pair<std::string, StateTensor*>>* out);
  void CollectState(
      const std::string& prefix, Kinds kinds,
      std::vector<std::pair<std::string, const StateTensor*>>* out) const;
  std::vector<std::pair<std::string, const Tensor*>> Named(Kinds kinds) const;
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
  std::vector<StateTensor> state_;  // in registration order
  std::vector<std::pair<std::string, std::unique_ptr<Module>>> children_;

  mutable absl::Mutex plans_mu_;
  std::map<std::string, std::unique_ptr<ExecutablePlan>> plans_
      ABSL_GUARDED_BY(plans_mu_);
  std::shared_ptr<WorkspacePool> workspaces_ ABSL_GUARDED_BY(plans_mu_) =
      std::make_shared<WorkspacePool>();
};

// Draws from N(0, stddev^2) with a fixed transform (Box-Muller over
// mt19937_64), so seeded models are identical across standard libraries.
float NormalSample(std::mt19937_64& rng, float stddev);
// Draws from U(-bound, bound), same portability.
float UniformSample(std::mt19937_64& rng, float bound);

}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_MODULE_H_
