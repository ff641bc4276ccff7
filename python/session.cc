// switchyard.Session: a model (an .onnx file, or a built-in one by name) on
// a device, run on numpy arrays.
//
// Threads: run() releases the GIL while the model runs. Several threads may
// call run() on one session at once: runtime::Session::Run is safe for that
// (compiling is done under a lock, so every signature is compiled once; runs
// of one compiled plan are serialized because they share its intermediate
// buffers; runs of different plans, e.g. of different input shapes,
// overlap). to() and set_placement() change the model and take
// the session's lock exclusively, so they wait for runs in flight and runs
// wait for them.

#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/device.h"
#include "core/near_miss.h"
#include "core/placement_hints.h"
#include "core/executable_plan.h"
#include "core/profiler.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "models/model_zoo.h"
#include "models/module.h"
#include "pybind11/numpy.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "python/diagnose.h"
#include "python/numpy_tensor.h"
#include "python/profile.h"
#include "python/registration.h"
#include "python/status.h"
#include "runtime/graph_description.h"
#include "runtime/own_size_images.h"
#include "runtime/replicas.h"
#include "runtime/session.h"

namespace switchyard {
namespace python {

namespace py = pybind11;

namespace {

// A model input or output as Python sees it (onnxruntime's NodeArg): name,
// dtype (a numpy dtype name) and shape (ints, dimension names for symbolic
// dimensions, None for an unnamed one; None for an undeclared shape).
struct ValueInfo {
  std::string name;
  DType dtype = DType::kFloat32;
  py::object shape;

  std::string Repr() const {
    return absl::StrCat("ValueInfo(name='", name, "', dtype='", DTypeString(dtype),
                        "', shape=", py::repr(shape).cast<std::string>(), ")");
  }
};

// `device` parsed and present in the registry; a near miss of a registered
// type gets "did you mean device='cuda:0'?" (core/near_miss.h).
Device ExistingDevice(const std::string& device) {
  BackendRegistry& registry = BackendRegistry::Global();
  absl::StatusOr<Device> parsed = Device::Parse(device);
  absl::Status status = parsed.ok() ? registry.GetDevice(*parsed).status() : parsed.status();
  if (!status.ok() && (absl::IsNotFound(status) || absl::IsInvalidArgument(status))) {
    const std::string meant = MeantDevice(device, registry.Types());
    if (!meant.empty() && meant != device) {
      status = absl::Status(status.code(), absl::StrCat(status.message(), " (did you mean device='",
                                                        meant, "'?)"));
    }
  }
  ThrowIfError(status);
  return *parsed;
}

ValueInfo FromDeclared(const runtime::ValueInfo& info) {
  ValueInfo v{info.name, info.dtype, py::none()};
  if (info.has_shape) {
    py::list shape;
    for (size_t d = 0; d < info.dims.size(); ++d) {
      if (info.dims[d].has_value()) {
        shape.append(*info.dims[d]);
      } else if (!info.dim_names[d].empty()) {
        shape.append(info.dim_names[d]);
      } else {
        shape.append(py::none());
      }
    }
    v.shape = shape;
  }
  return v;
}

// A path as the file system names it: encoded as os.fsencode does, so the
// undecodable bytes of a file name come back as they were.
std::string FileSystemName(const py::handle& path) {
  PyObject* encoded = PyUnicode_EncodeFSDefault(py::str(path).ptr());
  if (encoded == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::bytes>(encoded).cast<std::string>();
}

// An ONNX file that is not there and not a built-in model's name either:
// say both.
absl::Status WithBuiltinHint(absl::Status status, const std::string& model) {
  if (!absl::IsNotFound(status) || absl::StrContains(model, "/") ||
      runtime::IsModelFile(model)) {
    return status;
  }
  return absl::NotFoundError(absl::StrCat(
      status.message(), "; '", model, "' is not a built-in model either (",
      absl::StrJoin(ModelNames(), ", "), ")"));
}

class Session {
 public:
  // `model`: a path or a built-in model's name (str), or a serialized
  // ModelProto (bytes).
  Session(const py::object& model, const std::string& device, const py::dict& options,
          const std::string& placement, const std::string& weights, uint64_t seed) {
    const bool from_bytes = py::isinstance<py::bytes>(model);
    name_ = from_bytes ? absl::StrCat("the model bytes (", py::len(model), " bytes)")
                       : FileSystemName(model);
    for (const auto& [key, value] : options) {
      SetOption(py::str(key).cast<std::string>(), value);
    }
    // The device first: an unavailable one is refused before the model is read.
    const Device parsed = ExistingDevice(device);
    const PlacementPolicy policy = ValueOrThrow(ParsePlacementPolicy(placement));
    BackendRegistry& registry = BackendRegistry::Global();
    absl::StatusOr<std::unique_ptr<runtime::Session>> opened;
    if (from_bytes || !runtime::IsBuiltinModel(name_)) {
      if (from_bytes) {
        const std::string_view view = model.cast<py::bytes>();
        const absl::string_view bytes(view.data(), view.size());
        py::gil_scoped_release nogil;  // parsing and converting takes a while
        opened = runtime::Session::OpenBytes(bytes, name_, registry);
      } else {
        py::gil_scoped_release nogil;
        opened = runtime::Session::OpenFile(name_, registry);
        if (!opened.ok()) opened = WithBuiltinHint(opened.status(), name_);
      }
    } else {
      opened = runtime::Session::Open(name_, registry);
    }
    session_ = ValueOrThrow(std::move(opened));
    // A model file's own inputs and outputs; a built-in model's one float32
    // image batch and class scores.
    for (const runtime::ValueInfo& in : session_->inputs()) inputs_.push_back(FromDeclared(in));
    for (const runtime::ValueInfo& out : session_->outputs()) {
      outputs_.push_back(FromDeclared(out));
    }
    runtime::SessionOptions session_options;
    session_options.device = parsed;
    session_options.placement = policy;
    session_options.weights = weights;
    session_options.seed = seed;
    absl::Status status;
    {
      py::gil_scoped_release nogil;
      status = session_->Initialize(session_options);
    }
    ThrowIfError(status);
    device_ = parsed;
  }

  const std::vector<ValueInfo>& inputs() const { return inputs_; }
  const std::vector<ValueInfo>& outputs() const { return outputs_; }
  std::string device() const { return device_.ToString(); }
  const std::string& model() const { return name_; }

  // Moves the model to `device`; Unavailable (with the backend's reason)
  // when the device is not there.
  void To(const std::string& device) {
    const Device parsed = ExistingDevice(device);
    py::gil_scoped_release nogil;
    std::unique_lock<std::shared_mutex> lock(mu_);
    ThrowIfError(session_->To(parsed));
    device_ = parsed;
  }

  void SetPlacement(const std::string& placement) {
    const PlacementPolicy policy = ValueOrThrow(ParsePlacementPolicy(placement));
    py::gil_scoped_release nogil;
    std::unique_lock<std::shared_mutex> lock(mu_);
    session_->set_placement(policy);
  }
  std::string placement() const {
    return session_->placement() == PlacementPolicy::kAuto ? "auto" : "strict";
  }

  // feeds: {name: array} or [array, ...] in input order. output_names: None
  // (all, in order) or a list. Returns (outputs, Profile or None).
  py::tuple Run(const py::object& feeds, const py::object& output_names, bool profile) {
    const std::vector<int> selected = SelectOutputs(output_names);
    if (replicas_ != nullptr) return RunReplicas(feeds, selected, profile);
    BackendRegistry& registry = BackendRegistry::Global();
    Device device = Device::Cpu();
    {
      // The device the inputs go to: read under the lock a to() takes.
      std::shared_lock<std::shared_mutex> lock(mu_);
      device = device_;
    }
    BackendDevice* target = ValueOrThrow(registry.GetDevice(device));
    std::vector<Tensor> inputs = Inputs(feeds, *target);
    std::unique_ptr<Profiler> profiler;
    if (profile) profiler = std::make_unique<Profiler>();
    absl::StatusOr<std::vector<Tensor>> result;
    {
      py::gil_scoped_release nogil;
      std::shared_lock<std::shared_mutex> lock(mu_);
      result = RunLocked(device, inputs, profiler.get());
    }
    if (!result.ok()) ThrowIfError(WithPythonFix(result.status(), device));
    std::vector<Tensor> outputs = std::move(*result);
    if (outputs.size() != outputs_.size()) {
      throw StatusError(absl::InternalError(absl::StrCat(
          name_, " returned ", outputs.size(), " outputs but declares ", outputs_.size())));
    }
    std::map<int, py::array> converted;
    for (int i : selected) {
      if (converted.count(i)) continue;
      Tensor t = std::move(outputs[i]);
      // No copy when this run's output is the buffer's only owner; a copy
      // when it is shared (an input or a weight returned as it is, or one
      // value returned twice), so writing to the array changes nothing else.
      const bool shared = t.defined() && t.buffer().use_count() > 1;
      converted[i] = TensorToArray(t, shared);
    }
    py::list arrays;
    for (int i : selected) arrays.append(converted[i]);
    inputs.clear();  // borrowed arrays are released here, under the GIL
    py::object profile_object = py::none();
    if (profiler != nullptr) {
      RunProfile run_profile;
      run_profile.events = profiler->events();
      run_profile.metadata = {{"model", name_}, {"device", device.ToString()}};
      profile_object = py::cast(std::move(run_profile));
    }
    return py::make_tuple(arrays, profile_object);
  }

  // switchyard.diagnose(session, ...): python/diagnose.h. The stream runs
  // without the GIL, under the shared lock a to() waits for.
  py::dict Diagnose(DiagnoseOptions options) {
    if (inputs_.size() != 1 || inputs_[0].dtype != DType::kFloat32) {
      throw StatusError(absl::InvalidArgumentError(absl::StrCat(
          "diagnose feeds image batches to a model with one float32 input "
          "[batch, 3, height, width]; ", name_, " takes ", InputNames())));
    }
    if (runtime::TakesOneImageAtItsOwnSize(session_->inputs())) {
      // A detector exported from torchvision takes one image [3, H, W] at
      // its own size: each image runs at its own size, as `run --images`.
      absl::StatusOr<nlohmann::json> report;
      {
        py::gil_scoped_release nogil;
        std::shared_lock<std::shared_mutex> lock(mu_);
        report = RunOwnSizeDiagnosis(*session_, name_, device_, options);
      }
      return py::dict(
          py::module_::import("json").attr("loads")(ValueOrThrow(std::move(report)).dump()));
    }
    // (A built-in model's image batch is [batch, 3, height, width].)
    if (session_->inputs()[0].has_shape && session_->inputs()[0].dims.size() != 4) {
      throw StatusError(absl::InvalidArgumentError(absl::StrCat(
          "diagnose streams batches [batch, 3, height, width] of one size, or one image "
          "[3, H, W] at a time; ", name_, " takes ", session_->inputs()[0].ToString())));
    }
    absl::StatusOr<Diagnosis> diagnosis;
    {
      py::gil_scoped_release nogil;
      std::shared_lock<std::shared_mutex> lock(mu_);
      diagnosis = RunDiagnosis(session_->module(), name_, device_, std::move(options));
    }
    return DiagnosisToDict(ValueOrThrow(std::move(diagnosis)), name_);
  }

  // What `switchyard graph` shows, for this session's model on its device
  // and placement: the inputs' declared shapes with dimension 0 `batch`
  // (None: 1 where symbolic), `shapes` ({input name: shape}; "" for the
  // only input) replacing whole shapes.
  py::dict Graph(std::optional<int64_t> batch, const std::map<std::string, std::vector<int64_t>>& shapes,
                 uint64_t seed) {
    std::map<std::string, Shape> overrides;
    for (const auto& [name, dims] : shapes) overrides[name] = Shape(dims);
    absl::StatusOr<runtime::GraphDescription> described;
    {
      py::gil_scoped_release nogil;
      std::shared_lock<std::shared_mutex> lock(mu_);
      absl::StatusOr<std::vector<InputSpec>> specs =
          session_->InputSpecs(batch, overrides, device_);
      described = specs.ok() ? runtime::DescribeGraph(*session_, *specs, session_->placement(),
                                                      device_, seed, BackendRegistry::Global())
                             : absl::StatusOr<runtime::GraphDescription>(specs.status());
    }
    const runtime::GraphDescription& d = ValueOrThrow(std::move(described));
    py::dict out;
    out["staged"] = d.staged;
    if (d.staged) {
      out["steps"] = d.steps;
      out["why_no_graph"] = d.static_error;
      return out;
    }
    out["text"] = d.text;
    out["dot"] = d.dot;
    out["placement"] = d.placement_report;
    out["fused_groups"] = d.partition_count;
    out["fused"] = d.partitions;
    py::dict plan;
    plan["slots"] = d.buffer_slots;
    plan["planned_bytes"] = d.planned_bytes;
    plan["unplanned_bytes"] = d.unplanned_bytes;
    out["buffer_plan"] = plan;
    out["kernels"] = d.kernels;
    out["lowering_error"] = d.lowering_error;
    return out;
  }

  py::dict RunStats() const {
    py::dict d;
    if (!session_->supports_staged_run()) return d;
    const runtime::RunStats s = session_->run_stats();
    d["runs"] = s.runs;
    d["segments_run"] = s.segments_run;
    d["plans_compiled"] = s.plans_compiled;
    d["compile_ms"] = s.compile_ms;
    d["plan_cache_hits"] = s.plan_cache_hits;
    d["plans_evicted"] = s.plans_evicted;
    d["plans_cached"] = s.plans_cached;
    d["host_steps"] = s.host_steps;
    d["run_time_copies"] = s.run_time_copies;
    d["loop_iterations"] = s.loop_iterations;
    return d;
  }

  void SetMaxLoopIterations(int64_t n) {
    ThrowIfError(session_->SetMaxLoopIterations(n));
  }

  // session.replicate(devices): one copy of the model per device, each run's
  // batch split along dimension 0 over them (runtime/replicas.h, as `run
  // --replicas`). The session's own model serves the first device (moved
  // there); the others load the same file (or, for a built-in model, take
  // its weights). None: back to one device.
  void Replicate(const py::object& devices) {
    std::unique_lock<std::shared_mutex> lock(mu_);
    replicas_.reset();
    replica_summary_.reset();
    if (devices.is_none()) return;
    std::vector<std::string> names;
    for (const py::handle& d : devices.cast<py::sequence>()) {
      names.push_back(py::str(d).cast<std::string>());
    }
    BackendRegistry& registry = BackendRegistry::Global();
    absl::StatusOr<std::vector<Device>> listed =
        runtime::ParseReplicaDevices(absl::StrJoin(names, ","), registry);
    if (!listed.ok()) {
      // The parser words its errors for the command line's flag.
      throw StatusError(absl::Status(
          listed.status().code(),
          absl::StrReplaceAll(listed.status().message(), {{"--replicas", "devices"}})));
    }
    const std::vector<Device> parsed = *std::move(listed);
    if (session_->from_bytes()) {
      throw StatusError(absl::FailedPreconditionError(absl::StrCat(
          "replicas load the model once per device, from its file; ", name_,
          " has none: save them (open(path, 'wb').write(data)) and open the path")));
    }
    // Replicas after the first load the same file (or, for a built-in
    // model, take its weights): runtime::Session::Replicate.
    absl::StatusOr<std::unique_ptr<runtime::ReplicaSet>> made;
    {
      py::gil_scoped_release nogil;
      made = session_->Replicate(parsed);
    }
    replicas_ = ValueOrThrow(std::move(made));
    replica_summary_.emplace(parsed);
    device_ = parsed[0];
  }

  // What the replicas did over the runs since replicate(): per device,
  // samples and busy time per run, busy share, images/s; "table": as `run
  // --replicas` prints it. None without replicas.
  py::object ReplicaSummary() const {
    std::shared_lock<std::shared_mutex> lock(mu_);
    if (!replica_summary_.has_value()) return py::none();
    py::dict d = py::module_::import("json").attr("loads")(replica_summary_->Json().dump());
    d["table"] = replica_summary_->Table();
    return std::move(d);
  }

  std::vector<std::string> ReplicaDevices() const {
    std::shared_lock<std::shared_mutex> lock(mu_);
    std::vector<std::string> names;
    if (replicas_ != nullptr) {
      for (const Device& d : replicas_->devices()) names.push_back(d.ToString());
    }
    return names;
  }

 private:
  py::tuple RunReplicas(const py::object& feeds, const std::vector<int>& selected,
                        bool profile) {
    if (profile) {
      throw StatusError(absl::InvalidArgumentError(
          "profile=True times one device's run; with replicas, session.replica_summary() "
          "says what each device did (or session.replicate(None), then profile)"));
    }
    BackendDevice* host = ValueOrThrow(BackendRegistry::Global().GetDevice(Device::Cpu()));
    std::vector<HostArray> host_inputs;
    for (const Tensor& t : Inputs(feeds, *host)) {
      std::vector<char> bytes = ValueOrThrow(t.ToBytes());
      host_inputs.emplace_back(t.shape(), t.dtype(), std::move(bytes));
    }
    absl::StatusOr<runtime::ReplicaRun> run;
    {
      py::gil_scoped_release nogil;
      std::unique_lock<std::shared_mutex> lock(mu_);  // one split batch at a time
      run = replicas_->Run(host_inputs);
      if (run.ok()) replica_summary_->Add(*run);
    }
    ThrowIfError(run.status());
    py::list arrays;
    for (int i : selected) {
      const HostArray& y = run->outputs.at(i);
      Tensor t = ValueOrThrow(
          Tensor::FromBytes(y.shape, y.dtype, y.bytes.data(), y.bytes.size(), *host));
      arrays.append(TensorToArray(t));
    }
    return py::make_tuple(arrays, py::none());
  }

  // The run itself, under the shared lock and without the GIL.
  absl::StatusOr<std::vector<Tensor>> RunLocked(const Device& device,
                                                const std::vector<Tensor>& inputs,
                                                Profiler* profiler) {
    if (device_ != device) {
      return absl::AbortedError(absl::StrCat(
          "the session moved from ", device.ToString(), " to ", device_.ToString(),
          " while this run prepared its inputs; run again"));
    }
    RunOptions options;
    if (profiler == nullptr) return RunModel(inputs, options);
    options.profiler = profiler;
    SY_RETURN_IF_ERROR(profiler->BeginIteration(0));
    SY_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, RunModel(inputs, options));
    SY_RETURN_IF_ERROR(profiler->EndIteration());
    return outputs;
  }

  std::string InputNames() const {
    std::vector<std::string> names;
    for (const ValueInfo& v : inputs_) names.push_back(absl::StrCat("'", v.name, "'"));
    return absl::StrJoin(names, ", ");
  }

  std::vector<int> SelectOutputs(const py::object& output_names) const {
    std::vector<int> selected;
    if (output_names.is_none()) {
      for (size_t i = 0; i < outputs_.size(); ++i) selected.push_back(static_cast<int>(i));
      return selected;
    }
    if (py::isinstance<py::str>(output_names)) {
      throw StatusError(absl::InvalidArgumentError(
          "output_names is a string; give a list of output names, or None for all"));
    }
    for (const py::handle& item : output_names) {
      const std::string want = py::str(item).cast<std::string>();
      int found = -1;
      for (size_t i = 0; i < outputs_.size(); ++i) {
        if (outputs_[i].name == want) found = static_cast<int>(i);
      }
      if (found < 0) {
        std::vector<std::string> names;
        for (const ValueInfo& v : outputs_) names.push_back(absl::StrCat("'", v.name, "'"));
        throw StatusError(absl::NotFoundError(absl::StrCat(
            name_, " has no output '", want, "'; its outputs: ", absl::StrJoin(names, ", "))));
      }
      selected.push_back(found);
    }
    return selected;
  }

  // The feeds as tensors on `device`, in the model's input order.
  std::vector<Tensor> Inputs(const py::object& feeds, BackendDevice& device) const {
    std::vector<Tensor> tensors;
    if (py::isinstance<py::dict>(feeds)) {
      const py::dict dict = feeds.cast<py::dict>();
      for (const auto& [key, value] : dict) {
        const std::string name = py::str(key).cast<std::string>();
        bool known = false;
        for (const ValueInfo& v : inputs_) known = known || v.name == name;
        if (!known) {
          throw StatusError(absl::InvalidArgumentError(absl::StrCat(
              name_, " has no input '", name, "'; its inputs: ", InputNames())));
        }
      }
      std::vector<std::string> missing;
      for (const ValueInfo& v : inputs_) {
        if (!dict.contains(v.name)) missing.push_back(absl::StrCat("'", v.name, "'"));
      }
      if (!missing.empty()) {
        throw StatusError(absl::InvalidArgumentError(absl::StrCat(
            name_, ": no value for input", missing.size() == 1 ? " " : "s ",
            absl::StrJoin(missing, ", "), "; the model takes ", InputNames(),
            " (run({name: array, ...}))")));
      }
      for (const ValueInfo& v : inputs_) {
        tensors.push_back(ArrayToTensor(dict[py::str(v.name)], v.name, v.dtype, device));
      }
      return tensors;
    }
    if (py::isinstance<py::list>(feeds) || py::isinstance<py::tuple>(feeds)) {
      const py::sequence seq = feeds.cast<py::sequence>();
      if (seq.size() != inputs_.size()) {
        throw StatusError(absl::InvalidArgumentError(absl::StrCat(
            name_, " takes ", inputs_.size(), " input", inputs_.size() == 1 ? "" : "s",
            " (", InputNames(), ") but ", seq.size(), " were given")));
      }
      for (size_t i = 0; i < inputs_.size(); ++i) {
        tensors.push_back(ArrayToTensor(seq[i], inputs_[i].name, inputs_[i].dtype, device));
      }
      return tensors;
    }
    if (py::isinstance<py::array>(feeds) && inputs_.size() == 1) {
      tensors.push_back(ArrayToTensor(feeds, inputs_[0].name, inputs_[0].dtype, device));
      return tensors;
    }
    throw StatusError(absl::InvalidArgumentError(absl::StrCat(
        "feeds is a ", py::str(py::type::of(feeds).attr("__name__")).cast<std::string>(),
        "; give a dict {input name: numpy array} (", name_, " takes ", InputNames(),
        "), or a list of arrays in that order")));
  }

  // An op the session's device lacks under strict placement: the fix in
  // Python's words (core words it for C++).
  absl::Status WithPythonFix(const absl::Status& status, const Device& device) const {
    if (session_->placement() == PlacementPolicy::kAuto || device == Device::Cpu() ||
        !IsUnsupportedOnDevice(status, device.ToString())) {
      return status;
    }
    return absl::Status(
        status.code(),
        absl::StrCat(status.message(), "\nFix: placement='auto' (switchyard.Session(..., "
                     "placement='auto') or session.placement = 'auto') runs what ",
                     device.ToString(), " lacks on cpu:0 and the rest on ", device.ToString(),
                     "; or leave out device=, and the device policy places that way."));
  }

  absl::StatusOr<std::vector<Tensor>> RunModel(const std::vector<Tensor>& inputs,
                                               const RunOptions& options) {
    return session_->Run(inputs, options);
  }

  std::string name_;
  std::unique_ptr<runtime::Session> session_;
  std::vector<ValueInfo> inputs_, outputs_;
  Device device_ = Device::Cpu();
  // session.replicate(): the replicas and what they did (runtime/replicas.h).
  std::unique_ptr<runtime::ReplicaSet> replicas_;
  std::optional<runtime::ReplicaSummary> replica_summary_;
  // Shared by runs, exclusive for to(), set_placement(), replicate() and a
  // replicated run.
  mutable std::shared_mutex mu_;
};

}  // namespace

void RegisterSession(py::module_& m) {
  py::class_<ValueInfo>(m, "ValueInfo", "A model input or output: name, dtype, shape.")
      .def_readonly("name", &ValueInfo::name)
      .def_property_readonly("dtype", [](const ValueInfo& v) { return DTypeString(v.dtype); })
      .def_readonly("shape", &ValueInfo::shape)
      .def("__repr__", &ValueInfo::Repr);

  py::class_<Session>(m, "_Session")
      .def(py::init<const py::object&, const std::string&, const py::dict&,
                    const std::string&, const std::string&, uint64_t>(),
           py::arg("model"), py::arg("device") = "cpu", py::arg("options") = py::dict(),
           py::arg("placement") = "strict", py::arg("weights") = "", py::arg("seed") = 0)
      .def_property_readonly("inputs", &Session::inputs)
      .def_property_readonly("outputs", &Session::outputs)
      .def_property_readonly("device", &Session::device)
      .def_property_readonly("model", &Session::model)
      .def_property_readonly("placement", &Session::placement)
      .def("set_placement", &Session::SetPlacement, py::arg("placement"))
      .def("to", &Session::To, py::arg("device"))
      .def("run", &Session::Run, py::arg("feeds"), py::arg("output_names") = py::none(),
           py::arg("profile") = false)
      .def("run_stats", &Session::RunStats)
      .def("graph", &Session::Graph, py::arg("batch"), py::arg("shapes"), py::arg("seed"))
      .def("replicate", &Session::Replicate, py::arg("devices"))
      .def("replica_summary", &Session::ReplicaSummary)
      .def_property_readonly("replica_devices", &Session::ReplicaDevices)
      .def(
          "diagnose",
          [](Session& self, const std::string& images, int batch, int image_size,
             int resize, const std::string& augment, int batches, int loader_threads,
             int prefetch, double loader_cost_ms, const std::string& loader_work,
             bool skip_bad, bool report_bad, int warmup, uint64_t seed) {
            DiagnoseOptions o;
            o.images = images;
            o.batch = batch;
            o.image_size = image_size;
            o.resize = resize;
            o.augment = augment;
            o.batches = batches;
            o.loader_threads = loader_threads;
            o.prefetch = prefetch;
            o.loader_cost_ms = loader_cost_ms;
            o.loader_work = loader_work;
            o.skip_bad = skip_bad;
            o.report_bad = report_bad;
            o.warmup = warmup;
            o.seed = seed;
            return self.Diagnose(std::move(o));
          },
          py::arg("images"), py::arg("batch"), py::arg("image_size"), py::arg("resize"),
          py::arg("augment"), py::arg("batches"), py::arg("loader_threads"),
          py::arg("prefetch"), py::arg("loader_cost_ms"), py::arg("loader_work"),
          py::arg("skip_bad"), py::arg("report_bad"), py::arg("warmup"), py::arg("seed"))
      .def("set_max_loop_iterations", &Session::SetMaxLoopIterations, py::arg("n"));
}

}  // namespace python
}  // namespace switchyard
