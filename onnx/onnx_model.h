#ifndef SWITCHYARD_ONNX_ONNX_MODEL_H_
#define SWITCHYARD_ONNX_ONNX_MODEL_H_

// An .onnx file as a Switchyard module: its initializers are the module's
// parameters (named as in the file, so a PyTorch export keeps PyTorch's
// names), its graph is converted into Switchyard ops each time the module is
// traced for an input signature, and everything a Module does (To(device),
// Forward, Compiled, the CLI's run/bench/graph) works on it.
//
//   SY_ASSIGN_OR_RETURN(std::unique_ptr<OnnxModel> m,
//                       OnnxModel::Load("resnet50.onnx"));
//   SY_ASSIGN_OR_RETURN(std::vector<InputSpec> in, m->InputSpecs(/*batch=*/8));
//   SY_RETURN_IF_ERROR(m->To(*Device::Parse("cuda:0")));
//   absl::StatusOr<std::vector<Tensor>> logits = m->Forward({x});
//
// Loading reads the file once: each initializer is copied to the module's
// device and its bytes in the parsed file freed right after, so peak memory
// is about the file's size plus the largest tensor, and after loading only
// the parameters remain. Every node is converted once during Load (with the
// default input shapes), so an unsupported op, attribute or dtype is an
// error before anything runs, naming the node, op_type, domain and opset
// and listing what is supported.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/backend_registry.h"
#include "core/dtype.h"
#include "core/executable_plan.h"
#include "core/shape.h"
#include "models/host_array.h"
#include "models/module.h"
#include "onnx/onnx_pb.h"
#include "onnx/staged_runner.h"

namespace switchyard {

// A graph input or output as the model declares it.
struct OnnxValueInfo {
  std::string name;
  DType dtype = DType::kFloat32;
  // One per dimension: its size, or nullopt for a symbolic one (then
  // `dim_names` has its name, possibly empty).
  std::vector<std::optional<int64_t>> dims;
  std::vector<std::string> dim_names;
  bool has_shape = false;
  // "input [batch, 3, 224, 224] float32"
  std::string ToString() const;
};

// The ONNX opsets the importer converts (default domain): up to the newest
// ONNX Runtime 1.30 runs, each op read in the version the opset selects
// (onnx/op_versions.h). Older ones are lifted to kMinOnnxOpset first by
// ONNX's version converter (onnx/opset_conversion.h).
inline constexpr int kMinOnnxOpset = 11;
inline constexpr int kMaxOnnxOpset = 26;

class OnnxModel : public Module {
 public:
  // Segments of staged runs (Run) kept compiled, most recently used first.
  static constexpr size_t kMaxCachedSegments = 64;

  // Reads `path`, loads its initializers onto the CPU (`registry`'s cpu:0)
  // and checks that every node converts. Errors start with the path.
  // `check` false skips converting the graph (for callers that bind inputs
  // first and then call Check).
  ~OnnxModel() override;

  static absl::StatusOr<std::unique_ptr<OnnxModel>> Load(
      const std::string& path,
      BackendRegistry& registry = BackendRegistry::Global(), bool check = true);
  // The same from a serialized ModelProto in memory. `name` begins its
  // errors; external data files are read from `external_data_dir` ("" for
  // the working directory), as ONNX Runtime does for a model given as bytes.
  static absl::StatusOr<std::unique_ptr<OnnxModel>> LoadFromBytes(
      absl::string_view bytes, const std::string& name,
      const std::string& external_data_dir = "",
      BackendRegistry& registry = BackendRegistry::Global(), bool check = true);

  // Converts the graph for the default input shapes (InputSpecs()): OK when
  // every node converts. Symbolic dimensions that need a user's value are
  // not an error here.
  absl::Status Check() const;

  std::string type_name() const override { return "OnnxModel"; }
  // The declared outputs' names, then "<name>.rows" for each padded one.
  std::vector<std::string> OutputNames() const override;

  const std::vector<OnnxValueInfo>& inputs() const { return inputs_; }
  const std::vector<OnnxValueInfo>& outputs() const { return outputs_; }
  // The default-domain opset the graph is converted at; file_opset() is the
  // one the file declared (lower when ONNX's version converter lifted it).
  int opset() const { return opset_; }
  int file_opset() const { return file_opset_; }
  const std::string& producer() const { return producer_; }
  // The model's metadata_props (key, value), in the file's order.
  const std::vector<std::pair<std::string, std::string>>& metadata() const {
    return metadata_;
  }
  const std::string& path() const { return path_; }

  // Shapes for tracing: each input's declared shape with dimension 0
  // replaced by `batch` when given, and a symbolic dimension 0 otherwise 1.
  // `overrides` (by input name; "" for the only input) replace a whole
  // shape; the rank must match. A symbolic dimension other than the first,
  // not overridden, is an InvalidArgument saying how to give it.
  absl::StatusOr<std::vector<InputSpec>> InputSpecs(
      std::optional<int64_t> batch = std::nullopt,
      const std::map<std::string, Shape>& overrides = {},
      const Device& device = Device::Cpu()) const;

  // Runs the model on `inputs` (one per declared input, in order) and
  // returns its declared outputs, each with its exact shape. Unlike Forward
  // (one static plan per input signature), Run also takes graphs whose
  // shapes are decided while they run: values computed at run time that
  // decide shapes or branches (a Reshape's computed shape, an If's
  // condition), and ops whose output size depends on data (NonZero,
  // NonMaxSuppression feeding later nodes), and Loops (the body run once
  // per iteration). It runs them as a chain of static plans, cached by input
  // shapes and those decisions (onnx/staged_runner.h); run_stats() counts
  // what it compiled and reused.
  absl::StatusOr<std::vector<Tensor>> Run(absl::Span<const Tensor> inputs,
                                          const RunOptions& options = RunOptions()) override;
  // Run, and what it did step by step: each segment's placed graph, each
  // value copied to the host, each host step and Loop (`switchyard graph`
  // on a model whose shapes are decided while it runs).
  absl::StatusOr<std::vector<std::string>> DescribeRun(absl::Span<const Tensor> inputs);
  onnx_import::StagedRunStats run_stats() const;
  // Iterations a Loop node may run per Run (default
  // onnx_import::kDefaultMaxLoopIterations); beyond it, ResourceExhausted.
  // InvalidArgument for n < 1.
  absl::Status set_max_loop_iterations(int64_t n);

  // Fixes input `name` to `value` for every trace: it stops being an input
  // and becomes a constant, so values that decide shapes (a Reshape's shape,
  // Slice bounds, Clip limits fed as inputs) can be folded. InvalidArgument
  // for an unknown input or a value of another dtype or rank.
  absl::Status BindInput(const std::string& name, HostArray value);

  absl::StatusOr<std::vector<ValueId>> TraceValues(
      Graph& graph, absl::Span<const ValueId> inputs,
      const std::string& path) const override;

 protected:
  void OnPlansCleared() override;

 private:
  explicit OnnxModel(BackendRegistry& registry);
  // Load and LoadFromBytes after reading: `path` names the model in
  // errors, `dir` holds its external data, `file` is the model file ("" for
  // bytes).
  static absl::StatusOr<std::unique_ptr<OnnxModel>> FromProto(
      std::unique_ptr<onnx::ModelProto> proto, const std::string& path,
      const std::string& dir, const std::string& file, BackendRegistry& registry, bool check);
  // Puts the initializers and bound inputs into a conversion's env.
  void AddConstants(onnx_import::ConversionState& state) const;
  onnx_import::StagedModel Staged() const;
  // Ranks and fixed dimensions as declared; inputs that share a symbolic
  // dimension's name agree on its size.
  absl::Status CheckInputShapes(absl::Span<const Tensor> inputs) const;
  // Run's checks: count, definedness, dtypes, then CheckInputShapes.
  absl::Status CheckRunInputs(absl::Span<const Tensor> inputs) const;

  std::string path_;
  std::string producer_;
  std::vector<std::pair<std::string, std::string>> metadata_;
  int opset_ = 0;
  int file_opset_ = 0;
  std::vector<OnnxValueInfo> inputs_, outputs_;
  // The graph without its initializers' data (those are parameters).
  onnx::GraphProto graph_;
  // Initializers also kept on the host: integer ones (shapes, axes,
  // indices) and small ones, which conversion may need as attributes.
  std::map<std::string, std::shared_ptr<const HostArray>> host_initializers_;
  // Indices of outputs computed padded (see Run).
  std::vector<int> padded_outputs_;
  // Inputs fixed by BindInput.
  std::map<std::string, std::shared_ptr<const HostArray>> bound_inputs_;
  // Every initializer's type, by name.
  std::map<std::string, std::pair<Shape, DType>> initializer_types_;
  // For each name, the last node that reads it (the node count for graph
  // outputs): what the staged runner keeps between segments.
  std::map<std::string, int> last_use_;
  // The names nodes and outputs read, for every conversion of a staged run.
  std::shared_ptr<const onnx_import::ConsumerSets> consumers_;
  std::unique_ptr<onnx_import::StagedRunner> runner_;
};

}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_ONNX_MODEL_H_
