#include "onnx/onnx_model.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "onnx/converter_registry.h"
#include "onnx/function_inlining.h"
#include "onnx/graph_conversion.h"
#include "onnx/node_context.h"
#include "onnx/onnx_tensor.h"
#include "onnx/opset_conversion.h"
#include "onnx/qdq_fusion.h"
#include "onnx/releasable_initializers.h"
#include "onnx/topological_sort.h"

namespace switchyard {
namespace {

using onnx_import::ConversionState;
using onnx_import::ExternalDataFiles;
using onnx_import::Val;
using onnx_import::ValueEntry;

// Initializers up to this many elements are also kept on the host (small
// float constants such as Clip bounds or LayerNorm epsilons in tensors).
constexpr int64_t kHostInitializerElements = 4096;

absl::Status Prefixed(const std::string& prefix, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat(prefix, ": ", s.message()));
}

// Parses the file through a stream: the file is never held in memory whole
// next to the parsed message.
absl::StatusOr<std::unique_ptr<onnx::ModelProto>> ReadModelProto(
    const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return absl::Status(err == ENOENT ? absl::StatusCode::kNotFound
                                      : absl::StatusCode::kInvalidArgument,
                        absl::StrCat("cannot open: ", std::strerror(err)));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError("not a regular file");
  }
  if (st.st_size == 0) {
    close(fd);
    return absl::InvalidArgumentError("the file is empty, not an ONNX model");
  }
  // Protobuf messages are limited to 2 GiB; bigger models keep their weights
  // in external data files.
  if (st.st_size >= std::numeric_limits<int>::max()) {
    close(fd);
    return absl::InvalidArgumentError(absl::StrCat(
        "the file is ", st.st_size,
        " bytes; an ONNX file must stay under 2 GiB (save the weights as "
        "external data: onnx.save_model(..., save_as_external_data=True))"));
  }
  auto model = std::make_unique<onnx::ModelProto>();
  bool parsed;
  {
    google::protobuf::io::FileInputStream file(fd);
    google::protobuf::io::CodedInputStream coded(&file);
    coded.SetTotalBytesLimit(std::numeric_limits<int>::max());
    parsed = model->ParseFromCodedStream(&coded) &&
             coded.ConsumedEntireMessage();
  }
  close(fd);
  if (!parsed) {
    return absl::InvalidArgumentError(
        "not a valid ONNX model (the protobuf does not parse: truncated, "
        "corrupt, or another kind of file)");
  }
  return model;
}

// The same from bytes in memory (a Python `bytes` or a serialized
// onnx.ModelProto).
absl::StatusOr<std::unique_ptr<onnx::ModelProto>> ParseModelProto(absl::string_view bytes) {
  if (bytes.empty()) return absl::InvalidArgumentError("no bytes, not an ONNX model");
  if (bytes.size() >= static_cast<size_t>(std::numeric_limits<int>::max())) {
    return absl::InvalidArgumentError(absl::StrCat(
        bytes.size(), " bytes; an ONNX model must stay under 2 GiB (save the weights as "
        "external data: onnx.save_model(..., save_as_external_data=True))"));
  }
  auto model = std::make_unique<onnx::ModelProto>();
  google::protobuf::io::CodedInputStream coded(
      reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
  coded.SetTotalBytesLimit(std::numeric_limits<int>::max());
  if (!model->ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
    return absl::InvalidArgumentError(
        "not a valid ONNX model (the protobuf does not parse: truncated, "
        "corrupt, or another kind of data)");
  }
  return model;
}

absl::StatusOr<OnnxValueInfo> ReadValueInfo(const onnx::ValueInfoProto& info) {
  OnnxValueInfo v;
  v.name = info.name();
  if (!info.type().has_tensor_type()) {
    return absl::UnimplementedError(absl::StrCat(
        "graph input/output '", info.name(),
        "' is not a tensor (sequences, maps and optionals are not supported)"));
  }
  const onnx::TypeProto::Tensor& t = info.type().tensor_type();
  absl::StatusOr<DType> dtype = onnx_import::DTypeFromOnnx(t.elem_type());
  if (!dtype.ok()) return Prefixed(absl::StrCat("'", info.name(), "'"), dtype.status());
  v.dtype = *dtype;
  if (t.has_shape()) {
    v.has_shape = true;
    if (t.shape().dim_size() > onnx_import::kMaxOnnxRank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'", info.name(), "' has ", t.shape().dim_size(), " dimensions"));
    }
    for (const auto& d : t.shape().dim()) {
      if (d.has_dim_value()) {
        if (d.dim_value() < 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              "'", info.name(), "' has a negative dimension ", d.dim_value()));
        }
        v.dims.push_back(d.dim_value());
        v.dim_names.push_back("");
      } else {
        v.dims.push_back(std::nullopt);
        v.dim_names.push_back(d.dim_param());
      }
    }
    // The declared sizes must be countable (symbolic ones taken as 1).
    std::vector<int64_t> known;
    for (const std::optional<int64_t>& d : v.dims) known.push_back(d.value_or(1));
    absl::Status countable = Shape::Create(known, DTypeSize(v.dtype)).status();
    if (!countable.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", info.name(), "': ", countable.message()));
    }
  }
  return v;
}


}  // namespace

std::string OnnxValueInfo::ToString() const {
  std::vector<std::string> d;
  for (size_t i = 0; i < dims.size(); ++i) {
    d.push_back(dims[i].has_value() ? absl::StrCat(*dims[i])
                : dim_names[i].empty() ? "?"
                                       : dim_names[i]);
  }
  return absl::StrCat(name, " ", has_shape ? absl::StrCat("[", absl::StrJoin(d, ", "), "]") : "[?]",
                      " ", DTypeName(dtype));
}

absl::StatusOr<std::unique_ptr<OnnxModel>> OnnxModel::Load(
    const std::string& path, BackendRegistry& registry, bool check) {
  absl::StatusOr<std::unique_ptr<onnx::ModelProto>> read = ReadModelProto(path);
  if (!read.ok()) return Prefixed(path, read.status());
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash);
  return FromProto(std::move(*read), path, dir, path, registry, check);
}

absl::StatusOr<std::unique_ptr<OnnxModel>> OnnxModel::LoadFromBytes(
    absl::string_view bytes, const std::string& name, const std::string& external_data_dir,
    BackendRegistry& registry, bool check) {
  absl::StatusOr<std::unique_ptr<onnx::ModelProto>> parsed = ParseModelProto(bytes);
  if (!parsed.ok()) return Prefixed(name, parsed.status());
  return FromProto(std::move(*parsed), name, external_data_dir, "", registry, check);
}

absl::StatusOr<std::unique_ptr<OnnxModel>> OnnxModel::FromProto(
    std::unique_ptr<onnx::ModelProto> proto, const std::string& path, const std::string& dir,
    const std::string& file, BackendRegistry& registry, bool check) {
  std::unique_ptr<OnnxModel> model(new OnnxModel(registry));
  model->path_ = path;
  model->producer_ = absl::StrCat(proto->producer_name(), " ",
                                  proto->producer_version());
  for (const onnx::OperatorSetIdProto& o : proto->opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") {
      model->opset_ = static_cast<int>(o.version());
    }
  }
  if (model->opset_ == 0) {
    return absl::UnimplementedError(absl::StrCat(
        path, ": the model imports no default-domain (ai.onnx) opset; "
              "Switchyard converts opsets ", kMinOnnxOpset, " to ", kMaxOnnxOpset));
  }
  model->file_opset_ = model->opset_;
  if (model->opset_ > kMaxOnnxOpset || model->opset_ < 0) {
    return absl::UnimplementedError(absl::StrCat(
        path, ": the model uses opset ", model->opset_,
        "; Switchyard converts opsets 1 to ", kMaxOnnxOpset, " (", kMinOnnxOpset,
        " and later directly, older ones through ONNX's version converter), "
        "as ONNX Runtime 1.30 does; re-export with torch.onnx.export(..., "
        "opset_version=", kMaxOnnxOpset, ") or lower"));
  }
  if (model->opset_ < kMinOnnxOpset) {
    absl::Status lifted = onnx_import::ConvertOpset(*proto, model->opset_, kMinOnnxOpset);
    if (!lifted.ok()) return Prefixed(path, lifted);
    model->opset_ = kMinOnnxOpset;
  }
  if (!proto->has_graph()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": the model has no graph"));
  }
  absl::Status inlined = onnx_import::InlineFunctions(*proto);
  if (!inlined.ok()) return Prefixed(path, inlined);
  absl::Status sorted = onnx_import::SortNodes(*proto->mutable_graph());
  if (!sorted.ok()) return Prefixed(path, sorted);
  // QDQ groups around a Conv or Add run as one quantized op, as in ONNX
  // Runtime.
  onnx_import::FuseQdqGroups(*proto->mutable_graph(), dir);
  for (const onnx::StringStringEntryProto& entry : proto->metadata_props()) {
    model->metadata_.emplace_back(entry.key(), entry.value());
  }
  onnx::GraphProto& graph = *proto->mutable_graph();

  // Initializers become parameters, loaded straight from the parsed bytes.
  ExternalDataFiles external(dir, file);
  std::map<std::string, HostArrayView> views;
  std::map<std::string, HostArray> converted;  // typed-field initializers
  std::map<const char*, onnx::TensorProto*> owner_of;
  std::set<std::string> initializer_names;
  for (onnx::TensorProto& t : *graph.mutable_initializer()) {
    if (!initializer_names.insert(t.name()).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": initializer '", t.name(), "' is defined twice"));
    }
    absl::StatusOr<std::optional<HostArrayView>> view =
        onnx_import::RawTensorView(t, external);
    if (!view.ok()) return Prefixed(path, view.status());
    HostArrayView v;
    if (view->has_value()) {
      v = **view;
    } else {
      absl::StatusOr<HostArray> array = onnx_import::ReadTensorProto(t, external);
      if (!array.ok()) return Prefixed(path, array.status());
      HostArray& kept = converted[t.name()] = std::move(*array);
      v = HostArrayView{kept.shape, kept.dtype, kept.bytes.data(),
                        kept.bytes.size()};
    }
    model->initializer_types_[t.name()] = {v.shape, v.dtype};
    // Quantized data (integers, float8) stays on the host too, so that
    // the dequantization of a constant weight folds at import.
    if (!IsFloatingPoint(v.dtype) || IsFloat8(v.dtype) ||
        v.shape.num_elements() <= kHostInitializerElements) {
      model->host_initializers_[t.name()] = std::make_shared<const HostArray>(
          v.shape, v.dtype, std::vector<char>(v.data, v.data + v.size_bytes));
    }
    if (t.has_raw_data()) owner_of[v.data] = &t;
    model->RegisterParameter(t.name(), v.shape, v.dtype);
    views[t.name()] = v;
  }
  // Each raw_data string is freed once its last piece is on the device.
  std::map<const char*, size_t> copied_bytes;
  absl::Status loaded = model->LoadStateViews(
      views, [&](const char* data, size_t size) {
        external.Release(data, size);
        for (auto& [name, v] : views) {
          if (data < v.data || data >= v.data + v.size_bytes) continue;
          size_t& done = copied_bytes[v.data];
          done += size;
          auto it = owner_of.find(v.data);
          if (done >= v.size_bytes && it != owner_of.end()) {
            std::string().swap(*it->second->mutable_raw_data());
          }
          return;
        }
      });
  if (!loaded.ok()) return Prefixed(path, loaded);
  graph.clear_initializer();
  converted.clear();
  // A model read from a file can read its large weights back from it, so
  // their memory can be given back once the kernels hold their own copies.
  if (!file.empty()) onnx_import::RegisterReleasableInitializers(file, model->NamedParameters());

  for (const onnx::ValueInfoProto& info : graph.input()) {
    if (initializer_names.count(info.name())) continue;  // IR < 4 lists them
    absl::StatusOr<OnnxValueInfo> v = ReadValueInfo(info);
    if (!v.ok()) return Prefixed(path, v.status());
    model->inputs_.push_back(std::move(*v));
  }
  for (const onnx::ValueInfoProto& info : graph.output()) {
    absl::StatusOr<OnnxValueInfo> v = ReadValueInfo(info);
    if (!v.ok()) return Prefixed(path, v.status());
    model->outputs_.push_back(std::move(*v));
  }
  if (model->outputs_.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": the graph has no outputs"));
  }
  graph.clear_value_info();  // only the converter's own inference is used
  // Outputs with a data-dependent row count (NonMaxSuppression's).
  for (const onnx::NodeProto& node : graph.node()) {
    if (node.op_type() != "NonMaxSuppression" || node.output_size() == 0) continue;
    for (size_t i = 0; i < model->outputs_.size(); ++i) {
      if (model->outputs_[i].name == node.output(0)) {
        model->padded_outputs_.push_back(static_cast<int>(i));
      }
    }
  }
  model->graph_ = std::move(graph);
  proto.reset();
  for (int p = 0; p < model->graph_.node_size(); ++p) {
    for (const std::string& name : onnx_import::NodeReads(model->graph_.node(p))) {
      model->last_use_[name] = p;
    }
  }
  for (const OnnxValueInfo& out : model->outputs_) {
    model->last_use_[out.name] = model->graph_.node_size();
  }
  model->consumers_ = std::make_shared<const onnx_import::ConsumerSets>(
      onnx_import::CollectConsumers(model->graph_));

  // Convert once now, so that nothing unsupported waits until a run.
  if (check) SY_RETURN_IF_ERROR(model->Check());
  return model;
}

absl::Status OnnxModel::Check() const {
  absl::StatusOr<std::vector<InputSpec>> specs = InputSpecs();
  // Symbolic dimensions the user must give: checked when they are given.
  if (!specs.ok()) return absl::OkStatus();
  // Converts as a staged run would, up to the first value that only a run
  // can give: everything before it is checked now, the rest at Run.
  Graph graph;
  ConversionState state(graph, registry(), device(), "",
                        [&](const std::string& name) {
                          return ParameterValue(graph, name, "");
                        });
  state.run_time_data_allowed = true;
  for (size_t i = 0; i < specs->size(); ++i) {
    ValueEntry e;
    e.type = {(*specs)[i].shape, (*specs)[i].dtype};
    e.id = graph.AddInput(inputs_[i].name, (*specs)[i].shape, (*specs)[i].device,
                          (*specs)[i].dtype);
    state.env[inputs_[i].name] = state.Add(std::move(e));
  }
  AddConstants(state);
  onnx_import::NoteConsumers(graph_, state);
  for (const onnx::NodeProto& node : graph_.node()) {
    absl::Status converted = onnx_import::ConvertNode(node, opset_, state);
    if (converted.ok()) continue;
    if (state.need != ConversionState::Need::kNone) break;
    return Prefixed(path_, converted);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<InputSpec>> OnnxModel::InputSpecs(
    std::optional<int64_t> batch, const std::map<std::string, Shape>& overrides,
    const Device& device) const {
  for (const auto& [name, shape] : overrides) {
    bool known = name.empty() && inputs_.size() == 1;
    for (const OnnxValueInfo& in : inputs_) known = known || in.name == name;
    if (!known) {
      std::vector<std::string> names;
      for (const OnnxValueInfo& in : inputs_) names.push_back(in.name);
      return absl::InvalidArgumentError(absl::StrCat(
          "an input shape was given for '", name,
          "', which is not an input of the model (inputs: ",
          absl::StrJoin(names, ", "), ")"));
    }
  }
  std::vector<InputSpec> specs;
  for (const OnnxValueInfo& in : inputs_) {
    InputSpec spec;
    spec.dtype = in.dtype;
    spec.device = device;
    auto it = overrides.find(in.name);
    if (it == overrides.end() && inputs_.size() == 1) it = overrides.find("");
    if (it != overrides.end()) {
      if (in.has_shape && it->second.rank() != static_cast<int>(in.dims.size())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input ", in.ToString(), " has rank ", in.dims.size(),
            "; the shape given, ", it->second.ToString(), ", has rank ",
            it->second.rank()));
      }
      absl::StatusOr<Shape> shape =
          Shape::Create(it->second.dims(), DTypeSize(in.dtype));
      if (!shape.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("input ", in.ToString(), ": ", shape.status().message()));
      }
      spec.shape = *shape;
      specs.push_back(spec);
      continue;
    }
    if (!in.has_shape) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", in.name, "' has no declared shape; give it with "
          "--input_shape=", in.name, ":1x3x224x224"));
    }
    std::vector<int64_t> dims;
    for (size_t d = 0; d < in.dims.size(); ++d) {
      if (d == 0 && batch.has_value()) {
        dims.push_back(*batch);
      } else if (in.dims[d].has_value()) {
        dims.push_back(*in.dims[d]);
      } else if (d == 0) {
        dims.push_back(1);
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            "input ", in.ToString(), ": dimension ", d, " ('", in.dim_names[d],
            "') is symbolic; give the whole shape with --input_shape=",
            inputs_.size() == 1 ? "" : in.name + ":", "1x3x224x224 (for example)"));
      }
    }
    absl::StatusOr<Shape> shape = Shape::Create(dims, DTypeSize(in.dtype));
    if (!shape.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("input ", in.ToString(), ": ", shape.status().message()));
    }
    spec.shape = *shape;
    specs.push_back(spec);
  }
  return specs;
}

std::vector<std::string> OnnxModel::OutputNames() const {
  std::vector<std::string> names;
  for (const OnnxValueInfo& out : outputs_) names.push_back(out.name);
  for (int i : padded_outputs_) names.push_back(outputs_[i].name + ".rows");
  return names;
}

OnnxModel::OnnxModel(BackendRegistry& registry)
    : Module(registry),
      runner_(std::make_unique<onnx_import::StagedRunner>(kMaxCachedSegments)) {}

OnnxModel::~OnnxModel() = default;

void OnnxModel::OnPlansCleared() {
  if (runner_ != nullptr) runner_->Clear();
}

onnx_import::StagedModel OnnxModel::Staged() const {
  onnx_import::StagedModel m;
  m.graph = &graph_;
  m.opset = opset_;
  for (const OnnxValueInfo& in : inputs_) m.input_names.push_back(in.name);
  for (const OnnxValueInfo& out : outputs_) m.output_names.push_back(out.name);
  m.last_use = &last_use_;
  m.consumers = consumers_;
  m.add_constants = [this](ConversionState& state) { AddConstants(state); };
  m.parameter_value = [this](Graph& graph, const std::string& name) {
    return ParameterValue(graph, name, "");
  };
  m.registry = &registry();
  m.device = device();
  m.placement = placement();
  m.workspaces = workspaces();
  return m;
}

absl::Status OnnxModel::CheckRunInputs(absl::Span<const Tensor> inputs) const {
  if (inputs.size() != inputs_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the model takes ", inputs_.size(), " inputs, got ", inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined()) {
      return absl::InvalidArgumentError(
          absl::StrCat("input ", inputs_[i].ToString(), " was given an undefined tensor"));
    }
    if (inputs[i].dtype() != inputs_[i].dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", inputs_[i].ToString(), " was given ", DTypeName(inputs[i].dtype())));
    }
  }
  return CheckInputShapes(inputs);
}

absl::StatusOr<std::vector<Tensor>> OnnxModel::Run(absl::Span<const Tensor> inputs,
                                                   const RunOptions& options) {
  SY_RETURN_IF_ERROR(CheckRunInputs(inputs));
  return runner_->Run(Staged(), inputs, options);
}

absl::StatusOr<std::vector<std::string>> OnnxModel::DescribeRun(
    absl::Span<const Tensor> inputs) {
  SY_RETURN_IF_ERROR(CheckRunInputs(inputs));
  std::vector<std::string> steps;
  SY_RETURN_IF_ERROR(runner_->Run(Staged(), inputs, RunOptions(), &steps).status());
  return steps;
}

absl::Status OnnxModel::CheckInputShapes(absl::Span<const Tensor> inputs) const {
  // Each named symbolic dimension's size, and the input that set it.
  std::map<std::string, std::pair<int64_t, std::string>> sizes;
  for (size_t i = 0; i < inputs.size() && i < inputs_.size(); ++i) {
    const OnnxValueInfo& in = inputs_[i];
    const Shape& shape = inputs[i].shape();
    if (!in.has_shape) continue;
    if (shape.rank() != static_cast<int>(in.dims.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", in.ToString(), " was given a tensor of shape ", shape.ToString(),
          " (rank ", shape.rank(), ", the model declares ", in.dims.size(), ")"));
    }
    for (size_t d = 0; d < in.dims.size(); ++d) {
      const int64_t size = shape.dim(static_cast<int>(d));
      if (in.dims[d].has_value() && *in.dims[d] != size) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input ", in.ToString(), " was given shape ", shape.ToString(),
            ": dimension ", d, " must be ", *in.dims[d]));
      }
      if (in.dims[d].has_value() || in.dim_names[d].empty()) continue;
      auto [it, first] = sizes.emplace(in.dim_names[d], std::make_pair(size, in.name));
      if (!first && it->second.first != size) {
        return absl::InvalidArgumentError(absl::StrCat(
            "symbolic dimension '", in.dim_names[d], "' is ", it->second.first,
            " in input '", it->second.second, "' but ", size, " in input '", in.name,
            "'; inputs that share a dimension name must agree on its size"));
      }
    }
  }
  return absl::OkStatus();
}

onnx_import::StagedRunStats OnnxModel::run_stats() const { return runner_->stats(); }

absl::Status OnnxModel::set_max_loop_iterations(int64_t n) {
  if (n < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("the Loop iteration limit must be at least 1, got ", n));
  }
  runner_->set_max_loop_iterations(n);
  return absl::OkStatus();
}

absl::Status OnnxModel::BindInput(const std::string& name, HostArray value) {
  for (auto it = inputs_.begin(); it != inputs_.end(); ++it) {
    if (it->name != name) continue;
    if (value.dtype != it->dtype ||
        (it->has_shape && value.shape.rank() != static_cast<int>(it->dims.size()))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", it->ToString(), " cannot be bound to a ", DTypeName(value.dtype),
          " ", value.shape.ToString(), " value"));
    }
    bound_inputs_[name] = std::make_shared<const HostArray>(std::move(value));
    inputs_.erase(it);
    runner_->Clear();
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("the model has no input '", name, "' to bind"));
}

void OnnxModel::AddConstants(ConversionState& state) const {
  for (const auto& [name, type] : initializer_types_) {
    ValueEntry e;
    e.type = {type.first, type.second};
    e.parameter = name;
    auto host = host_initializers_.find(name);
    if (host != host_initializers_.end()) e.host = host->second;
    state.env[name] = state.Add(std::move(e));
  }
  for (const auto& [name, value] : bound_inputs_) {
    ValueEntry e;
    e.type = {value->shape, value->dtype};
    e.host = value;
    state.env[name] = state.Add(std::move(e));
  }
}

absl::StatusOr<std::vector<ValueId>> OnnxModel::TraceValues(
    Graph& graph, absl::Span<const ValueId> inputs,
    const std::string& path) const {
  if (inputs.size() != inputs_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the model takes ", inputs_.size(), " inputs, got ", inputs.size()));
  }
  ConversionState state(
      graph, registry(), device(), path,
      [&](const std::string& name) { return ParameterValue(graph, name, path); });
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& v = graph.value(inputs[i]);
    if (v.dtype != inputs_[i].dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", inputs_[i].ToString(), " was given ", DTypeName(v.dtype)));
    }
    ValueEntry e;
    e.type = {*v.shape, v.dtype};
    e.id = inputs[i];
    state.env[inputs_[i].name] = state.Add(std::move(e));
  }
  AddConstants(state);
  onnx_import::NoteConsumers(graph_, state);
  for (const onnx::NodeProto& node : graph_.node()) {
    SY_RETURN_IF_ERROR(onnx_import::ConvertNode(node, opset_, state));
  }
  std::vector<ValueId> outputs;
  for (const OnnxValueInfo& out : outputs_) {
    auto it = state.env.find(out.name);
    if (it == state.env.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "graph output '", out.name, "' is produced by no node"));
    }
    SY_ASSIGN_OR_RETURN(ValueId id, state.GraphValue(it->second, out.name));
    outputs.push_back(id);
  }
  // The row counts of padded outputs, after the declared ones.
  for (int i : padded_outputs_) {
    const Val rows = state.entry(state.env.at(outputs_[i].name)).valid_rows;
    if (rows == onnx_import::kNoVal) {
      return absl::InternalError(absl::StrCat("output '", outputs_[i].name,
                                              "' has no row count"));
    }
    SY_ASSIGN_OR_RETURN(ValueId id, state.GraphValue(rows, outputs_[i].name + ".rows"));
    outputs.push_back(id);
  }
  return outputs;
}

}  // namespace switchyard
