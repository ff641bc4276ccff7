#ifndef SWITCHYARD_RUNTIME_SESSION_H_
#define SWITCHYARD_RUNTIME_SESSION_H_

// One way to open and run any model, the layer ONNX Runtime's
// InferenceSession is: a built-in model by name (models/model_zoo.h) or a
// model file (an .onnx path, or its bytes), put on a device with a
// placement, given weights (a built-in model's .safetensors or seeded
// initialisation; a file brings its own), and run the same way whatever it
// is. The front ends (tools/cli, python/) hold a Session and never ask what
// kind of model is inside: declared inputs and outputs, input shapes for a
// batch, staged-run facts and replicas all come from here.
//
//   SessionOptions options;
//   options.device = *Device::Parse("dnnl:0");
//   SY_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, Session::Create("resnet50.onnx", options));
//   SY_ASSIGN_OR_RETURN(std::vector<InputSpec> specs, s->InputSpecs(/*batch=*/8));
//   SY_ASSIGN_OR_RETURN(std::vector<Tensor> y, s->Run({x}));
//
// A front end that checks its inputs before a built-in model's weights are
// initialised (seconds for VGG) opens first and initialises later:
// Open(...), then inputs(), then Initialize(options) (or its parts: To,
// InitializeWeights / LoadWeights, set_placement).
//
// Threads: as Module. Run may be called from many threads at once; To,
// set_placement, the weights and SetMaxLoopIterations must not overlap any
// other call.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/device.h"
#include "core/executable_plan.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "models/module.h"
#include "onnx/onnx_model.h"
#include "onnx/staged_runner.h"
#include "runtime/model_inputs.h"
#include "runtime/replicas.h"

namespace switchyard {
namespace runtime {

// A model's input or output as it declares it: name, dtype, dimensions
// (fixed, or symbolic with a name). A model file's own; a built-in model's
// are its one float32 image batch "input" [batch, 3, height, width] and its
// class scores "output" [batch, ?].
using ValueInfo = OnnxValueInfo;

// What a staged run (shapes decided while the model runs) compiled and
// reused; all zero for a model that runs as one static plan.
using RunStats = onnx_import::StagedRunStats;

// Iterations one Loop node may run per Run unless told otherwise.
inline constexpr int64_t kDefaultMaxLoopIterations = onnx_import::kDefaultMaxLoopIterations;

// Whether `name` is a built-in model's ("vgg11", models/model_zoo.h), and
// whether it names a model file instead (not a built-in name, and a model
// file's extension: ".onnx"): the one place front ends decide which.
bool IsBuiltinModel(const std::string& name);
bool IsModelFile(const std::string& name);

struct SessionOptions {
  Device device = Device::Cpu();
  PlacementPolicy placement = PlacementPolicy::kStrict;
  // Weights to load (.safetensors, PyTorch's state_dict names): a built-in
  // model's, or values over a model file's initializers of the same names
  // (fine-tuned weights for an exported graph), as `run --weights` does.
  // Empty: a built-in model's seeded initialisation from `seed`; a file's
  // own initializers.
  std::string weights;
  uint64_t seed = 0;
  // Iterations a Loop node may run per Run; a built-in model has no Loop
  // node and ignores it.
  std::optional<int64_t> max_loop_iterations;
};

class Session {
 public:
  // A built-in model's name (its parameters not yet materialized), or a
  // path with a model file's extension (.onnx; its weights loaded on the
  // CPU). NotFound names the built-in models for any other name.
  static absl::StatusOr<std::unique_ptr<Session>> Open(
      const std::string& model, BackendRegistry& registry = BackendRegistry::Global());
  // `path` read as an ONNX file, whatever its name.
  static absl::StatusOr<std::unique_ptr<Session>> OpenFile(
      const std::string& path, BackendRegistry& registry = BackendRegistry::Global());
  // A serialized ONNX ModelProto; `name` begins its errors and is name().
  // External data files are read from the working directory.
  static absl::StatusOr<std::unique_ptr<Session>> OpenBytes(
      absl::string_view bytes, const std::string& name,
      BackendRegistry& registry = BackendRegistry::Global());
  // Open, then Initialize.
  static absl::StatusOr<std::unique_ptr<Session>> Create(
      const std::string& model, const SessionOptions& options,
      BackendRegistry& registry = BackendRegistry::Global());

  // The inputs a model declares, read without converting its graph (cheaper
  // than Open for a file): bench's shapes per batch size.
  static absl::StatusOr<std::vector<ValueInfo>> DeclaredInputs(
      const std::string& model, BackendRegistry& registry = BackendRegistry::Global());

  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The options applied in order: the Loop limit, the device, the weights,
  // the placement. All or nothing for the weights (Module's rule).
  absl::Status Initialize(const SessionOptions& options);

  // Initialize's parts, for front ends that time or order them.
  absl::Status To(const Device& device);
  // A built-in model's seeded initialisation; a model file has its weights.
  absl::Status InitializeWeights(uint64_t seed);
  // A .safetensors state dict loaded over the model's parameters (errors
  // start with `path`); replicas load it too.
  absl::Status LoadWeights(const std::string& path);
  void set_placement(PlacementPolicy policy) { module_->set_placement(policy); }
  PlacementPolicy placement() const { return module_->placement(); }
  const Device& device() const { return module_->device(); }
  // InvalidArgument for n < 1; FailedPrecondition for a built-in model.
  absl::Status SetMaxLoopIterations(int64_t n);

  // The name or path it was opened with ("the model bytes (N bytes)", ...).
  const std::string& name() const { return name_; }
  // A built-in model: its inputs and outputs are the generic ones above,
  // and its input shape is ModelInputShape's. Front ends word messages by it.
  bool builtin() const { return file_ == nullptr; }
  bool from_bytes() const { return from_bytes_; }

  const std::vector<ValueInfo>& inputs() const { return inputs_; }
  const std::vector<ValueInfo>& outputs() const { return outputs_; }
  // The names output files are given (Module::OutputNames; empty for a
  // built-in model).
  std::vector<std::string> OutputNames() const { return module_->OutputNames(); }

  // Shapes to compile or seed for: each input's declared shape with
  // dimension 0 set to `batch` (a symbolic one otherwise 1), `overrides` (by
  // input name; "" for the only input) replacing a whole shape. A built-in
  // model's follow ModelInputShape. InvalidArgument for a batch below 1.
  absl::StatusOr<std::vector<InputSpec>> InputSpecs(
      std::optional<int64_t> batch = std::nullopt,
      const std::map<std::string, Shape>& overrides = {},
      const Device& device = Device::Cpu()) const;

  // The same from what a user asked for (`request.shapes`, "1x3x224x224"
  // or "name:1x3x224x224" as --input_shape takes them, and `request.batch`;
  // files are not read): names and ranks checked against the declared
  // inputs (a file's fixed dimensions may be overridden), a built-in model's
  // shape by ModelInputShape: what `graph`, --precompile and `run`'s seeded
  // inputs are made for, whatever the model.
  absl::StatusOr<std::vector<InputSpec>> InputSpecsFor(const InputRequest& request,
                                                       const Device& device) const;

  // Runs the model on one tensor per declared input: the same call for
  // every model (Module::Run).
  absl::StatusOr<std::vector<Tensor>> Run(absl::Span<const Tensor> inputs,
                                          const RunOptions& options = RunOptions());

  // Whether Run takes models whose shapes are decided while they run (If,
  // Loop, NonZero: a chain of plans); otherwise it is one static plan.
  bool supports_staged_run() const { return file_ != nullptr; }
  RunStats run_stats() const;
  // A staged run on `inputs`, step by step (`switchyard graph`);
  // FailedPrecondition for a model that has only a static plan.
  absl::StatusOr<std::vector<std::string>> DescribeRun(absl::Span<const Tensor> inputs);

  // A second copy of the model on `device`, with this one's placement and
  // Loop limit: a file loaded again (and the weights LoadWeights gave this
  // one), a built-in model created with this one's state dict.
  // FailedPrecondition for a model given as bytes (no file to load again).
  absl::StatusOr<std::unique_ptr<Session>> Replica(const Device& device) const;
  // Data-parallel replicas (runtime/replicas.h): this session's model
  // serves devices[0] (moved there), a Replica each other device.
  absl::StatusOr<std::unique_ptr<ReplicaSet>> Replicate(const std::vector<Device>& devices);

  // The model itself, for what is the same on every model (tracing a
  // graph, Compiled, parameters).
  Module& module() { return *module_; }
  const Module& module() const { return *module_; }
  BackendRegistry& registry() const { return *registry_; }

 private:
  Session(std::string name, std::unique_ptr<Module> module, OnnxModel* file,
          BackendRegistry& registry);
  static std::unique_ptr<Session> FromFile(std::string name, std::unique_ptr<OnnxModel> file,
                                           BackendRegistry& registry);
  // Replica with a built-in model's state dict read once for all replicas.
  absl::StatusOr<std::unique_ptr<Session>> MakeReplica(
      const Device& device, std::optional<std::map<std::string, HostArray>>& state) const;

  BackendRegistry* registry_;
  std::string name_;
  std::unique_ptr<Module> module_;
  OnnxModel* file_ = nullptr;  // module_, when it is a model file
  bool from_bytes_ = false;
  std::vector<ValueInfo> inputs_, outputs_;
  std::string weights_;  // what LoadWeights loaded, for replicas
  std::optional<int64_t> max_loop_iterations_;
};

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_SESSION_H_
