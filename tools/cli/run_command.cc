#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <random>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/types/span.h"
#include "core/status_macros.h"
#include "models/model_zoo.h"
#include "models/npy.h"
#include "models/output_files.h"
#include "models/safetensors.h"
#include "nlohmann/json.hpp"
#include "tools/cli/commands.h"
#include "tools/cli/flags.h"
#include "tools/cli/profile_run.h"
#include "tools/cli/utilization.h"

namespace switchyard {
namespace cli {
namespace {

struct Timing {
  double median_ms, min_ms, max_ms;
};

Timing Summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  const double median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  return {median, ms.front(), ms.back()};
}

// Per sample, the five largest outputs as (class, value), best first.
std::vector<std::vector<std::pair<int64_t, float>>> TopK(
    const std::vector<float>& values, const Shape& shape, int k) {
  std::vector<std::vector<std::pair<int64_t, float>>> result;
  const int64_t rows = shape.dim(0);
  const int64_t classes = shape.num_elements() / std::max<int64_t>(rows, 1);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> order(classes);
    std::iota(order.begin(), order.end(), 0);
    const float* row = values.data() + r * classes;
    const int64_t top = std::min<int64_t>(k, classes);
    std::partial_sort(order.begin(), order.begin() + top, order.end(),
                      [&](int64_t a, int64_t b) { return row[a] > row[b]; });
    std::vector<std::pair<int64_t, float>> best;
    for (int64_t i = 0; i < top; ++i) best.emplace_back(order[i], row[order[i]]);
    result.push_back(std::move(best));
  }
  return result;
}

absl::StatusOr<HostArray> LoadOrMakeInput(const std::string& model_name) {
  const std::string path = ResolveUserPath(absl::GetFlag(FLAGS_input));
  if (!path.empty()) {
    SY_ASSIGN_OR_RETURN(HostArray input, ReadNpy(path));
    if (input.dtype != DType::kFloat32) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": the input is ", DTypeName(input.dtype), "; ", model_name,
          " takes float32 images: save them with np.save(path, "
          "x.astype(np.float32))"));
    }
    return input;
  }
  SY_ASSIGN_OR_RETURN(int64_t batch, BatchFlag());
  SY_ASSIGN_OR_RETURN(Shape shape, ModelInputShape(model_name, batch));
  std::mt19937_64 rng(absl::GetFlag(FLAGS_seed) + 1);
  HostArray input(shape, std::vector<float>(shape.num_elements()));
  for (float& v : input.mutable_values()) v = NormalSample(rng, 1.0f);
  return input;
}

absl::StatusOr<Device> InputDevice(const Device& model_device) {
  const std::string flag = absl::GetFlag(FLAGS_input_device);
  if (flag.empty()) return model_device;
  return Device::Parse(flag);
}

absl::Status WriteReport(const std::string& path, const nlohmann::json& report) {
  std::ofstream file(path);
  file << report.dump(2) << "\n";
  file.close();
  if (!file) {
    return absl::PermissionDeniedError(
        absl::StrCat("could not write the report to '", path, "'"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunCommand(BackendRegistry& registry) {
  const int iterations = absl::GetFlag(FLAGS_iterations);
  const int warmup = absl::GetFlag(FLAGS_warmup);
  if (iterations < 1 || warmup < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--iterations must be >= 1 and --warmup >= 0, got ", iterations, " and ",
        warmup));
  }
  SY_ASSIGN_OR_RETURN(Device device, Device::Parse(absl::GetFlag(FLAGS_device)));
  SY_RETURN_IF_ERROR(registry.GetDevice(device).status());

  const std::string model_name = absl::GetFlag(FLAGS_model);
  SY_ASSIGN_OR_RETURN(std::unique_ptr<Module> model, CreateModel(model_name, registry));
  SY_RETURN_IF_ERROR(model->To(device));
  const std::string weights = ResolveUserPath(absl::GetFlag(FLAGS_weights));
  if (weights.empty()) {
    SY_RETURN_IF_ERROR(InitializeModel(*model, absl::GetFlag(FLAGS_seed)));
  } else {
    // Mapped and copied straight to the device (errors start with the path).
    SY_RETURN_IF_ERROR(model->LoadSafetensors(weights));
  }

  SY_ASSIGN_OR_RETURN(PlacementPolicy placement,
                      ParsePlacementPolicy(absl::GetFlag(FLAGS_placement)));
  model->set_placement(placement);
  SY_ASSIGN_OR_RETURN(Device input_device, InputDevice(device));
  SY_ASSIGN_OR_RETURN(HostArray input_array, LoadOrMakeInput(model_name));
  SY_ASSIGN_OR_RETURN(
      Tensor input, Tensor::FromVector(input_array.shape, input_array.values(),
                                       input_device, registry));
  std::printf("model %s (%lld parameters) on %s, input %s on %s\n",
              model_name.c_str(), static_cast<long long>(model->NumParameters()),
              device.ToString().c_str(), input.shape().ToString().c_str(),
              input_device.ToString().c_str());
  SY_ASSIGN_OR_RETURN(ExecutablePlan * plan,
                      model->Compiled(input.shape(), input.device()));
  if (absl::GetFlag(FLAGS_explain_placement)) {
    std::printf("%s", plan->graph().ToText().c_str());
  }
  if (placement == PlacementPolicy::kAuto) {
    std::printf("%s\n", plan->placement_report().ToString().c_str());
  }

  // --output: one file, a comma-separated file per output, or a folder
  // (models/output_files.h); checked against the model's outputs before
  // anything runs.
  std::vector<std::string> output_paths;
  if (const std::string flag = absl::GetFlag(FLAGS_output); !flag.empty()) {
    std::vector<std::string> targets;
    for (absl::string_view target : absl::StrSplit(flag, ',')) {
      targets.push_back(ResolveUserPath(std::string(target)));
    }
    absl::StatusOr<std::vector<std::string>> paths =
        OutputFilePaths(targets, plan->graph().outputs().size());
    if (!paths.ok()) {
      return absl::Status(
          paths.status().code(),
          absl::StrCat("--output=", flag, ": ", paths.status().message()));
    }
    output_paths = *std::move(paths);
  }

  if (PipelineRequested()) {
    // --batches: a stream through an input pipeline (tools/cli/utilization.h).
    return RunPipelineCommand(*plan, input, registry);
  }
  // --profile / --profile-summary: timed iterations also upload the input and
  // download the output, each node timed on the device clock.
  std::unique_ptr<RunProfiling> profiling = RunProfiling::FromFlags();

  std::vector<Tensor> outputs;  // every output of the model
  std::vector<double> times;
  for (int i = 0; i < warmup + iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    // Forward returns after the device has finished: the time is real.
    if (profiling != nullptr && i >= warmup) {
      SY_ASSIGN_OR_RETURN(
          outputs, profiling->Iteration(*plan, input, input_array.values(),
                                        i - warmup, registry));
    } else {
      SY_ASSIGN_OR_RETURN(outputs,
                          model->Forward(absl::MakeConstSpan(&input, 1)));
    }
    const auto end = std::chrono::steady_clock::now();
    if (i >= warmup) {
      times.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    }
  }
  // Top-5 and the report describe the first output; --output writes all.
  const Tensor& output = outputs.front();
  SY_ASSIGN_OR_RETURN(std::vector<float> values, output.ToVector());
  const Timing timing = Summarize(times);

  std::printf("output %s\n", output.shape().ToString().c_str());
  const auto top5 = TopK(values, output.shape(), 5);
  nlohmann::json top5_json = nlohmann::json::array();
  for (size_t s = 0; s < top5.size(); ++s) {
    std::string line = absl::StrFormat("sample %d top-5:", s);
    nlohmann::json sample = nlohmann::json::array();
    for (const auto& [cls, value] : top5[s]) {
      absl::StrAppendFormat(&line, "  %d (%.4f)", cls, value);
      sample.push_back({{"class", cls}, {"value", value}});
    }
    std::printf("%s\n", line.c_str());
    top5_json.push_back(sample);
  }
  std::printf("forward: median %.2f ms, min %.2f ms, max %.2f ms over %d "
              "iterations (%d warmup)\n",
              timing.median_ms, timing.min_ms, timing.max_ms, iterations, warmup);
  if (profiling != nullptr) {
    SY_RETURN_IF_ERROR(profiling->Finish(
        {{"model", model_name}, {"device", device.ToString()},
         {"input", input.shape().ToString()}}));
  }

  if (!output_paths.empty()) {
    SY_RETURN_IF_ERROR(WriteOutputFiles(outputs, output_paths));
    for (const std::string& path : output_paths) {
      std::printf("wrote %s\n", path.c_str());
    }
  }
  const std::string report_path = ResolveUserPath(absl::GetFlag(FLAGS_report));
  if (!report_path.empty()) {
    nlohmann::json report = {
        {"model", model_name},
        {"device", device.ToString()},
        {"batch", input.shape().dim(0)},
        {"input_shape", input.shape().dims()},
        {"output_shape", output.shape().dims()},
        {"warmup", warmup},
        {"iterations", iterations},
        {"forward_ms", {{"median", timing.median_ms},
                        {"min", timing.min_ms},
                        {"max", timing.max_ms}}},
        {"top5", top5_json},
    };
    // The options of the backend the model ran on (cpu: threads, fusion).
    SY_ASSIGN_OR_RETURN(Backend * backend, registry.GetBackend(device.type()));
    for (const BackendOption& option : backend->Options()) {
      report["backend_options"][option.key] = option.value;
      int threads = 0;
      if (device.type() == "cpu" && option.key == "threads" &&
          absl::SimpleAtoi(option.value, &threads)) {
        report["cpu_threads"] = threads;
      }
    }
    SY_RETURN_IF_ERROR(WriteReport(report_path, report));
    std::printf("wrote %s\n", report_path.c_str());
  }
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace switchyard
