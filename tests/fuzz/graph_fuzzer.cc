// libFuzzer target for graph construction from random layer specifications.
//
// The input bytes are read as a small program: a graph input (rank 0..5,
// dimensions mostly small, sometimes 0, negative or near 2^63, on one of
// several devices, some missing or broken), then up to 8 nodes, each an op
// of the registry (or an unknown name) with attributes drawn from its schema
// (each declared attribute absent or of its declared type: plausible,
// huge and negative values; sometimes the wrong type or an unknown name)
// and the operands its schema declares (optional ones sometimes left out):
// earlier values, or parameters whose shapes are usually what the op wants
// and sometimes not, placed on random devices.
//
// The graph goes through the standard pipeline (shape inference, strict
// placement). It must never crash or hang; errors are fine but must carry a
// specific code (never Internal, which marks a broken invariant). When a
// graph passes and is small (<= 4 MiB of buffers, <= 2e7 FLOPs, every
// parameter materialized) it is also lowered and run on the CPU backend and
// the test devices, so kernels meet the same random geometry under ASan.
//
// Built by tools/fuzz.sh (libFuzzer) and by Bazel as
// //tests/fuzz:graph_fuzzer_replay_test (corpus replay).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_backend.h"
#include "core/backend.h"
#include "core/backend_registry.h"
#include "core/buffer_plan.h"
#include "core/compile.h"
#include "core/dtype.h"
#include "core/executable_plan.h"
#include "core/graph.h"
#include "core/op_def.h"
#include "core/tensor.h"
#include "core/testing/host_backend.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_choices.h"

namespace switchyard {
namespace {

constexpr int kMaxNodes = 8;
constexpr int64_t kMaxMaterializedElements = 1 << 16;  // per parameter
constexpr int64_t kMaxRunBytes = 4 << 20;
constexpr int64_t kMaxRunFlops = 20'000'000;

using fuzz::Choices;

// Values that sit on the edges of the arithmetic in ops/ and core/.
const std::vector<int64_t>& EdgeValues() {
  static const auto* values = new std::vector<int64_t>{
      0,
      -1,
      int64_t{1} << 30,
      (int64_t{1} << 30) + 1,
      int64_t{1} << 31,
      int64_t{1} << 40,
      int64_t{1} << 61,
      int64_t{1} << 62,
      std::numeric_limits<int64_t>::max(),
      std::numeric_limits<int64_t>::min()};
  return *values;
}

// A dimension: mostly 1..8, sometimes 0 or an edge value.
int64_t Dim(Choices& c) {
  const uint8_t kind = c.Byte();
  if (kind < 200) return c.Range(1, 8);
  if (kind < 230) return 0;
  return c.Pick(EdgeValues());
}

// A small attribute integer: mostly 0..4, sometimes an edge value.
int64_t SmallInt(Choices& c) {
  const uint8_t kind = c.Byte();
  if (kind < 220) return c.Range(0, 4);
  return c.Pick(EdgeValues());
}

std::vector<int64_t> IntList(Choices& c, int usual_length) {
  int length = usual_length;
  if (c.Byte() >= 230) length = c.Range(0, 4);
  std::vector<int64_t> values;
  for (int i = 0; i < length; ++i) values.push_back(SmallInt(c));
  return values;
}

// Usually a value of the attribute's declared type (a list as long as its
// default, else 2 values); sometimes a value of any other type.
AttrValue RandomValue(Choices& c, const AttrSpec& spec) {
  AttrType type = spec.type;
  if (c.Byte() >= 235) type = static_cast<AttrType>(c.Range(0, 5));
  int usual_length = 2;
  if (spec.default_value.has_value()) {
    const auto* d = std::get_if<std::vector<int64_t>>(&*spec.default_value);
    if (d != nullptr && !d->empty()) usual_length = static_cast<int>(d->size());
  }
  static const std::vector<double> kFloats = {
      0.0,  1e-5, 0.5, 1.0, -0.1, 1.5, -1e-5,
      std::numeric_limits<double>::quiet_NaN(),
      std::numeric_limits<double>::infinity(),
      -std::numeric_limits<double>::infinity()};
  switch (type) {
    case AttrType::kInt: {
      const int64_t v = SmallInt(c);
      return c.Bool() || v == std::numeric_limits<int64_t>::min() ? v : -v;
    }
    case AttrType::kInts:
      return IntList(c, usual_length);
    case AttrType::kFloat:
      return c.Pick(kFloats);
    case AttrType::kBool:
      return c.Bool();
    case AttrType::kString: {
      static const std::vector<std::string> kStrings = {
          "cpu:0", "fake:0", "fake:1", "fake:7", "broken:0", "absent:0",
          "CPU",   "",       "cpu:01", "cpu:-1"};
      return c.Pick(kStrings);
    }
    case AttrType::kFloats: {
      std::vector<double> values(c.Range(0, 3));
      for (double& v : values) v = c.Pick(kFloats);
      return values;
    }
  }
  return int64_t{0};
}

// What the fuzzer draws from: every op in the registry, with its schema
// (operands and attributes with their types and defaults), and one name no
// op has.
struct OpChoice {
  std::string op;
  const OpSchema* schema;  // null for the unknown op
};

const std::vector<OpChoice>& Ops() {
  static const auto* ops = [] {
    auto* choices = new std::vector<OpChoice>;
    for (const std::string& name : OpRegistry::Global().Names()) {
      choices->push_back({name, &(*OpRegistry::Global().Find(name))->schema()});
    }
    choices->push_back({"no_such_op", nullptr});
    return choices;
  }();
  return *ops;
}

// Attributes from the op's schema: each declared one absent (its default)
// or drawn by RandomValue; now and then one the op does not know.
AttrMap RandomAttrs(Choices& c, const OpSchema* schema) {
  AttrMap attrs;
  if (schema == nullptr) {
    attrs.Set("x", SmallInt(c));
    return attrs;
  }
  for (const AttrSpec& spec : schema->attrs) {
    if (c.Byte() < 64) continue;  // absent: the op's default, if any
    attrs.Set(spec.name, RandomValue(c, spec));
  }
  if (c.Byte() >= 250) attrs.Set("unknown_attr", int64_t{1});
  return attrs;
}

// Devices a value may live on: mostly the CPU; the test backend's two
// devices; a device index past its backend's count; a backend whose
// factory fails; a type nobody registered.
Device RandomDevice(Choices& c) {
  static const auto* devices = new std::vector<Device>{
      Device::Cpu(),
      Device::Cpu(),
      Device::Cpu(),
      Device::Cpu(),
      *Device::Parse("fake:0"),
      *Device::Parse("fake:1"),
      *Device::Parse("fake:7"),
      *Device::Parse("broken:0"),
      *Device::Parse("absent:0")};
  return c.Pick(*devices);
}

BackendRegistry& Registry() {
  static BackendRegistry* registry = [] {
    auto* r = new BackendRegistry();
    (void)r->Register("cpu", [] { return cpu::CreateCpuBackend(); });
    (void)r->Register("fake", [] { return testing::MakeHostBackend("fake", 2); });
    (void)r->Register(
        "broken", []() -> absl::StatusOr<std::unique_ptr<Backend>> {
          return absl::InternalError("this test backend never starts");
        });
    (void)r->SetOption("cpu", "threads", "2");
    return r;
  }();
  return *registry;
}

// The owner of shape-only parameter buffers (no data, on any device, real
// or not): placement reads only their device, and a graph holding one is
// never run, so nothing here is ever called.
class ShapeOnlyDevice : public BackendDevice {
 public:
  static constexpr char kNoData[] = "a shape-only fuzz parameter has no data";

  const Device& device() const override { return device_; }
  DeviceInfo Info() const override { return {}; }
  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t) override {
    return absl::FailedPreconditionError(kNoData);
  }
  absl::Status CopyFromHost(const void*, Buffer&, size_t) override {
    return absl::FailedPreconditionError(kNoData);
  }
  absl::Status CopyToHost(const Buffer&, void*, size_t) override {
    return absl::FailedPreconditionError(kNoData);
  }
  absl::Status Supports(const Node&, const Graph&) const override {
    return absl::UnimplementedError(kNoData);
  }
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(const Node&,
                                                       const Graph&) override {
    return absl::UnimplementedError(kNoData);
  }

 private:
  Device device_ = Device::Cpu();
};

BackendDevice& ShapeOnlyOwner() {
  static ShapeOnlyDevice* owner = new ShapeOnlyDevice();
  return *owner;
}

bool Available(const Device& device) {
  return Registry().GetDevice(device).ok();
}

// A parameter tensor. Small ones on an available device get real memory;
// others are shape-only handles (no data), fine for the passes but never
// run.
Tensor Parameter(Choices& c, const Shape& shape, const Device& device,
                 bool* runnable) {
  absl::StatusOr<Shape> checked = Shape::Create(shape.dims());
  if (checked.ok() && checked->num_elements() <= kMaxMaterializedElements &&
      Available(device)) {
    std::vector<float> values(checked->num_elements());
    for (size_t i = 0; i < values.size(); ++i) {
      values[i] = static_cast<float>(static_cast<int>(i % 7) - 3) * 0.25f;
    }
    absl::StatusOr<Tensor> t =
        Tensor::FromVector(*checked, values, device, Registry());
    FUZZ_CHECK(t.ok());
    return *t;
  }
  *runnable = false;
  return Tensor(shape, DType::kFloat32,
                std::make_shared<Buffer>(ShapeOnlyOwner(), device, nullptr, 0,
                                         nullptr));
}

// Usually the shape the op expects for operand `name` from its input's
// inferred shape (when known), sometimes a random one. `out` is the
// layer's output width, drawn once per node so weight and bias agree.
Shape ParameterShape(Choices& c, const std::string& op, const std::string& name,
                     const Shape* input, int64_t groups, int64_t out) {
  if (input != nullptr && c.Byte() < 220) {
    if (op == "linear" && input->rank() >= 1) {
      const int64_t in = input->dim(input->rank() - 1);
      return name == "weight" ? Shape({out, in}) : Shape({out});
    }
    if (op == "conv2d" && input->rank() == 4) {
      // A plausible group count for the weight's shape; the attribute
      // itself keeps whatever value it was given.
      const int64_t g = groups >= 1 && groups <= 64 ? groups : 1;
      if (name != "weight") return Shape({g * out});
      return Shape({g * out, input->dim(1) / g, c.Range(1, 3), c.Range(1, 3)});
    }
    if (op == "batch_norm" && input->rank() >= 2) {
      return Shape({input->dim(1)});  // one value per channel
    }
    // Elementwise (add's other): the input's own shape.
    return *input;
  }
  std::vector<int64_t> dims;
  const int rank = c.Range(0, 4);
  for (int i = 0; i < rank; ++i) dims.push_back(Dim(c));
  return Shape(std::move(dims));
}

void CheckErrorCode(const absl::Status& status) {
  FUZZ_CHECK(!status.ok());
  FUZZ_CHECK(!status.message().empty());
  FUZZ_CHECK(status.code() != absl::StatusCode::kInternal &&
             status.code() != absl::StatusCode::kUnknown);
}

}  // namespace
}  // namespace switchyard

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace switchyard;  // NOLINT
  Choices c(data, size);
  Graph graph;
  bool runnable = true;

  // The graph input.
  std::vector<int64_t> input_dims;
  const int rank = c.Range(0, 5);
  for (int i = 0; i < rank; ++i) input_dims.push_back(Dim(c));
  const Shape input_shape(input_dims);
  const Device input_device = RandomDevice(c);
  std::vector<ValueId> values = {
      graph.AddInput("input", input_shape, input_device)};
  // Shapes as far as the op definitions can tell while building (null
  // after the first node they reject), to give parameters fitting shapes.
  std::vector<std::unique_ptr<Shape>> known;
  known.push_back(std::make_unique<Shape>(input_shape));

  const int num_nodes = c.Range(1, kMaxNodes);
  for (int n = 0; n < num_nodes; ++n) {
    const OpChoice& choice = c.Pick(Ops());
    AttrMap attrs = RandomAttrs(c, choice.schema);
    int64_t groups = 1;
    if (attrs.Has("groups")) {
      absl::StatusOr<int64_t> g = attrs.GetInt("groups");
      if (g.ok()) groups = *g;
    }

    // The first operand: usually the newest value.
    const size_t from =
        c.Byte() < 200 ? values.size() - 1 : c.Byte() % values.size();
    std::vector<ValueId> operands = {values[from]};
    const Shape* input_known = known[from].get();
    // The schema's other operands: usually a parameter shaped for the op,
    // sometimes an earlier value; an optional one (and those after it)
    // sometimes left out; a variadic one sometimes repeated.
    static const auto* kUnknownOpInputs =
        new std::vector<OperandSpec>{{"input"}};
    const std::vector<OperandSpec>& inputs =
        choice.schema != nullptr ? choice.schema->inputs : *kUnknownOpInputs;
    std::vector<const OperandSpec*> wanted;
    for (size_t i = 1; i < inputs.size(); ++i) {
      if (inputs[i].optional && c.Byte() < 40) break;
      wanted.push_back(&inputs[i]);
      if (inputs[i].variadic) {
        for (int extra = c.Range(0, 2); extra > 0; --extra) {
          wanted.push_back(&inputs[i]);
        }
      }
    }
    const int64_t out = c.Range(1, 6);
    for (const OperandSpec* spec : wanted) {
      if (c.Byte() < 32) {
        operands.push_back(values[c.Byte() % values.size()]);
        continue;
      }
      const Shape shape = ParameterShape(c, choice.op, spec->name, input_known,
                                         groups, out);
      const Device device =
          c.Byte() < 220 ? input_device : RandomDevice(c);
      operands.push_back(graph.AddConstant(
          absl::StrCat("layer", n, ".", spec->name, operands.size()),
          Parameter(c, shape, device, &runnable)));
    }
    if (c.Byte() >= 252) operands.push_back(values[0]);  // one too many

    // What the op definition says, to shape the next node's parameters.
    std::unique_ptr<Shape> out_known;
    absl::StatusOr<const OpDef*> def = OpRegistry::Global().Find(choice.op);
    bool all_known = def.ok();
    std::vector<Shape> operand_shapes;
    for (ValueId id : operands) {
      const Value& v = graph.value(id);
      if (v.producer >= 0) {
        const size_t index =
            std::find(values.begin(), values.end(), id) - values.begin();
        if (known[index] == nullptr) {
          all_known = false;
          break;
        }
        operand_shapes.push_back(*known[index]);
      } else {
        operand_shapes.push_back(*v.shape);
      }
    }
    if (all_known) {
      // Only shapes every value of which is valid: InferTypes' contract
      // is that its operands passed Shape::Create and that the count and
      // attributes passed the schema (the pass checks all of that first).
      bool valid = true;
      std::vector<TensorType> operand_types;
      for (const Shape& s : operand_shapes) {
        valid = valid && Shape::Create(s.dims()).ok();
        operand_types.push_back({s, DType::kFloat32});
      }
      const OpSchema& schema = (*def)->schema();
      valid = valid &&
              schema.CheckOperandCount(static_cast<int>(operands.size()),
                                       choice.op).ok() &&
              schema.CheckAttrs(attrs, choice.op).ok();
      if (valid) {
        absl::StatusOr<std::vector<TensorType>> inferred =
            (*def)->InferTypes(attrs, operand_types);
        if (inferred.ok() && !inferred->empty()) {
          out_known = std::make_unique<Shape>((*inferred)[0].shape);
        }
      }
    }
    values.push_back(graph.AddNode(choice.op, absl::StrCat("layer", n),
                                   std::move(operands), std::move(attrs)));
    known.push_back(std::move(out_known));
  }
  graph.AddOutput(values.back());
  if (c.Byte() >= 200) graph.AddOutput(values[c.Byte() % values.size()]);

  CompileOptions options;
  options.backends = &Registry();
  absl::Status placed = InferAndPlace(graph, options);
  if (!placed.ok()) {
    CheckErrorCode(placed);
    return 0;
  }

  // A placed graph is complete: every live value (an input, a constant or a
  // node's output; a pass that removes a node, as batch-norm folding does,
  // leaves its outputs behind, read by nothing) has a valid shape and a
  // device.
  int64_t flops = 0;
  for (const Value& v : graph.values()) {
    const bool input = std::find(graph.inputs().begin(), graph.inputs().end(),
                                 v.id) != graph.inputs().end();
    if (v.producer < 0 && !v.constant.has_value() && !input) continue;
    FUZZ_CHECK(v.shape.has_value() && v.device.has_value());
    FUZZ_CHECK(Shape::Create(v.shape->dims()).ok());
  }
  for (const Node& node : graph.nodes()) {
    FUZZ_CHECK(node.device.has_value());
    absl::StatusOr<const OpDef*> def = OpRegistry::Global().Find(node.op);
    FUZZ_CHECK(def.ok());
    const int64_t node_flops = (*def)->Flops(
        node.attrs, graph.InputShapes(node),
        *graph.value(node.outputs[0]).shape);
    FUZZ_CHECK(node_flops >= 0);
    flops = node_flops > kMaxRunFlops ? kMaxRunFlops + 1
                                      : std::min(flops + node_flops,
                                                 kMaxRunFlops + 1);
  }
  (void)graph.ToText();
  (void)graph.ToDot();

  absl::StatusOr<BufferPlan> plan = PlanBuffers(graph);
  FUZZ_CHECK(plan.ok());
  // Buffers, outputs and the input, each bounded before adding (a valid
  // shape may hold up to 2^61 floats, whose bytes overflow a sum).
  bool small = plan->planned_bytes <= static_cast<size_t>(kMaxRunBytes);
  int64_t elements = static_cast<int64_t>(plan->planned_bytes / sizeof(float));
  std::vector<int64_t> counts = {input_shape.num_elements()};
  for (ValueId id : graph.outputs()) {
    counts.push_back(graph.value(id).shape->num_elements());
  }
  for (int64_t n : counts) {
    small = small && n <= kMaxRunBytes / static_cast<int64_t>(sizeof(float));
    if (small) elements += n;
  }
  small = small && elements <= kMaxRunBytes / static_cast<int64_t>(sizeof(float));
  if (!runnable || flops > kMaxRunFlops || !small) return 0;

  // Small enough to run: lower onto the backends and execute.
  absl::StatusOr<std::unique_ptr<ExecutablePlan>> executable =
      ExecutablePlan::Lower(std::move(graph), Registry());
  if (!executable.ok()) {
    CheckErrorCode(executable.status());
    return 0;
  }
  std::vector<float> x(input_shape.num_elements());
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(static_cast<int>(i % 11) - 5) * 0.5f;
  }
  // The input's device may be missing when only a copy node reads it
  // (placement checks the devices nodes run on); no such tensor can exist.
  absl::StatusOr<Tensor> input =
      Tensor::FromVector(input_shape, x, input_device, Registry());
  if (!input.ok()) {
    CheckErrorCode(input.status());
    return 0;
  }
  absl::StatusOr<std::vector<Tensor>> outputs = (*executable)->Run({*input});
  if (!outputs.ok()) {
    CheckErrorCode(outputs.status());
    return 0;
  }
  const Graph& ran = (*executable)->graph();
  FUZZ_CHECK(outputs->size() == ran.outputs().size());
  for (size_t i = 0; i < outputs->size(); ++i) {
    const Value& v = ran.value(ran.outputs()[i]);
    FUZZ_CHECK((*outputs)[i].shape() == *v.shape);
    FUZZ_CHECK((*outputs)[i].device() == *v.device);
    absl::StatusOr<std::vector<float>> host = (*outputs)[i].ToVector();
    FUZZ_CHECK(host.ok());
  }
  return 0;
}
