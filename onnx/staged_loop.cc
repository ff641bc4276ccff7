// StagedRunner::RunLoop: an ONNX Loop, driven from the host. Each iteration
// is a staged run of the body on the model's device (its own segments,
// cached by shape in the body's runner, so iterations of one shape compile
// once); the condition the body computes is copied to the host after each
// iteration, a device synchronisation the profiler records as a "d2h" copy
// ("<loop> run-time value <cond>"). Loop-carried values stay on the device
// from one iteration to the next; scan outputs are stacked there at the end.

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "onnx/graph_conversion.h"
#include "onnx/loop_node.h"
#include "onnx/onnx_tensor.h"
#include "onnx/staged_runner.h"
#include "ops/shape_attrs.h"

namespace switchyard {
namespace onnx_import {
namespace {

// A body input declared with one dimension ([1]) gets its value as [1],
// otherwise as a scalar ([]); exporters write either.
Shape DeclaredScalarShape(const onnx::ValueInfoProto& info) {
  const bool vector = info.type().tensor_type().has_shape() &&
                      info.type().tensor_type().shape().dim_size() == 1;
  return vector ? Shape({1}) : Shape({});
}

// Stacks one scan output's per-iteration tensors along a new first axis on
// their device (a reshape each and a concat, compiled for this count).
absl::StatusOr<Tensor> Stack(const std::vector<Tensor>& parts, const std::string& what,
                             const StagedModel& model, const RunOptions& run_options) {
  Graph graph;
  const Shape& shape = parts[0].shape();
  std::vector<int64_t> one_more = {1};
  for (int64_t d : shape.dims()) one_more.push_back(d);
  std::vector<ValueId> rows;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].shape() != shape || parts[i].dtype() != parts[0].dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " is ", DTypeName(parts[0].dtype()), shape.ToString(),
          " in iteration 0 but ", DTypeName(parts[i].dtype()),
          parts[i].shape().ToString(), " in iteration ", i,
          "; a scan output keeps one shape"));
    }
    const ValueId in = graph.AddInput(absl::StrCat("iteration_", i), shape,
                                      parts[i].device(), parts[i].dtype());
    ReshapeAttrs reshape;
    reshape.shape = one_more;
    rows.push_back(graph.AddNode(ReshapeAttrs::kOp, absl::StrCat(what, "/row_", i),
                                 {in}, reshape.ToAttrMap()));
  }
  ConcatAttrs concat;
  concat.axis = 0;
  graph.AddOutput(graph.AddNode(ConcatAttrs::kOp, absl::StrCat(what, "/stack"), rows,
                                concat.ToAttrMap()));
  SY_ASSIGN_OR_RETURN(std::unique_ptr<ExecutablePlan> plan,
                      CompileFor(model, std::move(graph)));
  SY_ASSIGN_OR_RETURN(std::vector<Tensor> stacked, plan->Run(parts, run_options));
  return stacked[0];
}

// A scan output of a loop that ran no iteration: [0, dims...] when the body
// declares every dimension, else [0].
absl::StatusOr<Tensor> EmptyScan(const onnx::ValueInfoProto& info, BackendDevice& device) {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> dims = {0};
  const onnx::TypeProto::Tensor& t = info.type().tensor_type();
  if (t.elem_type() != 0) {
    SY_ASSIGN_OR_RETURN(dtype, DTypeFromOnnx(t.elem_type()));
  }
  bool all_known = t.has_shape();
  for (const onnx::TensorShapeProto::Dimension& d : t.shape().dim()) {
    all_known = all_known && d.has_dim_value() && d.dim_value() >= 0;
  }
  if (all_known) {
    for (const onnx::TensorShapeProto::Dimension& d : t.shape().dim()) {
      dims.push_back(d.dim_value());
    }
  }
  return Tensor::FromBytes(Shape(dims), dtype, nullptr, 0, device);
}

}  // namespace

absl::StatusOr<int64_t> StagedRunner::ScalarOnHost(const StagedModel& model,
                                                   const std::string& name,
                                                   Carried value,
                                                   const std::string& why,
                                                   const RunOptions& options) {
  SY_RETURN_IF_ERROR(ToHost(model, name, why, value, options));
  const HostArray& h = *value.host;
  if (h.num_elements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", name, "' must hold one value, got shape ", h.shape.ToString()));
  }
  if (h.dtype == DType::kInt64) {
    int64_t v = 0;
    std::memcpy(&v, h.bytes.data(), sizeof(v));
    return v;
  }
  if (h.dtype == DType::kBool || h.dtype == DType::kUInt8) return h.bytes[0] != 0;
  return absl::InvalidArgumentError(absl::StrCat(
      "'", name, "' must be int64 or bool, got ", DTypeName(h.dtype)));
}

absl::Status StagedRunner::RunLoop(const StagedModel& model, int p,
                                   CarriedMap& carried, const RunOptions& options,
                                   std::vector<std::string>* trace) {
  SY_ASSIGN_OR_RETURN(const ControlFlowNode site, EnterControlFlow(model, p));
  const onnx::NodeProto& node = site.proto;
  const std::string& layer = site.layer;
  auto fail = [&](const absl::Status& s) { return site.Fail(s); };
  absl::StatusOr<LoopSignature> signature = ReadLoopSignature(node);
  if (!signature.ok()) return fail(signature.status());
  const onnx::GraphProto& body = *signature->body;
  const int n = signature->carried;
  const int64_t limit = max_loop_iterations();
  auto input = [&](int i) -> absl::StatusOr<Carried> {
    absl::StatusOr<Carried> v = Lookup(model, node.input(i), carried);
    if (!v.ok()) return fail(v.status());
    return v;
  };

  // The trip count and the first condition; absent means unbounded / true.
  bool has_trip_count = !node.input(0).empty();
  int64_t trip_count = 0;
  if (has_trip_count) {
    SY_ASSIGN_OR_RETURN(Carried m, input(0));
    absl::StatusOr<int64_t> v = ScalarOnHost(model, node.input(0), m, layer, options);
    if (!v.ok()) return fail(v.status());
    if (*v < 0) {
      return fail(absl::InvalidArgumentError(absl::StrCat(
          "the trip count M ('", node.input(0), "') is ", *v, "; it must be >= 0")));
    }
    trip_count = *v;
  }
  bool cond = true;
  if (!node.input(1).empty()) {
    SY_ASSIGN_OR_RETURN(Carried c, input(1));
    absl::StatusOr<int64_t> v = ScalarOnHost(model, node.input(1), c, layer, options);
    if (!v.ok()) return fail(v.status());
    cond = *v != 0;
  }
  std::vector<Carried> values;
  for (int j = 0; j < n; ++j) {
    SY_ASSIGN_OR_RETURN(Carried v, input(2 + j));
    values.push_back(std::move(v));
  }

  // The body as a model of its own: its inputs, the outer values it reads,
  // its initializers, and the model's constants.
  absl::StatusOr<std::shared_ptr<const Subgraph>> prepared = PreparedSubgraph({p, 0}, body);
  if (!prepared.ok()) return fail(prepared.status());
  const Subgraph& loop_body = **prepared;
  const StagedModel body_model =
      SubgraphModel(model, body, loop_body, absl::StrCat(layer, "/body/"));
  CarriedMap outer;  // the outer values the body reads
  for (const std::string& name : loop_body.outer_reads) {
    auto it = carried.find(name);
    if (it != carried.end()) outer[name] = it->second;
  }

  SY_ASSIGN_OR_RETURN(BackendDevice * device, model.registry->GetDevice(model.device));
  const std::string& iteration_name = body.input(0).name();
  const std::string& cond_in_name = body.input(1).name();
  const Shape iteration_shape = DeclaredScalarShape(body.input(0));
  const Shape cond_shape = DeclaredScalarShape(body.input(1));
  // The body passes its condition through unchanged: no copy to learn it.
  const bool cond_passed_through = body.output(0).name() == cond_in_name;
  StagedRunner& body_runner = SubgraphRunner({p, 0});
  std::vector<std::string> body_trace;  // of the first iteration
  std::vector<std::vector<Tensor>> scans(signature->scans);
  int64_t i = 0;
  for (; (!has_trip_count || i < trip_count) && cond; ++i) {
    if (i >= limit) {
      return fail(absl::ResourceExhaustedError(absl::StrCat(
          "ran ", limit, " iterations, the limit, and has more to run (",
          has_trip_count ? absl::StrCat("trip count ", trip_count)
                         : std::string("its condition still holds"),
          "); `switchyard run --max-loop-iterations=N` or "
          "OnnxModel::set_max_loop_iterations raise it")));
    }
    CarriedMap in = outer;
    SY_ASSIGN_OR_RETURN(Tensor iteration,
                        Tensor::FromBytes(iteration_shape, DType::kInt64, &i, sizeof(i),
                                          *device));
    const uint8_t cond_byte = 1;
    SY_ASSIGN_OR_RETURN(Tensor cond_tensor,
                        Tensor::FromBytes(cond_shape, DType::kBool, &cond_byte, 1, *device));
    in[iteration_name] = Carried{std::move(iteration), nullptr, ""};
    in[cond_in_name] = Carried{std::move(cond_tensor), nullptr, ""};
    for (int j = 0; j < n; ++j) in[body.input(2 + j).name()] = values[j];
    absl::StatusOr<std::vector<Carried>> out = body_runner.RunCarried(
        body_model, std::move(in), options, trace != nullptr && i == 0 ? &body_trace : nullptr);
    if (!out.ok()) {
      return fail(absl::Status(out.status().code(),
                               absl::StrCat("iteration ", i, ": ", out.status().message())));
    }
    if (!cond_passed_through) {
      absl::StatusOr<int64_t> c =
          ScalarOnHost(model, body.output(0).name(), (*out)[0], layer, options);
      if (!c.ok()) return fail(c.status());
      cond = *c != 0;
    }
    for (int j = 0; j < n; ++j) values[j] = (*out)[1 + j];
    for (int s = 0; s < signature->scans; ++s) {
      Carried& v = (*out)[1 + n + s];
      if (v.host != nullptr) {
        SY_ASSIGN_OR_RETURN(v.tensor, Tensor::FromBytes(v.host->shape, v.host->dtype,
                                                        v.host->bytes.data(),
                                                        v.host->bytes.size(), *device));
      } else if (!v.parameter.empty()) {
        return fail(absl::UnimplementedError(absl::StrCat(
            "scan output '", body.output(1 + n + s).name(), "' is the initializer '",
            v.parameter, "' itself")));
      }
      scans[s].push_back(v.tensor);
    }
  }
  {
    absl::MutexLock lock(&mu_);
    stats_.loop_iterations += i;
  }
  if (trace != nullptr) {
    trace->push_back(NestedTrace(absl::StrCat(site.where, ": ", i, " iteration",
                                              i == 1 ? "" : "s",
                                              ", each a run of its body; the first:"),
                                 body_trace));
  }
  for (int j = 0; j < n; ++j) {
    if (!node.output(j).empty()) carried[node.output(j)] = values[j];
  }
  for (int s = 0; s < signature->scans; ++s) {
    const std::string& name = node.output(n + s);
    if (name.empty()) continue;
    const std::string what = absl::StrCat(model.name_scope, layer, "/scan_", s);
    absl::StatusOr<Tensor> stacked =
        scans[s].empty() ? EmptyScan(body.output(1 + n + s), *device)
                         : Stack(scans[s], what, model, options);
    if (!stacked.ok()) return fail(stacked.status());
    carried[name] = Carried{*std::move(stacked), nullptr, ""};
  }
  return absl::OkStatus();
}

}  // namespace onnx_import
}  // namespace switchyard
