#include "onnx/node_context.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "ops/functional.h"

namespace switchyard {
namespace onnx_import {
namespace {

// Folded results up to this many elements stay on the host; larger ones
// (a constant weight transformed by the graph) are computed there too but
// kept as graph constants only when read by graph nodes.
constexpr int64_t kMaxFoldElements = int64_t{1} << 24;

// Values computed at run time whose contents a converter may ask for
// (shapes, sizes, a condition): small, since each distinct content is a
// plan of its own.
constexpr int64_t kMaxRunTimeContents = 4096;

}  // namespace

ConversionState::ConversionState(
    Graph& graph, BackendRegistry& registry, Device device, std::string path,
    std::function<absl::StatusOr<ValueId>(const std::string&)> parameter_value)
    : graph_(graph),
      registry_(registry),
      device_(std::move(device)),
      path_(std::move(path)),
      parameter_value_(std::move(parameter_value)) {}

Val ConversionState::Add(ValueEntry entry) {
  entries_.push_back(std::move(entry));
  return static_cast<Val>(entries_.size() - 1);
}

absl::StatusOr<ValueId> ConversionState::GraphValue(Val v,
                                                    const std::string& name) {
  ValueEntry& e = entries_[v];
  if (e.id.has_value()) return *e.id;
  if (!e.parameter.empty()) {
    SY_ASSIGN_OR_RETURN(ValueId id, parameter_value_(e.parameter));
    e.id = id;
    return id;
  }
  if (e.host == nullptr) {
    return absl::InternalError(
        absl::StrCat("value '", name, "' has neither a graph value nor data"));
  }
  SY_ASSIGN_OR_RETURN(BackendDevice * device, registry_.GetDevice(device_));
  SY_ASSIGN_OR_RETURN(
      Tensor t, Tensor::FromBytes(e.host->shape, e.host->dtype,
                                  e.host->bytes.data(), e.host->bytes.size(),
                                  *device));
  const ValueId id = graph_.AddConstant(
      path_.empty() ? name : absl::StrCat(path_, ".", name), t);
  e.id = id;
  return id;
}

bool ConversionState::IsConsumed(const std::string& name) const {
  return consumed.count(name) > 0 ||
         (shared_consumers != nullptr && shared_consumers->consumed.count(name) > 0);
}

bool ConversionState::IsReadByNodes(const std::string& name) const {
  return read_by_nodes.count(name) > 0 ||
         (shared_consumers != nullptr && shared_consumers->read_by_nodes.count(name) > 0);
}

std::string ConversionState::UniqueLayer(const std::string& base) {
  std::string layer = path_.empty() ? base : absl::StrCat(path_, ".", base);
  if (layers_.insert(layer).second) return layer;
  for (int i = 1;; ++i) {
    std::string candidate = absl::StrCat(layer, "_", i);
    if (layers_.insert(candidate).second) return candidate;
  }
}

NodeContext::NodeContext(const onnx::NodeProto& node, int opset,
                         std::vector<Val> inputs, ConversionState& state)
    : node_(node),
      opset_(opset),
      inputs_(std::move(inputs)),
      looked_at_(inputs_.size(), false),
      outputs_(node.output_size()),
      state_(state) {
  layer_ = state.UniqueLayer(state.name_scope + (node.name().empty()
                                 ? absl::StrCat(node.op_type(), "_",
                                                node.output_size() > 0
                                                    ? node.output(0)
                                                    : std::string("out"))
                                 : node.name()));
}

absl::StatusOr<const HostArray*> NodeContext::HostInput(int i,
                                                        const char* what) {
  if (!HasInput(i)) {
    return absl::InvalidArgumentError(
        absl::StrCat("input ", i, " (", what, ") is missing"));
  }
  const HostArray* h = Host(In(i));
  if (h == nullptr) return NeedContents(i, what);
  return h;
}

absl::StatusOr<std::vector<int64_t>> NodeContext::ConstInts(int i,
                                                            const char* what) {
  SY_ASSIGN_OR_RETURN(const HostArray* h, HostInput(i, what));
  if (IsFloatingPoint(h->dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", i, " (", what, ") must be integers, got ",
        DTypeName(h->dtype)));
  }
  std::vector<int64_t> values(static_cast<size_t>(h->num_elements()));
  for (size_t k = 0; k < values.size(); ++k) {
    if (h->dtype == DType::kInt64) {
      std::memcpy(&values[k], h->bytes.data() + 8 * k, 8);
    } else {
      values[k] = static_cast<int64_t>(h->ElementAsDouble(k));
    }
  }
  return values;
}

absl::StatusOr<std::vector<double>> NodeContext::ConstDoubles(
    int i, const char* what) {
  SY_ASSIGN_OR_RETURN(const HostArray* h, HostInput(i, what));
  std::vector<double> values(static_cast<size_t>(h->num_elements()));
  for (size_t k = 0; k < values.size(); ++k) {
    values[k] = h->ElementAsDouble(static_cast<int64_t>(k));
  }
  return values;
}

absl::StatusOr<double> NodeContext::ConstScalar(int i, const char* what) {
  SY_ASSIGN_OR_RETURN(const HostArray* h, HostInput(i, what));
  if (h->num_elements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", i, " (", what, ") must be a scalar, got shape ",
        h->shape.ToString()));
  }
  return h->ElementAsDouble(0);
}

absl::Status NodeContext::NeedContents(int i, const char* what) {
  const int64_t elements = Type(In(i)).shape.num_elements();
  if (state_.run_time_data_allowed && elements <= kMaxRunTimeContents) {
    state_.need = ConversionState::Need::kContents;
    state_.needed.push_back(node_.input(i));
    return absl::UnavailableError(absl::StrCat(
        "input ", i, " (", what, ", '", node_.input(i),
        "') is computed at run time: its contents are needed first"));
  }
  if (state_.run_time_data_allowed) {
    return absl::UnimplementedError(absl::StrCat(
        "input ", i, " (", what, ", '", node_.input(i), "') is computed at run "
        "time and has ", elements, " elements; Switchyard reads such values on "
        "the host only up to ", kMaxRunTimeContents));
  }
  return absl::UnimplementedError(absl::StrCat(
      "input ", i, " (", what, ", '", node_.input(i),
      "') is computed at run time; a single static plan (Module::Forward, "
      "Compiled) needs it to be a constant (an initializer, or computable from "
      "shapes). OnnxModel::Run (switchyard run) runs such models in segments"));
}

absl::Status NodeContext::RequireHostInputs() {
  bool all_host = true;
  for (int i = 0; i < num_inputs(); ++i) {
    all_host = all_host && (!HasInput(i) || Host(In(i)) != nullptr);
  }
  if (all_host) return absl::OkStatus();
  if (state_.run_time_data_allowed) {
    state_.need = ConversionState::Need::kHostInputs;
    return absl::UnavailableError(absl::StrCat(
        op_type(), "'s output shape depends on its input data: it runs on the "
        "host once its inputs are there"));
  }
  return absl::UnimplementedError(absl::StrCat(
      op_type(), "'s output shape depends on data computed at run time; a "
      "single static plan (Module::Forward, Compiled) cannot hold it. "
      "OnnxModel::Run (switchyard run) runs such models in segments"));
}

const onnx::AttributeProto* NodeContext::Attr(const std::string& name) {
  for (const onnx::AttributeProto& a : node_.attribute()) {
    if (a.name() == name) {
      read_.insert(name);
      return &a;
    }
  }
  return nullptr;
}

bool NodeContext::HasAttr(const std::string& name) const {
  for (const onnx::AttributeProto& a : node_.attribute()) {
    if (a.name() == name) return true;
  }
  return false;
}

namespace {

absl::Status WrongType(const onnx::AttributeProto& a, const char* want) {
  return absl::InvalidArgumentError(absl::StrCat(
      "attribute '", a.name(), "' must be ", want, ", got ",
      onnx::AttributeProto::AttributeType_Name(a.type())));
}

}  // namespace

absl::StatusOr<int64_t> NodeContext::Int(const std::string& name,
                                         int64_t default_value) {
  const onnx::AttributeProto* a = Attr(name);
  if (a == nullptr) return default_value;
  if (a->type() != onnx::AttributeProto::INT) return WrongType(*a, "an INT");
  return a->i();
}

absl::StatusOr<float> NodeContext::Float(const std::string& name,
                                         float default_value) {
  const onnx::AttributeProto* a = Attr(name);
  if (a == nullptr) return default_value;
  if (a->type() != onnx::AttributeProto::FLOAT) return WrongType(*a, "a FLOAT");
  return a->f();
}

absl::StatusOr<std::string> NodeContext::String(
    const std::string& name, const std::string& default_value) {
  const onnx::AttributeProto* a = Attr(name);
  if (a == nullptr) return default_value;
  if (a->type() != onnx::AttributeProto::STRING) {
    return WrongType(*a, "a STRING");
  }
  return a->s();
}

absl::StatusOr<std::vector<int64_t>> NodeContext::Ints(
    const std::string& name, std::vector<int64_t> default_value) {
  const onnx::AttributeProto* a = Attr(name);
  if (a == nullptr) return default_value;
  if (a->type() != onnx::AttributeProto::INTS) return WrongType(*a, "INTS");
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

absl::StatusOr<std::vector<float>> NodeContext::Floats(const std::string& name) {
  const onnx::AttributeProto* a = Attr(name);
  if (a == nullptr) return std::vector<float>();
  if (a->type() != onnx::AttributeProto::FLOATS) return WrongType(*a, "FLOATS");
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

std::vector<int> NodeContext::UnreadInputs() const {
  std::vector<int> unread;
  for (int i = 0; i < num_inputs(); ++i) {
    if (inputs_[i] != kNoVal && !looked_at_[i]) unread.push_back(i);
  }
  return unread;
}

std::vector<std::string> NodeContext::UnreadAttributes() const {
  std::vector<std::string> unread;
  for (const onnx::AttributeProto& a : node_.attribute()) {
    if (read_.count(a.name()) == 0) unread.push_back(a.name());
  }
  return unread;
}

bool NodeContext::OutputUsed(int i) const {
  return i < num_outputs() && !node_.output(i).empty() &&
         state_.IsConsumed(node_.output(i));
}

absl::Status NodeContext::SetOutput(int i, Val v) {
  if (i >= num_outputs()) {
    return absl::InternalError(absl::StrCat("output ", i, " out of range"));
  }
  outputs_[i] = v;
  return absl::OkStatus();
}

bool NodeContext::AllOutputsSet() const {
  for (int i = 0; i < num_outputs(); ++i) {
    if (!node_.output(i).empty() && !outputs_[i].has_value()) return false;
  }
  return true;
}

Val NodeContext::Constant(HostArray array) {
  ValueEntry e;
  e.type = {array.shape, array.dtype};
  e.host = std::make_shared<const HostArray>(std::move(array));
  return state_.Add(std::move(e));
}

absl::StatusOr<std::vector<Val>> NodeContext::Emit(
    const std::string& op, const std::vector<Val>& operands,
    const AttrMap& attrs, int num_outputs) {
  // Types first: the op's own checks, whether folded or not.
  SY_ASSIGN_OR_RETURN(const OpDef* def, OpRegistry::Global().Find(op));
  std::vector<TensorType> types;
  bool all_host = true;
  int64_t in_elements = 0;
  const std::vector<DType>& allowed = def->schema().dtypes;
  for (Val v : operands) {
    if (v == kNoVal) continue;
    types.push_back(Type(v));
    all_host = all_host && Host(v) != nullptr;
    in_elements += types.back().shape.num_elements();
  }
  // A dtype the op does not take is a gap in what Switchyard supports, not
  // a bad model: Unimplemented, like an unsupported op. (Ops whose operands
  // differ in dtype check the others themselves.)
  if (!types.empty() && !allowed.empty() &&
      std::find(allowed.begin(), allowed.end(), types[0].dtype) == allowed.end()) {
    std::vector<std::string> names;
    for (DType d : allowed) names.push_back(DTypeName(d));
    return absl::UnimplementedError(absl::StrCat(
        op, " does not support ", DTypeName(types[0].dtype), " (it takes ",
        absl::StrJoin(names, ", "), ")"));
  }
  SY_RETURN_IF_ERROR(def->schema().CheckAttrs(attrs, op));
  SY_ASSIGN_OR_RETURN(std::vector<TensorType> out_types,
                      def->InferTypes(attrs, types));
  if (static_cast<int>(out_types.size()) != num_outputs) {
    return absl::InternalError(absl::StrCat(op, " gives ", out_types.size(),
                                            " outputs, expected ", num_outputs));
  }
  // An output too large to count (from huge declared dimensions) is the
  // model's error, found before anything multiplies its dimensions.
  int64_t out_elements = 0;
  for (const TensorType& t : out_types) {
    absl::StatusOr<Shape> checked = Shape::Create(t.shape.dims(), DTypeSize(t.dtype));
    if (!checked.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          op, " output: ", checked.status().message()));
    }
    out_elements += checked->num_elements();
  }
  const bool expands =
      out_elements > kMaxExpandedConstantElements && out_elements > 2 * in_elements;
  if (all_host && out_elements <= kMaxFoldElements && !expands) {
    return Fold(op, operands, attrs, num_outputs);
  }
  std::vector<ValueId> ids;
  for (Val v : operands) {
    if (v == kNoVal) continue;
    SY_ASSIGN_OR_RETURN(
        ValueId id,
        state_.GraphValue(v, absl::StrCat(layer_, ".const", state_.graph().values().size())));
    ids.push_back(id);
  }
  std::vector<ValueId> outs = state_.graph().AddNodeWithOutputs(
      op, layer_, std::move(ids), attrs, num_outputs);
  std::vector<Val> result;
  for (int i = 0; i < num_outputs; ++i) {
    Value& value = state_.graph().mutable_value(outs[i]);
    value.shape = out_types[i].shape;
    value.dtype = out_types[i].dtype;
    ValueEntry e;
    e.type = out_types[i];
    e.id = outs[i];
    result.push_back(state_.Add(std::move(e)));
  }
  return result;
}

absl::StatusOr<Val> NodeContext::EmitOne(const std::string& op,
                                         const std::vector<Val>& operands,
                                         const AttrMap& attrs) {
  SY_ASSIGN_OR_RETURN(std::vector<Val> out, Emit(op, operands, attrs, 1));
  return out[0];
}

absl::StatusOr<std::vector<Val>> NodeContext::Fold(
    const std::string& op, const std::vector<Val>& operands,
    const AttrMap& attrs, int num_outputs) {
  // The op runs eagerly on the host CPU: the same kernels as the graph.
  SY_ASSIGN_OR_RETURN(BackendDevice * cpu,
                      state_.registry().GetDevice(Device::Cpu()));
  std::vector<Tensor> tensors;
  for (Val v : operands) {
    if (v == kNoVal) {
      tensors.push_back(Tensor());
      continue;
    }
    const HostArray& h = *Host(v);
    SY_ASSIGN_OR_RETURN(
        Tensor t, Tensor::FromBytes(h.shape, h.dtype, h.bytes.data(),
                                    h.bytes.size(), *cpu));
    tensors.push_back(std::move(t));
  }
  absl::StatusOr<std::vector<Tensor>> outs =
      functional::Call(op, tensors, attrs, state_.registry());
  if (!outs.ok()) {
    return absl::Status(outs.status().code(),
                        absl::StrCat("folding ", op, " on the host: ",
                                     outs.status().message()));
  }
  std::vector<Val> result;
  for (const Tensor& t : *outs) {
    SY_ASSIGN_OR_RETURN(std::vector<char> bytes, t.ToBytes());
    result.push_back(Constant(HostArray(t.shape(), t.dtype(), std::move(bytes))));
  }
  return result;
}

}  // namespace onnx_import
}  // namespace switchyard
