#include "onnx/staged_runner.h"

#include <chrono>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/profiler.h"
#include "core/status_macros.h"
#include "onnx/graph_conversion.h"

namespace switchyard {
namespace onnx_import {
namespace {

// Segments per run at most: each ends at a request for run-time data, and a
// node asks at most once per input, so more means a converter is looping.
int MaxSegments(const onnx::GraphProto& graph) { return 8 * graph.node_size() + 16; }

}  // namespace

absl::StatusOr<std::unique_ptr<ExecutablePlan>> CompileFor(const StagedModel& model,
                                                           Graph graph) {
  CompileOptions options;
  options.backends = model.registry;
  options.placement = model.placement;
  options.target = model.device;
  options.workspaces = model.workspaces;
  return Compile(std::move(graph), options);
}

bool StagedRunner::Live(const StagedModel& model, const std::string& name, int p) {
  auto it = model.last_use->find(name);
  return it != model.last_use->end() && it->second >= p;
}

std::string StagedRunner::Key(const StagedModel& model, int start,
                              const CarriedMap& carried) {
  std::string key = absl::StrCat(start, "@", model.device.ToString(), ";");
  for (const auto& [name, value] : carried) {
    if (!Live(model, name, start)) continue;
    absl::StrAppend(&key, name.size(), ":", name);
    if (value.host != nullptr) {
      // The contents decided the conversion after them.
      absl::StrAppend(&key, "=", DTypeName(value.host->dtype),
                      value.host->shape.ToString(), value.host->bytes.size(), ":");
      key.append(value.host->bytes.begin(), value.host->bytes.end());
    } else if (!value.parameter.empty()) {
      absl::StrAppend(&key, "~", value.parameter);
    } else {
      absl::StrAppend(&key, " ", DTypeName(value.tensor.dtype()),
                      value.tensor.shape().ToString(), "@",
                      value.tensor.device().ToString());
    }
    key.push_back(';');
  }
  return key;
}

absl::StatusOr<std::shared_ptr<const StagedRunner::Segment>> StagedRunner::Build(
    const StagedModel& model, int start, const CarriedMap& carried) const {
  Graph graph;
  ConversionState state(graph, *model.registry, model.device, "",
                        [&](const std::string& name) {
                          return model.parameter_value(graph, name);
                        });
  state.run_time_data_allowed = true;
  state.name_scope = model.name_scope;
  state.depth = model.depth;
  state.shared_consumers = model.consumers;
  model.add_constants(state);
  // Initializers and fixed inputs: every segment adds them itself.
  const std::map<std::string, Val> constants = state.env;
  auto segment = std::make_shared<Segment>();
  std::map<ValueId, std::string> input_of;
  for (const auto& [name, value] : carried) {
    if (!Live(model, name, start)) continue;
    ValueEntry e;
    if (value.host != nullptr) {
      e.type = {value.host->shape, value.host->dtype};
      e.host = value.host;
    } else if (!value.parameter.empty()) {
      e.parameter = value.parameter;
    } else {
      e.type = {value.tensor.shape(), value.tensor.dtype()};
      e.id = graph.AddInput(name, value.tensor.shape(), value.tensor.device(),
                            value.tensor.dtype());
      input_of[*e.id] = name;
      segment->input_names.push_back(name);
    }
    state.env[name] = state.Add(std::move(e));
  }
  const int nodes = model.graph->node_size();
  int p = start;
  for (; p < nodes; ++p) {
    absl::Status converted = ConvertNode(model.graph->node(p), model.opset, state);
    if (converted.ok()) continue;
    if (state.need == ConversionState::Need::kNone) return converted;
    switch (state.need) {
      case ConversionState::Need::kContents:
        segment->next = Next::kContents;
        break;
      case ConversionState::Need::kHostInputs:
        segment->next = Next::kHostInputs;
        break;
      case ConversionState::Need::kBranch:
        segment->next = Next::kBranch;
        break;
      default:
        segment->next = Next::kLoop;
    }
    segment->needed = state.needed;
    break;
  }
  segment->end = p;
  // What stays live past the segment.
  std::map<ValueId, size_t> output_index;
  for (const auto& [name, v] : state.env) {
    if (!Live(model, name, p)) continue;
    auto constant = constants.find(name);
    if (constant != constants.end() && constant->second == v) continue;
    const ValueEntry& e = state.entry(v);
    if (e.host != nullptr) {
      segment->host_values[name] = e.host;
    } else if (e.id.has_value() && input_of.count(*e.id) > 0) {
      segment->aliases[name] = input_of[*e.id];
    } else if (!e.parameter.empty()) {
      segment->parameters[name] = e.parameter;
    } else if (e.id.has_value()) {
      if (output_index.emplace(*e.id, output_index.size()).second) {
        graph.AddOutput(*e.id);
      }
      segment->output_names.push_back(name);
    }
  }
  if (!segment->output_names.empty()) {
    // Outputs in the plan's order: names of one value share its index.
    std::vector<std::string> by_index(output_index.size());
    std::vector<std::pair<std::string, std::string>> extra;
    for (const std::string& name : segment->output_names) {
      const size_t i = output_index.at(*state.entry(state.env.at(name)).id);
      if (by_index[i].empty()) {
        by_index[i] = name;
      } else {
        extra.emplace_back(name, by_index[i]);
      }
    }
    segment->output_names = by_index;
    for (const auto& [name, same] : extra) segment->aliases[name] = same;
    SY_ASSIGN_OR_RETURN(segment->plan, CompileFor(model, std::move(graph)));
  }
  return std::shared_ptr<const Segment>(std::move(segment));
}

absl::StatusOr<std::shared_ptr<const StagedRunner::Segment>> StagedRunner::Find(
    const StagedModel& model, int start, const CarriedMap& carried) {
  const std::string key = Key(model, start, carried);
  absl::MutexLock lock(&mu_);
  auto it = index_.find(key);
  if (it != index_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);
    ++stats_.plan_cache_hits;
    return lru_.front().second;
  }
  // Built under the lock: two threads never compile the same segment.
  const auto build_start = std::chrono::steady_clock::now();
  SY_ASSIGN_OR_RETURN(std::shared_ptr<const Segment> segment,
                      Build(model, start, carried));
  stats_.compile_ms += std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - build_start)
                           .count();
  if (segment->plan != nullptr) ++stats_.plans_compiled;
  lru_.emplace_front(key, segment);
  index_[key] = lru_.begin();
  while (lru_.size() > max_plans_) {
    index_.erase(lru_.back().first);
    lru_.pop_back();  // a run still holding it keeps it alive
    ++stats_.plans_evicted;
  }
  stats_.plans_cached = static_cast<int64_t>(lru_.size());
  return segment;
}

absl::Status StagedRunner::ToHost(const StagedModel& model, const std::string& name,
                                  const std::string& why, Carried& value,
                                  const RunOptions& options) {
  if (value.host != nullptr) return absl::OkStatus();
  if (!value.parameter.empty()) {
    return absl::UnimplementedError(absl::StrCat(
        why, ": needs parameter '", value.parameter, "' on the host under the name '",
        name, "'"));
  }
  std::vector<char> bytes;
  auto copy = [&]() -> absl::Status {
    SY_ASSIGN_OR_RETURN(bytes, value.tensor.ToBytes());
    return absl::OkStatus();
  };
  if (options.profiler != nullptr) {
    SY_RETURN_IF_ERROR(options.profiler->TimeCopy(
        value.tensor.backend_device(), absl::StrCat(why, " run-time value ", name),
        "d2h", value.tensor.shape(),
        value.tensor.num_elements() * DTypeSize(value.tensor.dtype()), copy));
  } else {
    SY_RETURN_IF_ERROR(copy());
  }
  value.host = std::make_shared<const HostArray>(value.tensor.shape(),
                                                 value.tensor.dtype(), std::move(bytes));
  value.tensor = Tensor();
  absl::MutexLock lock(&mu_);
  ++stats_.run_time_copies;
  return absl::OkStatus();
}

absl::Status StagedRunner::HostStep(const StagedModel& model, int p,
                                    CarriedMap& carried, const RunOptions& options) {
  const onnx::NodeProto& node = model.graph->node(p);
  const std::string layer = node.name().empty() ? node.op_type() : node.name();
  Graph graph;
  ConversionState state(graph, *model.registry, Device::Cpu(), "",
                        [&](const std::string& name) {
                          return model.parameter_value(graph, name);
                        });
  state.shared_consumers = model.consumers;
  model.add_constants(state);
  for (const std::string& name : node.input()) {
    if (name.empty() || state.env.count(name) > 0) continue;
    auto it = carried.find(name);
    if (it == carried.end()) continue;  // ConvertNode names what is missing
    // A copy: later segments still read the tensor, keyed by its shape.
    Carried on_host = it->second;
    SY_RETURN_IF_ERROR(ToHost(model, name, layer, on_host, options));
    ValueEntry e;
    e.type = {on_host.host->shape, on_host.host->dtype};
    e.host = on_host.host;
    state.env[name] = state.Add(std::move(e));
  }
  const auto host_begin = std::chrono::steady_clock::now();
  SY_RETURN_IF_ERROR(ConvertNode(node, model.opset, state));
  if (options.profiler != nullptr) {
    // The node ran on the host on this run's data (NMS's rows, NonZero):
    // work the device waits for, so a node on the host's lane.
    ProfileEvent e;
    e.kind = ProfileEvent::Kind::kNode;
    e.op = node.op_type();
    e.layer = layer;
    e.name = absl::StrCat(layer, "/", node.op_type());
    e.lane = "host";
    e.iteration = options.profiler->iteration();
    e.start_us = options.profiler->ToUs(host_begin);
    e.duration_us = options.profiler->ToUs(std::chrono::steady_clock::now()) - e.start_us;
    options.profiler->AddEvent(std::move(e));
  }
  SY_ASSIGN_OR_RETURN(BackendDevice * device, model.registry->GetDevice(model.device));
  for (const std::string& name : node.output()) {
    if (name.empty() || !Live(model, name, p + 1)) continue;
    const ValueEntry& e = state.entry(state.env.at(name));
    if (e.host == nullptr) {
      return absl::InternalError(absl::StrCat(
          NodeWhere(node, model.opset), " ran on the host but output '", name,
          "' has no data"));
    }
    // This run's data: back to the device as a tensor, so the next segment
    // is keyed by its shape, not its contents.
    SY_ASSIGN_OR_RETURN(Tensor t, Tensor::FromBytes(e.host->shape, e.host->dtype,
                                                    e.host->bytes.data(),
                                                    e.host->bytes.size(), *device));
    carried[name] = Carried{std::move(t), nullptr, ""};
  }
  absl::MutexLock lock(&mu_);
  ++stats_.host_steps;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Tensor>> StagedRunner::Run(const StagedModel& model,
                                                      absl::Span<const Tensor> inputs,
                                                      const RunOptions& options,
                                                      std::vector<std::string>* trace) {
  if (inputs.size() != model.input_names.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the model takes ", model.input_names.size(), " inputs, got ", inputs.size()));
  }
  SY_ASSIGN_OR_RETURN(BackendDevice * device, model.registry->GetDevice(model.device));
  // The whole run's memory, segments and Loop bodies together; the plans
  // inside report nothing of their own.
  std::optional<RunMemoryWatch> memory_watch;
  RunOptions inner = options;
  if (options.memory != nullptr) {
    BackendDevice* watched[] = {device};
    memory_watch.emplace(watched);
    inner.memory = nullptr;
  }
  CarriedMap carried;
  for (size_t i = 0; i < inputs.size(); ++i) {
    carried[model.input_names[i]] = Carried{inputs[i], nullptr, ""};
  }
  SY_ASSIGN_OR_RETURN(std::vector<Carried> values,
                      RunCarried(model, std::move(carried), inner, trace));
  {
    absl::MutexLock lock(&mu_);
    ++stats_.runs;
  }
  std::vector<Tensor> outputs;
  for (size_t i = 0; i < values.size(); ++i) {
    const Carried& value = values[i];
    if (value.host != nullptr) {
      SY_ASSIGN_OR_RETURN(Tensor t, Tensor::FromBytes(value.host->shape, value.host->dtype,
                                                      value.host->bytes.data(),
                                                      value.host->bytes.size(), *device));
      outputs.push_back(std::move(t));
    } else if (!value.parameter.empty()) {
      return absl::UnimplementedError(absl::StrCat(
          "graph output '", model.output_names[i], "' is the initializer '",
          value.parameter, "' itself"));
    } else {
      outputs.push_back(value.tensor);
    }
  }
  values.clear();
  if (memory_watch) *options.memory = memory_watch->Finish();
  return outputs;
}

absl::StatusOr<std::vector<StagedRunner::Carried>> StagedRunner::RunCarried(
    const StagedModel& model, CarriedMap carried, const RunOptions& options,
    std::vector<std::string>* trace) {
  const int nodes = model.graph->node_size();
  int p = 0;
  for (int round = 0;; ++round) {
    if (round > MaxSegments(*model.graph)) {
      return absl::InternalError(absl::StrCat(
          "the staged run did not finish after ", round, " segments (at node ", p, ")"));
    }
    SY_ASSIGN_OR_RETURN(std::shared_ptr<const Segment> segment, Find(model, p, carried));
    if (trace != nullptr && segment->plan != nullptr) {
      trace->push_back(absl::StrCat("segment: ONNX nodes ", p, " to ", segment->end - 1,
                                    " as one plan\n", segment->plan->graph().ToText()));
    }
    if (segment->plan != nullptr) {
      std::vector<Tensor> plan_inputs;
      for (const std::string& name : segment->input_names) {
        plan_inputs.push_back(carried.at(name).tensor);
      }
      SY_ASSIGN_OR_RETURN(std::vector<Tensor> outputs,
                          segment->plan->Run(plan_inputs, options));
      for (size_t i = 0; i < segment->output_names.size(); ++i) {
        carried[segment->output_names[i]] = Carried{std::move(outputs[i]), nullptr, ""};
      }
    }
    for (const auto& [name, host] : segment->host_values) {
      carried[name] = Carried{Tensor(), host, ""};
    }
    for (const auto& [name, parameter] : segment->parameters) {
      carried[name] = Carried{Tensor(), nullptr, parameter};
    }
    for (const auto& [name, same] : segment->aliases) {
      auto it = carried.find(same);
      if (it != carried.end()) carried[name] = it->second;
    }
    {
      absl::MutexLock lock(&mu_);
      ++stats_.segments_run;
    }
    p = segment->end;
    for (auto it = carried.begin(); it != carried.end();) {
      it = Live(model, it->first, p) ? std::next(it) : carried.erase(it);
    }
    if (segment->next == Next::kEnd) break;
    const onnx::NodeProto& node = model.graph->node(p);
    const std::string layer = node.name().empty() ? node.op_type() : node.name();
    if (segment->next == Next::kContents) {
      for (const std::string& name : segment->needed) {
        auto it = carried.find(name);
        if (it == carried.end()) {
          return absl::InternalError(absl::StrCat(
              NodeWhere(node, model.opset), " asked for '", name,
              "', which is not live there"));
        }
        SY_RETURN_IF_ERROR(ToHost(model, name, layer, it->second, options));
        if (trace != nullptr) {
          trace->push_back(absl::StrCat(NodeWhere(node, model.opset), " needs the contents of '",
                                        name, "': copied to the host, the device waits\n"));
        }
      }
    } else if (segment->next == Next::kHostInputs) {
      SY_RETURN_IF_ERROR(HostStep(model, p, carried, options));
      if (trace != nullptr) {
        trace->push_back(absl::StrCat(NodeWhere(node, model.opset),
                                      " ran on the host on this run's data (its output "
                                      "shape depends on it)\n"));
      }
      ++p;
    } else if (segment->next == Next::kBranch) {
      SY_RETURN_IF_ERROR(RunBranch(model, p, carried, options, trace));
      ++p;
    } else {
      SY_RETURN_IF_ERROR(RunLoop(model, p, carried, options, trace));
      ++p;
    }
    if (p > nodes) return absl::InternalError("staged run went past the last node");
  }
  std::vector<Carried> outputs;
  for (const std::string& name : model.output_names) {
    absl::StatusOr<Carried> value = Lookup(model, name, carried);
    if (!value.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("graph output '", name, "' is produced by no node"));
    }
    outputs.push_back(*std::move(value));
  }
  return outputs;
}

absl::StatusOr<StagedRunner::Carried> StagedRunner::Lookup(const StagedModel& model,
                                                           const std::string& name,
                                                           const CarriedMap& carried) {
  auto it = carried.find(name);
  if (it != carried.end()) return it->second;
  Graph unused;
  ConversionState state(unused, *model.registry, model.device, "",
                        [](const std::string& parameter) -> absl::StatusOr<ValueId> {
                          return absl::InternalError(absl::StrCat(
                              "parameter '", parameter, "' looked up, not added"));
                        });
  model.add_constants(state);
  auto constant = state.env.find(name);
  if (constant == state.env.end()) {
    return absl::NotFoundError(absl::StrCat("no value named '", name, "'"));
  }
  const ValueEntry& e = state.entry(constant->second);
  if (e.host != nullptr) return Carried{Tensor(), e.host, ""};
  return Carried{Tensor(), nullptr, e.parameter};
}

StagedRunStats StagedRunner::stats() const {
  absl::MutexLock lock(&mu_);
  StagedRunStats total = stats_;
  for (const auto& [p, body] : subgraph_runners_) {
    const StagedRunStats s = body->stats();
    total.segments_run += s.segments_run;
    total.plans_compiled += s.plans_compiled;
    total.compile_ms += s.compile_ms;
    total.plan_cache_hits += s.plan_cache_hits;
    total.plans_evicted += s.plans_evicted;
    total.plans_cached += s.plans_cached;
    total.host_steps += s.host_steps;
    total.run_time_copies += s.run_time_copies;
    total.loop_iterations += s.loop_iterations;
  }
  return total;
}

void StagedRunner::Clear() {
  absl::MutexLock lock(&mu_);
  lru_.clear();
  index_.clear();
  stats_.plans_cached = 0;
  for (const auto& [p, body] : subgraph_runners_) body->Clear();
}

void StagedRunner::set_max_loop_iterations(int64_t n) {
  absl::MutexLock lock(&mu_);
  max_loop_iterations_ = n;
  for (const auto& [p, body] : subgraph_runners_) body->set_max_loop_iterations(n);
}

int64_t StagedRunner::max_loop_iterations() const {
  absl::MutexLock lock(&mu_);
  return max_loop_iterations_;
}

}  // namespace onnx_import
}  // namespace switchyard
