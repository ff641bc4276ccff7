#include "runtime/profile_run.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace switchyard {
namespace runtime {

absl::StatusOr<std::vector<Tensor>> ProfiledIterations::Iteration(
    const RunFn& run, absl::Span<const Tensor> inputs,
    absl::Span<const HostArray> host_inputs, int iteration, BackendRegistry& registry) {
  if (inputs.size() != host_inputs.size()) {
    return absl::InternalError(absl::StrCat(inputs.size(), " inputs but ",
                                            host_inputs.size(), " host arrays"));
  }
  const auto host_start = Profiler::Clock::now();
  SY_RETURN_IF_ERROR(profiler_.BeginIteration(iteration));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& input = inputs[i];
    SY_ASSIGN_OR_RETURN(BackendDevice * in_device, registry.GetDevice(input.device()));
    const size_t in_bytes = std::min(input.size_bytes(), host_inputs[i].bytes.size());
    SY_RETURN_IF_ERROR(profiler_.TimeCopy(
        *in_device, inputs.size() == 1 ? "input h2d" : absl::StrCat("input ", i, " h2d"),
        "h2d", input.shape(), in_bytes, [&] {
          return in_device->CopyFromHost(host_inputs[i].bytes.data(), *input.buffer(),
                                         in_bytes);
        }));
  }
  RunOptions options;
  options.profiler = &profiler_;
  SY_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, run(inputs, options));
  host_outputs_.resize(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    host_outputs_[i].resize(out.size_bytes());
    SY_ASSIGN_OR_RETURN(BackendDevice * out_device, registry.GetDevice(out.device()));
    SY_RETURN_IF_ERROR(profiler_.TimeCopy(
        *out_device, outputs.size() == 1 ? "output d2h" : absl::StrCat("output ", i, " d2h"),
        "d2h", out.shape(), out.size_bytes(), [&] {
          return out_device->CopyToHost(*out.buffer(), host_outputs_[i].data(),
                                        out.size_bytes());
        }));
  }
  SY_RETURN_IF_ERROR(profiler_.EndIteration());
  profiler_.AddHostEvent("host", absl::StrCat("iteration ", iteration), host_start,
                         Profiler::Clock::now());
  return outputs;
}

std::pair<std::string, std::string> TraceOriginEntry(Profiler::Clock::time_point origin) {
  return {kTraceOriginKey,
          absl::StrCat(
              std::chrono::duration<double, std::micro>(origin.time_since_epoch()).count())};
}

}  // namespace runtime
}  // namespace switchyard
