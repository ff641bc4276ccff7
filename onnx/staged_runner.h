#ifndef SWITCHYARD_ONNX_STAGED_RUNNER_H_
#define SWITCHYARD_ONNX_STAGED_RUNNER_H_

// Runs an ONNX graph whose shapes are decided while it runs, as a chain of
// static plans ("segments"). Conversion goes node by node as in a single
// trace; when a converter needs data computed at run time, the segment ends
// there and is compiled and run, and then:
//  - contents (a Reshape's computed shape, TopK's k, If's condition: small
//    values, ConversionState::Need::kContents) are copied to the host, and
//    the next segment converts that node again with them as constants, so
//    the graph after it, an If's chosen branch included, is static again;
//  - a node whose output shape depends on its data (NonZero, NMS's selected
//    rows; Need::kHostInputs) runs on the host on this run's inputs, and its
//    outputs go back to the device as inputs of the next segment;
//  - a Loop (Need::kLoop) runs its body once per iteration, each iteration a
//    staged run of the body graph on the model's device (onnx/staged_loop.cc)
//    with segments of its own, cached like these;
//  - an If whose chosen branch itself needs run-time data (Need::kBranch:
//    a NonZero, a computed shape, a Loop inside the branch) runs that branch
//    as a staged run of its own (onnx/staged_subgraph.cc); a branch without
//    such needs is converted inline into the segment around it.
// Each such copy to the host is a synchronisation of the device, recorded
// by the profiler as a "d2h" copy named "<node> run-time value".
//
// Segments are cached by what decides them: where they start, the shape,
// dtype and device of each live tensor, and the contents of each live host
// value. A run with the same shapes and the same decisions compiles nothing
// (StagedRunStats::plans_compiled stays put); the cache keeps the
// `max_plans` most recently used segments.
//
//   StagedRunner runner(/*max_plans=*/64);
//   SY_ASSIGN_OR_RETURN(std::vector<Tensor> out, runner.Run(model, inputs));

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/executable_plan.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "models/host_array.h"
#include "onnx/node_context.h"
#include "onnx/onnx_pb.h"

namespace switchyard {
namespace onnx_import {

// What the runner needs of a model (OnnxModel fills it for each run).
struct StagedModel {
  const onnx::GraphProto* graph = nullptr;
  int opset = 0;
  std::vector<std::string> input_names;   // the graph inputs, in order
  std::vector<std::string> output_names;  // the graph outputs, in order
  // For each name, the index of the last node that reads it (the number of
  // nodes for graph outputs): a value is live at node p while this is >= p.
  const std::map<std::string, int>* last_use = nullptr;
  // CollectConsumers(*graph), computed once.
  std::shared_ptr<const ConsumerSets> consumers;
  // Puts the initializers (as parameters) and fixed inputs into a
  // conversion's env.
  std::function<void(ConversionState&)> add_constants;
  // A parameter's tensor as a constant of `graph`.
  std::function<absl::StatusOr<ValueId>(Graph&, const std::string&)> parameter_value;
  BackendRegistry* registry = nullptr;
  Device device = Device::Cpu();
  PlacementPolicy placement = PlacementPolicy::kStrict;
  // Where every segment's plan borrows memory for its intermediates: one
  // pool for the model, so a new input size reuses the memory of the last.
  std::shared_ptr<WorkspacePool> workspaces;
  // A Loop's body: its layers' prefix ("loop_1/body/") and nesting depth.
  std::string name_scope;
  int depth = 0;
};

// Compiles `graph` for `model`'s registry, device and placement policy.
absl::StatusOr<std::unique_ptr<ExecutablePlan>> CompileFor(const StagedModel& model,
                                                           Graph graph);

// Iterations one Loop node may run in one run unless raised
// (StagedRunner::set_max_loop_iterations, `switchyard run
// --max-loop-iterations`): a trip count or condition from data never spins
// without end.
inline constexpr int64_t kDefaultMaxLoopIterations = 100000;

struct StagedRunStats {
  int64_t runs = 0;
  int64_t segments_run = 0;
  int64_t plans_compiled = 0;
  double compile_ms = 0;  // converting and compiling those plans, host clock
  int64_t plan_cache_hits = 0;
  int64_t plans_evicted = 0;
  int64_t plans_cached = 0;
  int64_t host_steps = 0;       // nodes run on the host on run-time data
  int64_t run_time_copies = 0;  // device -> host copies to learn data
  int64_t loop_iterations = 0;  // body runs of Loop nodes
};

class StagedRunner {
 public:
  explicit StagedRunner(size_t max_plans = 64) : max_plans_(max_plans) {}

  // `trace`, when given, gets a line per step of this run (each segment's
  // placed graph, each value copied to the host, each host step and Loop),
  // for `switchyard graph`.
  absl::StatusOr<std::vector<Tensor>> Run(const StagedModel& model,
                                          absl::Span<const Tensor> inputs,
                                          const RunOptions& options = RunOptions(),
                                          std::vector<std::string>* trace = nullptr);

  // Counts of this runner and of the runners of its Loop bodies.
  StagedRunStats stats() const;
  // Drops every cached segment (the model's parameters changed).
  void Clear();
  void set_max_loop_iterations(int64_t n);
  int64_t max_loop_iterations() const;

 private:
  // A value between segments: a tensor on the model's device, data on the
  // host (whose contents decided later conversion), or a parameter under
  // another name.
  struct Carried {
    Tensor tensor;
    std::shared_ptr<const HostArray> host;
    std::string parameter;
  };
  using CarriedMap = std::map<std::string, Carried>;

  enum class Next { kEnd, kContents, kHostInputs, kLoop, kBranch };
  struct Segment {
    int end = 0;  // the node where the next step starts
    Next next = Next::kEnd;
    std::vector<std::string> needed;  // kContents: names to copy to the host
    std::shared_ptr<ExecutablePlan> plan;  // null: nothing to run
    std::vector<std::string> input_names;   // plan inputs, in order
    std::vector<std::string> output_names;  // plan outputs, in order
    // Live values the segment defines without running: host data, other
    // names for carried values, parameters.
    std::map<std::string, std::shared_ptr<const HostArray>> host_values;
    std::map<std::string, std::string> aliases;  // name -> carried name
    std::map<std::string, std::string> parameters;  // name -> parameter
  };

  static bool Live(const StagedModel& model, const std::string& name, int p);
  static std::string Key(const StagedModel& model, int start,
                         const CarriedMap& carried);
  absl::StatusOr<std::shared_ptr<const Segment>> Build(
      const StagedModel& model, int start, const CarriedMap& carried) const;
  absl::StatusOr<std::shared_ptr<const Segment>> Find(const StagedModel& model,
                                                      int start,
                                                      const CarriedMap& carried);
  // Copies `name`'s tensor to the host (a device synchronisation).
  absl::Status ToHost(const StagedModel& model, const std::string& name,
                      const std::string& why, Carried& value,
                      const RunOptions& options);
  // Runs node `p` on the host on its inputs' data.
  absl::Status HostStep(const StagedModel& model, int p, CarriedMap& carried,
                        const RunOptions& options);
  // Runs the model from `carried` (its inputs by name) to its outputs.
  absl::StatusOr<std::vector<Carried>> RunCarried(const StagedModel& model,
                                                  CarriedMap carried,
                                                  const RunOptions& options,
                                                  std::vector<std::string>* trace);
  // `name` from `carried`, else one of the model's constants (an
  // initializer or a fixed input); NotFound when it is neither.
  static absl::StatusOr<Carried> Lookup(const StagedModel& model,
                                        const std::string& name,
                                        const CarriedMap& carried);
  // Loop node `p` (onnx/staged_loop.cc): its body run per iteration, its
  // outputs into `carried`.
  absl::Status RunLoop(const StagedModel& model, int p, CarriedMap& carried,
                       const RunOptions& options, std::vector<std::string>* trace);
  // A scalar's value on the host (the trip count, a condition).
  absl::StatusOr<int64_t> ScalarOnHost(const StagedModel& model,
                                       const std::string& name, Carried value,
                                       const std::string& why,
                                       const RunOptions& options);
  // If node `p` (onnx/staged_subgraph.cc): its chosen branch as a staged
  // run, its outputs into `carried`.
  absl::Status RunBranch(const StagedModel& model, int p, CarriedMap& carried,
                         const RunOptions& options, std::vector<std::string>* trace);

  // A subgraph of node `first`: a Loop's body (second 0), an If's then (0)
  // or else (1) branch.
  using SubgraphKey = std::pair<int, int>;
  // The runner of a subgraph (created on first use).
  StagedRunner& SubgraphRunner(SubgraphKey key);
  // What a subgraph needs in every run, from its graph alone: prepared on
  // the first run, then shared.
  struct Subgraph {
    std::vector<std::string> outer_reads;  // values of the graph around
    std::map<std::string, std::shared_ptr<const HostArray>> constants;  // initializers
    std::map<std::string, int> last_use;
    std::shared_ptr<const ConsumerSets> consumers;
  };
  absl::StatusOr<std::shared_ptr<const Subgraph>> PreparedSubgraph(
      SubgraphKey key, const onnx::GraphProto& graph);
  // `model` with `graph` in its place: the subgraph's outputs, constants
  // (the model's and its own initializers), and names under `scope`
  // ("<layer>/body/"). `prepared` must outlive the result.
  static StagedModel SubgraphModel(const StagedModel& model, const onnx::GraphProto& graph,
                                   const Subgraph& prepared, const std::string& scope);
  // A Loop or If node as its errors name it ("<where>: ..."), and its layer
  // ("<name>", else its op type).
  struct ControlFlowNode {
    const onnx::NodeProto& proto;
    std::string where;
    std::string layer;
    absl::Status Fail(const absl::Status& s) const {
      return absl::Status(s.code(), absl::StrCat(where, ": ", s.message()));
    }
  };
  // Node `p` of `model`; InvalidArgument when its subgraph would nest
  // deeper than kMaxSubgraphDepth.
  static absl::StatusOr<ControlFlowNode> EnterControlFlow(const StagedModel& model, int p);
  // `heading`, then a subgraph run's trace lines, each indented two spaces.
  static std::string NestedTrace(std::string heading, const std::vector<std::string>& inner);

  const size_t max_plans_;
  mutable absl::Mutex mu_;
  int64_t max_loop_iterations_ ABSL_GUARDED_BY(mu_) = kDefaultMaxLoopIterations;
  std::map<SubgraphKey, std::unique_ptr<StagedRunner>> subgraph_runners_
      ABSL_GUARDED_BY(mu_);
  std::map<SubgraphKey, std::shared_ptr<const Subgraph>> subgraphs_ ABSL_GUARDED_BY(mu_);
  // Most recently used first.
  std::list<std::pair<std::string, std::shared_ptr<const Segment>>> lru_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, decltype(lru_)::iterator> index_ ABSL_GUARDED_BY(mu_);
  StagedRunStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_STAGED_RUNNER_H_
