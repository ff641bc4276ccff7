#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/types/span.h"
#include "core/file_transaction.h"
#include "core/format_bytes.h"
#include "core/releasable_weights.h"
#include "core/run_memory.h"
#include "core/status_macros.h"
#include "models/model_zoo.h"
#include "models/npy.h"
#include "models/output_files.h"
#include "models/safetensors.h"
#include "nlohmann/json.hpp"
#include "runtime/detections.h"
#include "runtime/elapsed.h"
#include "runtime/model_inputs.h"
#include "runtime/output_summary.h"
#include "runtime/own_size_images.h"
#include "runtime/per_file_outputs.h"
#include "runtime/replicas.h"
#include "runtime/samples_per_run.h"
#include "runtime/seeded_input.h"
#include "runtime/session.h"
#include "tools/cli/build_info.h"
#include "tools/cli/commands.h"
#include "tools/cli/device_choice.h"
#include "tools/cli/flags.h"
#include "tools/cli/image_input.h"
#include "tools/cli/own_size_images.h"
#include "tools/cli/profile_run.h"
#include "tools/cli/utilization.h"

ABSL_FLAG(int64_t, max_loop_iterations, switchyard::runtime::kDefaultMaxLoopIterations,
          "run: iterations one ONNX Loop node may run per forward pass; a "
          "trip count or condition from data beyond it is an error");
ABSL_FLAG(int, detections_shown, 10,
          "run: a detector's detections printed, best scores first (0: all; the "
          "report has every one)");
ABSL_FLAG(std::string, replicas, "",
          "run, bench: one replica of the model per device, e.g. ref:0,ref:1 or "
          "cuda:0,cuda:1 (each named once); every batch is split along "
          "dimension 0 across them and the slices run concurrently, one host "
          "thread per device; outputs come back in input order, with a "
          "per-device table (busy share, images/s). Instead of --device (run) "
          "or --devices (bench); see docs/scaling.md");
ABSL_FLAG(std::string, labels, "",
          "run: text file with one class name per line (line i names class "
          "i), shown next to the top-5");

namespace switchyard {
namespace cli {

using runtime::CountSamplesPerRun;
using runtime::DescribeInputs;
using runtime::DetectionOutputs;
using runtime::DetectionsJson;
using runtime::FilesOfBatch;
using runtime::FindDetections;
using runtime::FormatDetections;
using runtime::FormatTop5;
using runtime::ImageBatchShape;
using runtime::ImageInput;
using runtime::InputArrays;
using runtime::InputFilePaths;
using runtime::InputRequest;
using runtime::InputShapes;
using runtime::LooksLikeClassScores;
using runtime::MakeInputArrays;
using runtime::Ms;
using runtime::OutputFileNames;
using runtime::ParseReplicaDevices;
using runtime::PerFileOutputs;
using runtime::PerFileOutputsWriter;
using runtime::PrepareImageOutputFolder;
using runtime::ReplicaRun;
using runtime::ReplicaSet;
using runtime::ReplicaSummary;
using runtime::SampleOf;
using runtime::SamplesPerRun;
using runtime::Session;
using runtime::SummaryJson;
using runtime::SummaryLine;
using runtime::TakesOneImageAtItsOwnSize;
using runtime::Top5;

namespace {

constexpr int kMaxIterations = 1000000;

struct Timing {
  double median_ms, min_ms, max_ms, total_ms;
};

// "cpu:0: peak 61.20 MiB during a run (36.10 MiB held before it); the last
// run took 0 new blocks, the first 14 (25.10 MiB)".
std::string MemoryLine(const DeviceMemoryUse& first, const DeviceMemoryUse& last) {
  return absl::StrCat(last.device.ToString(), ": peak ", FormatBytes(last.peak_bytes),
                      " during a run (", FormatBytes(last.start_bytes),
                      " held before it); the last run took ", last.new_blocks,
                      " new block", last.new_blocks == 1 ? "" : "s", ", the first ",
                      first.new_blocks, " (", FormatBytes(first.new_bytes), ")");
}

nlohmann::json MemoryJson(const std::vector<DeviceMemoryUse>& first,
                          const std::vector<DeviceMemoryUse>& last) {
  nlohmann::json memory = nlohmann::json::object();
  if (last.empty()) return memory;
  memory = {{"device", last[0].device.ToString()},
            {"peak_bytes", last[0].peak_bytes},
            {"start_bytes", last[0].start_bytes},
            {"last_run_new_blocks", last[0].new_blocks},
            {"last_run_new_bytes", last[0].new_bytes},
            {"first_run_new_blocks", first[0].new_blocks},
            {"first_run_new_bytes", first[0].new_bytes}};
  return memory;
}

Timing Summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  const double median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  double total = 0;
  for (double t : ms) total += t;
  return {median, ms.front(), ms.back(), total};
}

// An input file the run reads: it must exist and be a file (or a pipe), so
// /dev/zero or a folder is refused before any work.
absl::Status CheckInputFile(absl::string_view flag, const std::string& path) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    return absl::ErrnoToStatus(
        errno, absl::StrCat(flag, ": cannot read '", path, "'"));
  }
  if (!S_ISREG(info.st_mode) && !S_ISFIFO(info.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(
        flag, ": '", path, "' is ",
        S_ISDIR(info.st_mode) ? "a directory" : "a device or socket",
        ", not a file"));
  }
  return absl::OkStatus();
}

// The model's inputs on the host, each with where it came from.
struct HostInputs {
  std::vector<HostArray> arrays;
  std::vector<std::string> sources;  // a path, "seeded" or "images"
};

// --images: the stream's batches come from the files; this is the device
// input they are copied into. The flags and the file list are checked now.
absl::StatusOr<HostInputs> ImageStreamInput() {
  if (!InputFlagValues().empty()) {
    return absl::InvalidArgumentError(
        "--input and --images were both given: the images are the input; drop one");
  }
  SY_ASSIGN_OR_RETURN(ImageInput images, PrepareImageInput());
  SY_ASSIGN_OR_RETURN(int64_t batch, BatchFlag());
  SY_RETURN_IF_ERROR(CheckRange("--batch", batch, 1, int64_t{1} << 20));
  const Shape shape = ImageBatchShape(images, batch);
  SY_RETURN_IF_ERROR(CheckBatchFitsMemory(absl::StrCat("--batch=", batch), shape));
  return HostInputs{{HostArray(shape, std::vector<float>(shape.num_elements()))},
                    {"images"}};
}

// What the flags ask the model to be fed (runtime/model_inputs.h).
absl::StatusOr<InputRequest> ModelFileRequest() {
  InputRequest request;
  request.files = InputFlagValues();
  request.shapes = InputShapeFlagValues();
  request.seed = absl::GetFlag(FLAGS_seed);
  request.resolve_path = &ResolveUserPath;
  if (FlagGiven("batch")) {
    SY_ASSIGN_OR_RETURN(int64_t batch, BatchFlag());
    SY_RETURN_IF_ERROR(CheckRange("--batch", batch, 1, int64_t{1} << 20));
    request.batch = batch;
  }
  return request;
}

// One array per declared input, of its dtype, for either kind of model:
// the --input files (checked against the declarations), else seeded arrays
// of the shapes --input_shape and --batch give (a built-in model's own size
// by default); with --images, the stream's batch.
absl::StatusOr<HostInputs> ModelInputs(const Session& model) {
  if (ImagesRequested()) {
    const std::vector<runtime::ValueInfo>& in = model.inputs();
    if (in.size() != 1 || in[0].dtype != DType::kFloat32) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--images feeds one float32 image input; ", model.name(), " takes ",
          DescribeInputs(in), ": drop --images and give --input"));
    }
    return ImageStreamInput();
  }
  SY_ASSIGN_OR_RETURN(InputRequest request, ModelFileRequest());
  const auto named = [&](const absl::Status& status) {
    return absl::Status(status.code(), absl::StrCat(model.name(), ": ", status.message()));
  };
  if (!request.files.empty()) {
    SY_ASSIGN_OR_RETURN(std::vector<std::string> paths,
                        InputFilePaths(model.inputs(), request));
    for (const std::string& path : paths) {
      SY_RETURN_IF_ERROR(CheckInputFile("--input", path));
    }
    absl::StatusOr<InputArrays> arrays = MakeInputArrays(model.inputs(), request);
    if (!arrays.ok()) return named(arrays.status());
    return HostInputs{std::move(arrays->arrays), std::move(arrays->sources)};
  }
  absl::StatusOr<std::vector<InputSpec>> specs = model.InputSpecsFor(request, Device::Cpu());
  if (!specs.ok()) return named(specs.status());
  HostInputs seeded;
  std::mt19937_64 rng(request.seed + 1);
  const std::string asked = !request.shapes.empty() ? "--input_shape"
                            : request.batch.has_value()
                                ? absl::StrCat("--batch=", *request.batch)
                                : "the default input";
  for (const InputSpec& spec : *specs) {
    SY_RETURN_IF_ERROR(CheckBatchFitsMemory(asked, spec.shape));
    seeded.arrays.push_back(runtime::SeededArray(spec.shape, spec.dtype, rng));
    seeded.sources.push_back("seeded");
  }
  return seeded;
}

// Every path an --input value may name ("a.npy", "ids=a.npy"), so that no
// output of the run can overwrite one; paths that do not exist are ignored.
void AddInputFiles(FileTransaction& files) {
  for (const std::string& value : InputFlagValues()) {
    for (absl::string_view part : absl::StrSplit(value, ',', absl::SkipEmpty())) {
      files.AddInput(ResolveUserPath(std::string(part)), "--input");
      const size_t eq = part.find('=');
      if (eq != absl::string_view::npos) {
        files.AddInput(ResolveUserPath(std::string(part.substr(eq + 1))), "--input");
      }
    }
  }
}

absl::StatusOr<std::vector<std::string>> ReadLabels() {
  const std::string path = ResolveUserPath(absl::GetFlag(FLAGS_labels));
  std::vector<std::string> labels;
  if (path.empty()) return labels;
  SY_RETURN_IF_ERROR(CheckInputFile("--labels", path));
  std::ifstream file(path);
  if (!file) {
    return absl::ErrnoToStatus(errno,
                               absl::StrCat("--labels: cannot read '", path, "'"));
  }
  for (std::string line; std::getline(file, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    labels.push_back(line);
    if (labels.size() > 10000000) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--labels=", path, ": more than 10000000 lines; give one class name per line"));
    }
  }
  if (labels.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--labels=", path, ": the file is empty; give one class name per line"));
  }
  return labels;
}

absl::StatusOr<Device> InputDevice(const Device& model_device) {
  const std::string flag = absl::GetFlag(FLAGS_input_device);
  if (flag.empty()) return model_device;
  return Device::Parse(flag);
}

struct NonFinite {
  int64_t nans = 0, infs = 0;
};

NonFinite CountNonFinite(const HostArray& a) {
  NonFinite n;
  if (!IsFloatingPoint(a.dtype)) return n;
  for (size_t k = 0; k < a.stored_elements(); ++k) {
    const double v = a.ElementAsDouble(static_cast<int64_t>(k));
    if (std::isnan(v)) ++n.nans;
    else if (std::isinf(v)) ++n.infs;
  }
  return n;
}

// NaN or Inf in an input: a warning before the run. Backends need not
// carry them alike (oneDNN's relu and max pooling turn NaN into numbers,
// the Eigen backend keeps it), so the outputs may show no sign of them.
void WarnOfNonFiniteInputs(const std::vector<HostArray>& arrays, const Device& device) {
  for (size_t i = 0; i < arrays.size(); ++i) {
    const HostArray& a = arrays[i];
    const auto [nans, infs] = CountNonFinite(a);
    if (nans + infs == 0) continue;
    std::printf("warning: input %zu has %lld NaN and %lld Inf of %zu values: the outputs "
                "are not meaningful, even where they show none (on %s; oneDNN's relu "
                "and max pooling turn NaN into numbers)\n",
                i, static_cast<long long>(nans), static_cast<long long>(infs),
                a.stored_elements(), device.ToString().c_str());
  }
}

// A slowest forward far above the median: the machine's other work took
// the cores the run's threads wait for (OpenMP's barriers wait for every
// thread), and the times say so little about the model.
void WarnOfSpread(double median_ms, double max_ms, int iterations) {
  constexpr double kFar = 2.0;
  if (iterations < 3 || median_ms <= 0 || max_ms < kFar * median_ms) return;
  double load[1] = {0};
  const bool known = getloadavg(load, 1) == 1;
  std::printf("warning: the slowest forward took %.1fx the median: other work on the machine "
              "(load average %s on %u cores) takes the cores the run waits for; fewer "
              "--threads steadies it\n",
              max_ms / median_ms, known ? absl::StrFormat("%.2f", load[0]).c_str() : "unknown",
              std::thread::hardware_concurrency());
}


// --replicas runs a batch split over devices: the flags that choose one
// device, or that need one plan on one device, do not go with it.
absl::Status CheckReplicaFlags() {
  if (FlagGiven("device") || FlagGiven("input_device")) {
    return absl::InvalidArgumentError(
        "--replicas and --device (or --input-device) were both given: --replicas "
        "names every device the model runs on, and each replica's inputs go to "
        "its own device; drop --device/--input-device");
  }
  if (FlagGiven("images") || FlagGiven("batches")) {
    return absl::UnimplementedError(
        "--replicas with --images or --batches is not supported yet: replicas "
        "split an --input or seeded batch (--batch=N); stream images on one "
        "--device, or give the batch as --input=X.npy");
  }
  for (const char* flag : {"profile", "profile_summary", "explain_placement"}) {
    if (FlagGiven(flag)) {
      std::string name = flag;
      std::replace(name.begin(), name.end(), '_', '-');
      return absl::InvalidArgumentError(absl::StrCat(
          "--", name, " shows one plan on one device and does not go with "
          "--replicas; run with --device=D for it (or drop --", name, ")"));
    }
  }
  return absl::OkStatus();
}

// One line per input: what the model declares and what it is fed.
std::string DescribeFed(const Session& model, const HostInputs& inputs) {
  std::string text;
  for (size_t i = 0; i < inputs.arrays.size(); ++i) {
    const HostArray& a = inputs.arrays[i];
    const std::string declared =
        i < model.inputs().size() ? model.inputs()[i].ToString() : "input";
    absl::StrAppend(&text, "  ", declared, ": ", a.shape.ToString(), " ",
                    DTypeName(a.dtype), " ", inputs.sources[i] == "seeded" ||
                    inputs.sources[i] == "images" ? "" : "from ",
                    inputs.sources[i], "\n");
  }
  return text;
}

// The top-5 of one class-score output, printed, and as the report's JSON.
nlohmann::json PrintTop5(const HostArray& scores,
                         const std::vector<std::string>& labels) {
  const int64_t classes = scores.shape.dim(1);
  if (!labels.empty() && static_cast<int64_t>(labels.size()) != classes) {
    std::printf("warning: --labels has %zu names but the output has %lld classes\n",
                labels.size(), static_cast<long long>(classes));
  }
  std::printf("top-5 per sample: class, softmax probability (raw output)%s\n",
              labels.empty() ? "" : ", label");
  nlohmann::json top5_json = nlohmann::json::array();
  for (int64_t s = 0; s < scores.shape.dim(0); ++s) {
    Top5 top5 = FormatTop5(scores, s, labels);
    std::printf("sample %lld top-5:%s\n", static_cast<long long>(s), top5.text.c_str());
    top5_json.push_back(std::move(top5.json));
  }
  return top5_json;
}

// One streamed batch of --images (`batch` samples): each sample that holds
// a file of the first pass gets that file's slice of every output.
absl::Status AddBatchOutputs(int index, int64_t batch, absl::Span<const Tensor> outputs,
                             const ImageInput& images,
                             const std::function<bool(const std::string&)>& is_bad,
                             PerFileOutputs& per_file, PerFileOutputsWriter& writer) {
  std::vector<HostArray> host;
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Tensor& y = outputs[o];
    if (y.shape().rank() == 0 || y.shape().dim(0) != batch) {
      // Not one row per image: nothing of it is any one file's.
      if (!per_file.writes_files()) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          "--output with --images: output ", o, " is ", y.shape().ToString(),
          ", not one row per image of the batch of ", batch, ", so it cannot be split "
          "per file; drop --output, or run each image as --input"));
    }
    SY_ASSIGN_OR_RETURN(std::vector<char> bytes, y.ToBytes());
    host.emplace_back(y.shape(), y.dtype(), std::move(bytes));
  }
  const std::vector<int64_t> files =
      FilesOfBatch(index, batch, static_cast<int64_t>(images.files.size()),
                   [&](int64_t file) { return is_bad(images.files[file]); });
  for (int64_t s = 0; s < batch; ++s) {
    if (files[s] < 0) continue;
    std::vector<HostArray> sample;
    for (const HostArray& y : host) sample.push_back(SampleOf(y, s));
    std::printf("%s", per_file
                          .Top5Lines(images.first_index + files[s] + 1,
                                     images.files[files[s]], sample)
                          .c_str());
    SY_RETURN_IF_ERROR(writer.Add(images.output_names[files[s]], std::move(sample)));
  }
  return absl::OkStatus();
}

}  // namespace

// --precompile: each set of input shapes compiled for before the run (the
// static plan for it, or, for a model whose shapes are decided while it
// runs, one run on zeros, which compiles its segments), so that the first
// run of each is as fast as the rest. Returns each set as text.
absl::StatusOr<std::vector<std::string>> Precompile(Session& model, bool staged,
                                                    const Device& input_device,
                                                    BackendDevice& in_device) {
  std::vector<std::string> done;
  for (const std::vector<std::string>& set : PrecompileFlagSets()) {
    const std::string flag = absl::StrCat("--precompile=", absl::StrJoin(set, ","));
    InputRequest request;
    request.shapes = set;
    absl::StatusOr<std::vector<InputSpec>> specs = model.InputSpecsFor(request, input_device);
    if (!specs.ok()) {
      // The shapes are read as --input_shape's: the message names that flag.
      const std::string message = absl::StrReplaceAll(
          specs.status().message(), {{"--input_shape", "--precompile"}, {", --batch", ""}});
      return absl::Status(specs.status().code(),
                          absl::StartsWith(message, "--precompile")
                              ? message
                              : absl::StrCat(flag, ": ", message));
    }
    std::vector<Tensor> zeros;
    std::vector<std::string> text;
    for (const InputSpec& spec : *specs) {
      const std::vector<char> bytes(
          static_cast<size_t>(spec.shape.num_elements()) * DTypeSize(spec.dtype), 0);
      SY_ASSIGN_OR_RETURN(Tensor t, Tensor::FromBytes(spec.shape, spec.dtype, bytes.data(),
                                                      bytes.size(), in_device));
      zeros.push_back(std::move(t));
      text.push_back(spec.shape.ToString());
    }
    const absl::Status compiled =
        staged ? model.Run(zeros).status() : model.module().Compiled(*specs).status();
    if (!compiled.ok()) {
      return absl::Status(compiled.code(), absl::StrCat(flag, ": ", compiled.message()));
    }
    done.push_back(absl::StrJoin(text, " + "));
  }
  return done;
}

namespace {

// What `run` was asked for: every flag checked, and every file it reads or
// writes added to the run's transaction, before the model is built and its
// weights are initialised or loaded (seconds for VGG).
struct RunRequest {
  int iterations = 0;
  int warmup = 0;
  // --replicas: one model per device, the batch split across them
  // (runtime/replicas.h); the first device stands for the model's device.
  std::vector<Device> replica_devices;
  FlagDevice chosen;
  Device input_device = Device::Cpu();
  std::string model_name;
  std::string weights;
  std::vector<std::string> labels;
  std::string output_flag;
  std::vector<std::string> output_targets;
  std::string image_output_dir;  // --images with --output: each file's outputs
  std::string report_path;
  ProfileFlags profile_flags;

  bool replicated() const { return !replica_devices.empty(); }
  const Device& device() const { return chosen.device; }
};

absl::StatusOr<RunRequest> ReadRunRequest(BackendRegistry& registry, FileTransaction& files) {
  RunRequest r;
  r.iterations = absl::GetFlag(FLAGS_iterations);
  r.warmup = absl::GetFlag(FLAGS_warmup);
  SY_RETURN_IF_ERROR(CheckRange("--iterations", r.iterations, 1, kMaxIterations));
  SY_RETURN_IF_ERROR(CheckRange("--warmup", r.warmup, 0, kMaxIterations));
  SY_RETURN_IF_ERROR(CheckRange("--detections_shown", absl::GetFlag(FLAGS_detections_shown), 0,
                                 1 << 20));
  SY_RETURN_IF_ERROR(CheckPipelineFlags());
  SY_RETURN_IF_ERROR(CheckProfileFlags());
  if (FlagGiven("replicas")) {
    SY_RETURN_IF_ERROR(CheckReplicaFlags());
    SY_ASSIGN_OR_RETURN(r.replica_devices,
                        ParseReplicaDevices(absl::GetFlag(FLAGS_replicas), registry));
  }
  if (r.replicated()) {
    r.chosen.device = r.replica_devices[0];
    r.chosen.reason = "named by --replicas";
    SY_ASSIGN_OR_RETURN(r.chosen.placement,
                        PlacementFromFlags(false, PlacementPolicy::kStrict));
  } else {
    SY_ASSIGN_OR_RETURN(r.chosen, DeviceFromFlags(registry));
  }
  SY_ASSIGN_OR_RETURN(r.input_device, InputDevice(r.device()));
  SY_RETURN_IF_ERROR(registry.GetDevice(r.input_device).status());
  r.model_name = ModelFlag();
  if (!InputFlagValues().empty() && FlagGiven("batch")) {
    return absl::InvalidArgumentError(
        "--batch and --input were both given: the batch is the first dimension "
        "of the --input array; drop --batch (or --input for a random batch)");
  }
  r.weights = ResolveUserPath(absl::GetFlag(FLAGS_weights));
  if (!r.weights.empty()) SY_RETURN_IF_ERROR(CheckInputFile("--weights", r.weights));
  SY_ASSIGN_OR_RETURN(r.labels, ReadLabels());

  // Every file the run writes is published together at the end or not at
  // all (core/file_transaction.h); destinations are checked now.
  files.AddInput(r.model_name, "--model");  // a model file (.onnx), if it is one
  files.AddInput(r.weights, "--weights");
  AddInputFiles(files);
  files.AddInput(ResolveUserPath(absl::GetFlag(FLAGS_labels)), "--labels");
  r.output_flag = absl::GetFlag(FLAGS_output);
  for (absl::string_view target : absl::StrSplit(r.output_flag, ',', absl::SkipEmpty())) {
    r.output_targets.push_back(ResolveUserPath(std::string(target)));
  }
  const bool output_is_folder =
      r.output_targets.size() == 1 &&
      (absl::EndsWith(r.output_targets[0], "/") ||
       [&] { struct stat i; return stat(r.output_targets[0].c_str(), &i) == 0 && S_ISDIR(i.st_mode); }());
  // --images: each file's outputs in one folder, created now
  // (runtime/per_file_outputs.h). Synthetic --batches keep none.
  if (!r.output_flag.empty() && ImagesRequested()) {
    if (r.output_targets.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--output=", r.output_flag, ": with --images each image has its own outputs "
          "(<name>.<output>.npy); give one folder (--output=DIR/)"));
    }
    SY_ASSIGN_OR_RETURN(r.image_output_dir,
                        PrepareImageOutputFolder(r.output_flag, r.output_targets[0]));
  } else if (!r.output_flag.empty() && PipelineRequested()) {
    return absl::InvalidArgumentError(
        "--output with --batches: the streamed batches are seeded random values, so "
        "their outputs are not kept; give --images=DIR to write each image's outputs, "
        "or drop --batches to write one forward's");
  }
  if (!output_is_folder && !ImagesRequested()) {
    for (const std::string& target : r.output_targets) {
      SY_RETURN_IF_ERROR(files.AddOutput(target, "--output"));
    }
  }
  r.report_path = ResolveUserPath(absl::GetFlag(FLAGS_report));
  if (!r.report_path.empty()) SY_RETURN_IF_ERROR(files.AddOutput(r.report_path, "--report"));
  r.profile_flags = GetProfileFlags();
  if (!r.profile_flags.trace_path.empty()) {
    SY_RETURN_IF_ERROR(files.AddOutput(r.profile_flags.trace_path, "--profile"));
  }
  return r;
}

void PrintTraceWritten(const RunRequest& r) {
  if (!r.profile_flags.trace_path.empty()) {
    std::printf("wrote trace %s (open in https://ui.perfetto.dev or chrome://tracing)\n",
                r.profile_flags.trace_path.c_str());
  }
}

// --images on a model that takes one image at its own size (a detector
// with its transform in the graph): each image as it is, one per run
// (runtime/own_size_images.h), not the batching pipeline.
absl::Status RunImagesAtTheirOwnSize(const RunRequest& r, Session& model,
                                     BackendRegistry& registry, FileTransaction& files,
                                     const nlohmann::json& facts) {
  if (FlagGiven("batches") || FlagGiven("batch")) {
    return absl::InvalidArgumentError(absl::StrCat(
        r.model_name, " takes one image at its own size (",
        DescribeInputs(model.inputs()), "), so --images runs one image at a time: "
        "drop --batch and --batches"));
  }
  for (const char* flag : {"image_size", "resize", "augment"}) {
    if (FlagGiven(flag)) {
      std::string name = flag;
      std::replace(name.begin(), name.end(), '_', '-');
      return absl::InvalidArgumentError(absl::StrCat(
          "--", name, " sets the image pipeline's transform, but ", r.model_name,
          " takes each image at its own size and resizes it in its graph: drop --", name));
    }
  }
  SY_ASSIGN_OR_RETURN(ImageInput image_input, PrepareImageInput());
  SY_RETURN_IF_ERROR(model.To(r.device()));
  model.set_placement(r.chosen.placement);
  SY_ASSIGN_OR_RETURN(BackendDevice * image_device, registry.GetDevice(r.device()));
  const auto precompile_begin = std::chrono::steady_clock::now();
  SY_ASSIGN_OR_RETURN(const std::vector<std::string> precompiled,
                      Precompile(model, /*staged=*/true, r.device(), *image_device));
  if (!precompiled.empty()) {
    std::printf("precompiled %zu image size%s in %.0f ms: %s\n", precompiled.size(),
                precompiled.size() == 1 ? "" : "s",
                Ms(precompile_begin, std::chrono::steady_clock::now()),
                absl::StrJoin(precompiled, ", ").c_str());
  }
  OwnSizeImagesOptions options;
  options.images = image_input.source;
  options.files = image_input.files;
  options.first_index = image_input.first_index;
  options.total_files = image_input.total_files;
  options.skip_bad_images = image_input.options.bad_images == data::BadImagePolicy::kSkip;
  options.output_dir = r.image_output_dir;
  options.output_names = image_input.output_names;
  options.report_path = r.report_path;
  options.labels = r.labels;
  options.detections_shown = absl::GetFlag(FLAGS_detections_shown);
  SY_RETURN_IF_ERROR(
      RunOnImagesAtTheirOwnSize(model, r.device(), registry, options, facts, files));
  SY_RETURN_IF_ERROR(files.Commit());
  if (!r.report_path.empty()) std::printf("wrote %s\n", r.report_path.c_str());
  PrintTraceWritten(r);
  return absl::OkStatus();
}

// The model set up to run: weights, replicas, inputs on their device, and
// its static plan, or (a model whose shapes are decided while it runs) its
// first forward, which compiled its segments.
struct PreparedRun {
  HostInputs host_inputs;
  std::vector<Tensor> inputs;
  std::unique_ptr<ReplicaSet> replica_set;
  ExecutablePlan* plan = nullptr;  // null for a staged run
  bool staged = false;
  double staged_first_ms = -1;
  std::vector<DeviceMemoryUse> staged_first_memory;
  std::chrono::steady_clock::time_point weights_done, compile_done;
  double precompile_ms = 0;
};

absl::StatusOr<PreparedRun> PrepareRun(const RunRequest& r, Session& model,
                                       BackendRegistry& registry) {
  PreparedRun p;
  SY_ASSIGN_OR_RETURN(p.host_inputs, ModelInputs(model));
  if (PipelineRequested() && (p.host_inputs.arrays.size() != 1 ||
                              p.host_inputs.arrays[0].dtype != DType::kFloat32)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--batches streams batches of one float32 input; ", r.model_name, " takes ",
        DescribeInputs(model.inputs()), ": drop --batches"));
  }

  // Set-up: the weights, the inputs on their device, the plan.
  SY_RETURN_IF_ERROR(model.To(r.device()));
  if (r.weights.empty()) {
    SY_RETURN_IF_ERROR(model.InitializeWeights(absl::GetFlag(FLAGS_seed)));
  } else {
    // Mapped and copied straight to the device (errors start with the path).
    SY_RETURN_IF_ERROR(model.LoadWeights(r.weights));
  }
  model.set_placement(r.chosen.placement);
  // --replicas: the other replicas get the first one's weights (a model
  // file's come with the file, as for the first).
  if (r.replicated()) {
    SY_ASSIGN_OR_RETURN(p.replica_set, model.Replicate(r.replica_devices));
  }
  p.weights_done = std::chrono::steady_clock::now();
  SY_ASSIGN_OR_RETURN(BackendDevice * in_device, registry.GetDevice(r.input_device));
  std::vector<InputSpec> specs;
  for (const HostArray& array : p.host_inputs.arrays) {
    SY_ASSIGN_OR_RETURN(Tensor t, Tensor::FromBytes(array.shape, array.dtype,
                                                    array.bytes.data(),
                                                    array.bytes.size(), *in_device));
    specs.push_back({t.shape(), t.dtype(), r.input_device});
    p.inputs.push_back(std::move(t));
  }
  std::string device_text = r.device().ToString(),
              input_device_text = r.input_device.ToString();
  if (r.replicated()) {
    std::vector<std::string> names;
    for (const Device& d : r.replica_devices) names.push_back(d.ToString());
    device_text = absl::StrCat(absl::StrJoin(names, ","), " (one replica each)");
    input_device_text = "their devices, split along dimension 0";
  }
  if (r.chosen.chosen_by_policy) {
    std::printf("device: %s; --device names another\n", r.chosen.reason.c_str());
  }
  const long long parameters = static_cast<long long>(model.module().NumParameters());
  std::printf("model %s (%lld parameters) on %s, %zu input%s on %s:\n%s", r.model_name.c_str(),
              parameters, device_text.c_str(), p.inputs.size(), p.inputs.size() == 1 ? "" : "s",
              input_device_text.c_str(), DescribeFed(model, p.host_inputs).c_str());
  WarnOfNonFiniteInputs(p.host_inputs.arrays, r.device());
  // One static plan when the model has one; a model whose shapes are
  // decided while it runs (NonZero, If, a shape computed from data) runs as
  // a chain of plans instead (Session::Run on a model that supports it).
  absl::StatusOr<ExecutablePlan*> compiled = model.module().Compiled(specs);
  // Set-up ends here. A staged model compiles its segments while its first
  // forward runs: that time is the first forward's, counted once.
  p.compile_done = std::chrono::steady_clock::now();
  if (!compiled.ok()) {
    if (!model.supports_staged_run()) return compiled.status();
    p.staged = true;
    const auto tried_begin = std::chrono::steady_clock::now();
    RunOptions watch_memory;
    watch_memory.memory = &p.staged_first_memory;
    absl::StatusOr<std::vector<Tensor>> tried = model.Run(p.inputs, watch_memory);
    // Not a matter of shapes decided at run time: the static plan's error.
    if (!tried.ok()) return tried.status();
    // This run is the first forward (and the first warm-up iteration).
    p.staged_first_ms = Ms(tried_begin, std::chrono::steady_clock::now());
    if (absl::GetFlag(FLAGS_explain_placement) || PipelineRequested()) {
      return absl::UnimplementedError(absl::StrCat(
          "this model's shapes are decided while it runs, so it runs as a chain "
          "of plans (", model.run_stats().segments_run, " segments for this "
          "input); --explain-placement and --batches need a single static plan: "
          "run it without them (static plan: ", compiled.status().message(), ")"));
    }
    std::printf("runs in segments: shapes decided while the model runs\n");
  }
  const auto precompile_begin = std::chrono::steady_clock::now();
  SY_ASSIGN_OR_RETURN(const std::vector<std::string> precompiled,
                      Precompile(model, p.staged, r.input_device, *in_device));
  p.precompile_ms = Ms(precompile_begin, std::chrono::steady_clock::now());
  if (!precompiled.empty()) {
    std::printf("precompiled %zu input shape%s in %.0f ms: %s\n", precompiled.size(),
                precompiled.size() == 1 ? "" : "s", p.precompile_ms,
                absl::StrJoin(precompiled, ", ").c_str());
  }
  p.plan = compiled.ok() ? *compiled : nullptr;
  if (p.plan != nullptr && absl::GetFlag(FLAGS_explain_placement)) {
    std::printf("%s", p.plan->graph().ToText().c_str());
    // What each device runs as one kernel (fusion).
    std::printf("fused: %zu group%s\n%s", p.plan->partitions().size(),
                p.plan->partitions().size() == 1 ? "" : "s",
                p.plan->PartitionsToString().c_str());
    // What each kernel chose (the cpu's conv2d algorithm).
    std::printf("kernels:\n%s", p.plan->KernelsToString().c_str());
  }
  if (p.plan != nullptr && r.chosen.placement == PlacementPolicy::kAuto) {
    std::printf("%s\n", p.plan->placement_report().ToString().c_str());
  }
  return p;
}

// --batches (and --images of one size): a stream through the input
// pipeline (runtime/pipeline.h) with the utilization report.
absl::Status StreamBatches(const RunRequest& r, Session& model, const PreparedRun& p,
                           int64_t batch, BackendRegistry& registry, FileTransaction& files,
                           const nlohmann::json& facts) {
  StreamHooks hooks;
  hooks.samples_per_batch = batch;
  // --images: each file's top-5, printed batch by batch, and its --output
  // files, written on a thread of their own (their own transaction, so
  // that the stream's report and trace can be staged meanwhile).
  FileTransaction image_files;
  image_files.AddInput(r.model_name, "--model");
  image_files.AddInput(ResolveUserPath(absl::GetFlag(FLAGS_labels)), "--labels");
  std::optional<PerFileOutputs> per_file;
  std::optional<PerFileOutputsWriter> writer;
  ImageInput image_input;
  if (ImagesRequested()) {
    SY_ASSIGN_OR_RETURN(image_input, PrepareImageInput());
    PerFileOutputs::Options options;
    options.folder = r.image_output_dir;
    if (!r.image_output_dir.empty()) {
      SY_ASSIGN_OR_RETURN(options.output_names,
                          OutputFileNames(r.image_output_dir, p.plan->graph().outputs().size(),
                                          model.OutputNames()));
    }
    options.labels = r.labels;
    options.total_files = image_input.total_files;
    per_file.emplace(std::move(options), image_files);
    writer.emplace(*per_file, /*capacity=*/64);
    hooks.image_outputs = [&](int index, absl::Span<const Tensor> outputs,
                              const std::function<bool(const std::string&)>& is_bad)
        -> absl::Status {
      return AddBatchOutputs(index, batch, outputs, image_input, is_bad, *per_file, *writer);
    };
  }
  SY_RETURN_IF_ERROR(RunPipelineCommand(*p.plan, p.inputs[0], registry, files, facts, hooks));
  if (writer.has_value()) {
    SY_RETURN_IF_ERROR(writer->Finish());
    // The images' outputs first: a failure there publishes nothing.
    SY_RETURN_IF_ERROR(image_files.Commit());
  }
  SY_RETURN_IF_ERROR(files.Commit());
  if (per_file.has_value() && !r.image_output_dir.empty()) {
    std::printf("wrote %lld files in %s/: <name>.<output>.npy for %lld images\n",
                static_cast<long long>(per_file->files_written()), r.image_output_dir.c_str(),
                static_cast<long long>(per_file->images_seen()));
  }
  if (!r.report_path.empty()) std::printf("wrote %s\n", r.report_path.c_str());
  PrintTraceWritten(r);
  return absl::OkStatus();
}

// The warm-up and timed forwards, and what they measured.
struct Forwards {
  std::vector<Tensor> outputs;  // every output of the model, from the last forward
  std::vector<double> times;    // the timed forwards' milliseconds
  double first_ms = -1;
  // The model's device's memory during the first and the last forward.
  std::vector<DeviceMemoryUse> first_memory, last_memory;
  std::optional<ReplicaSummary> replica_summary;
};

absl::StatusOr<Forwards> RunForwards(const RunRequest& r, Session& model, PreparedRun& p,
                                     RunProfiling* profiling, BackendRegistry& registry) {
  Forwards f;
  // A staged model already ran once (to learn it needs segments): that run
  // was the first warm-up iteration.
  f.first_ms = p.staged_first_ms;
  f.first_memory = p.staged_first_memory;
  const int total = r.warmup + r.iterations;
  if (r.replicated()) {
    // Every iteration runs the whole batch over the replicas; the outputs
    // of the last one, joined in input order, stand for the model's.
    f.replica_summary.emplace(r.replica_devices);
    f.first_ms = -1;
    ReplicaRun last;
    for (int i = 0; i < total; ++i) {
      SY_ASSIGN_OR_RETURN(last, p.replica_set->Run(p.host_inputs.arrays));
      if (f.first_ms < 0) f.first_ms = last.wall_ms;
      if (i < r.warmup) continue;
      f.times.push_back(last.wall_ms);
      f.replica_summary->Add(last);
    }
    SY_ASSIGN_OR_RETURN(BackendDevice * host, registry.GetDevice(Device::Cpu()));
    for (const HostArray& out : last.outputs) {
      SY_ASSIGN_OR_RETURN(Tensor t, Tensor::FromBytes(out.shape, out.dtype, out.bytes.data(),
                                                      out.bytes.size(), *host));
      f.outputs.push_back(std::move(t));
    }
    return f;
  }
  // Each iteration's memory on the model's device (its caching allocator):
  // the first and the last are reported.
  SY_ASSIGN_OR_RETURN(BackendDevice * run_device, registry.GetDevice(r.device()));
  BackendDevice* const watched[] = {run_device};
  const RunProfiling::RunFn run = [&](absl::Span<const Tensor> in, const RunOptions& options) {
    return p.staged ? model.Run(in, options) : p.plan->Run(in, options);
  };
  for (int i = p.staged_first_ms >= 0 && r.warmup > 0 ? 1 : 0; i < total; ++i) {
    // The previous outputs go back to the allocator first, as a caller that
    // is done with them would do: the same shapes then take nothing new.
    f.outputs.clear();
    RunMemoryWatch memory_watch(watched);
    const auto begin = std::chrono::steady_clock::now();
    // Forward returns after the device has finished: the time is real.
    if (profiling != nullptr && i >= r.warmup) {
      SY_ASSIGN_OR_RETURN(f.outputs, profiling->Iteration(run, p.inputs, p.host_inputs.arrays,
                                                          i - r.warmup, registry));
    } else {
      SY_ASSIGN_OR_RETURN(f.outputs, run(p.inputs, RunOptions()));
    }
    const auto end = std::chrono::steady_clock::now();
    f.last_memory = memory_watch.Finish();
    if (f.first_memory.empty()) f.first_memory = f.last_memory;
    if (f.first_ms < 0) f.first_ms = Ms(begin, end);
    if (i >= r.warmup) f.times.push_back(Ms(begin, end));
  }
  return f;
}

// The outputs on the host, printed (class scores as a top-5, a detector's
// detections, every other output as a summary) and as the report's fields.
struct PrintedOutputs {
  std::vector<HostArray> host;
  nlohmann::json outputs = nlohmann::json::array();
  nlohmann::json top5 = nlohmann::json::array();
  nlohmann::json detections;  // null unless the model is a detector
  nlohmann::json non_finite = nlohmann::json::array();
};

absl::StatusOr<PrintedOutputs> PrintOutputs(absl::Span<const Tensor> outputs,
                                            const std::vector<std::string>& names,
                                            const std::vector<std::string>& labels) {
  PrintedOutputs printed;
  // Every output on the host in its dtype; NaN or Inf in any: a warning,
  // and a field in the report.
  for (size_t o = 0; o < outputs.size(); ++o) {
    SY_ASSIGN_OR_RETURN(std::vector<char> bytes, outputs[o].ToBytes());
    printed.host.emplace_back(outputs[o].shape(), outputs[o].dtype(), std::move(bytes));
    const HostArray& all = printed.host.back();
    const auto [nans, infs] = CountNonFinite(all);
    if (nans + infs > 0) {
      std::printf("warning: output %zu has %lld NaN and %lld Inf of %zu values; "
                  "its %s below is not meaningful\n",
                  o, static_cast<long long>(nans), static_cast<long long>(infs),
                  all.stored_elements(),
                  LooksLikeClassScores(all.shape, all.dtype) ? "top-5" : "summary");
      printed.non_finite.push_back({{"output", o}, {"nan", nans}, {"inf", infs}});
    }
  }
  // A detector's boxes, labels and scores are detections (printed after
  // the summaries), not class scores, whatever their shapes look like.
  const std::optional<DetectionOutputs> detections = FindDetections(printed.host, names);
  bool top5_done = false;
  for (size_t o = 0; o < printed.host.size(); ++o) {
    const HostArray& out = printed.host[o];
    const std::string name = o < names.size() ? names[o] : "";
    nlohmann::json entry = SummaryJson(out);
    entry["name"] = name.empty() ? absl::StrCat("output_", o) : name;
    const bool detection_part =
        detections.has_value() &&
        (o == detections->boxes || o == detections->labels || o == detections->scores);
    if (!detection_part && LooksLikeClassScores(out.shape, out.dtype)) {
      // The built-in models' one output keeps its line as it always was.
      if (name.empty() && printed.host.size() == 1) {
        std::printf("output %s\n", out.shape.ToString().c_str());
      } else {
        std::printf("output %s%s%s %s\n", name.c_str(), name.empty() ? "" : " ",
                    out.shape.ToString().c_str(), DTypeName(out.dtype).c_str());
      }
      nlohmann::json top5 = PrintTop5(out, labels);
      entry["top5"] = top5;
      if (!top5_done) printed.top5 = top5;
      top5_done = true;
    } else {
      std::printf("output %s\n", SummaryLine(name, out).c_str());
    }
    printed.outputs.push_back(std::move(entry));
  }
  if (detections.has_value()) {
    std::printf("%s", FormatDetections(printed.host, *detections, labels,
                                       absl::GetFlag(FLAGS_detections_shown))
                          .c_str());
    printed.detections = DetectionsJson(printed.host, *detections, labels);
  }
  return printed;
}

// The fed inputs as the report lists them.
nlohmann::json InputsJson(const Session& model, const HostInputs& host_inputs) {
  nlohmann::json inputs = nlohmann::json::array();
  for (size_t i = 0; i < host_inputs.arrays.size(); ++i) {
    const HostArray& a = host_inputs.arrays[i];
    nlohmann::json entry = {{"shape", a.shape.dims()},
                            {"dtype", DTypeName(a.dtype)},
                            {"source", host_inputs.sources[i]}};
    if (i < model.inputs().size()) {
      entry["name"] = model.inputs()[i].name;
      entry["declared"] = model.inputs()[i].ToString();
    }
    inputs.push_back(std::move(entry));
  }
  return inputs;
}

// The options of the backend the model ran on (cpu: threads, fusion), into
// the report.
absl::Status AddBackendOptions(const Device& device, BackendRegistry& registry,
                               nlohmann::json& report) {
  SY_ASSIGN_OR_RETURN(Backend * backend, registry.GetBackend(device.type()));
  for (const BackendOption& option : backend->Options()) {
    report["backend_options"][option.key] = option.value;
    int threads = 0;
    if (device.type() == "cpu" && option.key == "threads" &&
        absl::SimpleAtoi(option.value, &threads)) {
      report["cpu_threads"] = threads;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunCommand(BackendRegistry& registry) {
  const auto start = std::chrono::steady_clock::now();
  FileTransaction files;
  SY_ASSIGN_OR_RETURN(const RunRequest r, ReadRunRequest(registry, files));

  // The model (a model file brings its weights: its inputs are known only
  // once it is read), then its inputs, before any weights are initialised.
  SY_ASSIGN_OR_RETURN(std::unique_ptr<Session> model, Session::Open(r.model_name, registry));
  if (model->supports_staged_run()) {  // where Loop nodes run
    absl::Status limit =
        model->SetMaxLoopIterations(absl::GetFlag(FLAGS_max_loop_iterations));
    if (!limit.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--max-loop-iterations: ", limit.message()));
    }
  }
  // The build and machine, for every report.
  const nlohmann::json facts = {{"build", BuildInfoJson(registry)},
                                {"machine", MachineJson()}};
  if (ImagesRequested() && TakesOneImageAtItsOwnSize(model->inputs())) {
    return RunImagesAtTheirOwnSize(r, *model, registry, files, facts);
  }
  SY_ASSIGN_OR_RETURN(PreparedRun p, PrepareRun(r, *model, registry));

  // --output: one file, a comma-separated file per output, or a folder
  // (models/output_files.h); checked against the model's outputs before
  // anything runs.
  std::vector<std::string> output_paths;
  if (!r.output_flag.empty() && !ImagesRequested()) {
    absl::StatusOr<std::vector<std::string>> paths =
        OutputFilePaths(r.output_targets,
                        p.plan != nullptr ? p.plan->graph().outputs().size()
                                          : model->outputs().size(),
                        model->OutputNames());
    if (!paths.ok()) {
      return absl::Status(
          paths.status().code(),
          absl::StrCat("--output=", r.output_flag, ": ", paths.status().message()));
    }
    output_paths = *std::move(paths);
    for (const std::string& path : output_paths) {
      if (!files.HasOutput(path)) SY_RETURN_IF_ERROR(files.AddOutput(path, "--output"));
    }
  }

  // Samples per forward: dimension 0 of the first input, unless it is one
  // image [3, H, W] (runtime/samples_per_run.h).
  const Shape first_input = p.inputs.empty() ? Shape() : p.inputs[0].shape();
  const SamplesPerRun samples = CountSamplesPerRun(
      model->inputs().empty() ? nullptr : &model->inputs()[0], first_input);
  const int64_t batch = samples.count;
  if (PipelineRequested()) {
    return StreamBatches(r, *model, p, batch, registry, files, facts);
  }

  // --profile / --profile-summary: timed iterations also upload the inputs
  // and download the outputs, each node timed on the device clock.
  std::unique_ptr<RunProfiling> profiling = RunProfiling::FromFlags();
  SY_ASSIGN_OR_RETURN(Forwards f, RunForwards(r, *model, p, profiling.get(), registry));
  const Timing timing = Summarize(f.times);
  const double images_per_s = timing.median_ms > 0 ? batch * 1000.0 / timing.median_ms : 0;
  SY_ASSIGN_OR_RETURN(const PrintedOutputs printed,
                      PrintOutputs(f.outputs, model->OutputNames(), r.labels));

  const double setup_ms = Ms(start, p.compile_done);
  // With no warm-up the first forward is a timed one (a staged model's
  // first run is not: it ran before the loop).
  const bool first_is_timed = r.warmup == 0 && !p.staged;
  std::printf("forward: median %.2f ms, min %.2f ms, max %.2f ms over %d "
              "iterations (%d warmup); %.1f %s/s%s\n",
              timing.median_ms, timing.min_ms, timing.max_ms, r.iterations, r.warmup,
              images_per_s, samples.unit.c_str(),
              samples.reason.empty() ? "" : absl::StrCat(" (", samples.reason, ")").c_str());
  WarnOfSpread(timing.median_ms, timing.max_ms, r.iterations);
  std::printf("set-up: %.0f ms (weights %.0f ms, compile %.0f ms); first forward "
              "%.1f ms%s\n",
              setup_ms, Ms(start, p.weights_done), Ms(p.weights_done, p.compile_done),
              f.first_ms,
              p.staged         ? " (compiling its segments as it ran)"
              : first_is_timed ? " (also the first timed forward: --warmup=0)"
                               : "");
  if (!f.last_memory.empty()) {
    std::printf("memory: %s\n", MemoryLine(f.first_memory[0], f.last_memory[0]).c_str());
  }
  // Plain weights given back once the kernels held their own copies
  // (core/releasable_weights.h).
  const int64_t weights_given_back = ReleasableWeights::Global().stats().released_bytes;
  if (weights_given_back > 0) {
    std::printf("weights: %s of plain weights given back (the kernels hold their own "
                "copies; read again from the model file if needed)\n",
                FormatBytes(weights_given_back).c_str());
  }
  if (f.replica_summary.has_value()) std::printf("%s", f.replica_summary->Table().c_str());
  if (profiling != nullptr) {
    std::vector<std::string> input_shapes;
    for (const Tensor& t : p.inputs) input_shapes.push_back(t.shape().ToString());
    SY_RETURN_IF_ERROR(profiling->Finish(
        {{"model", r.model_name}, {"device", r.device().ToString()},
         {"input", absl::StrJoin(input_shapes, ", ")}}, files));
  }

  if (!output_paths.empty()) {
    SY_RETURN_IF_ERROR(StageOutputFiles(f.outputs, output_paths, files));
  }
  if (!r.report_path.empty()) {
    nlohmann::json report = {
        {"model", r.model_name},
        {"device", r.device().ToString()},
        {"batch", batch},
        {"input_shape", first_input.dims()},
        {"output_shape", printed.host.empty() ? std::vector<int64_t>()
                                              : printed.host.front().shape.dims()},
        {"inputs", InputsJson(*model, p.host_inputs)},
        {"outputs", printed.outputs},
        {"warmup", r.warmup},
        {"iterations", r.iterations},
        {"forward_ms", {{"median", timing.median_ms},
                        {"min", timing.min_ms},
                        {"max", timing.max_ms},
                        {"total", timing.total_ms}}},
        {"images_per_s", images_per_s},
        // From the command's start to this report: the set-up, the first
        // forward and the timed forwards are disjoint parts of it.
        {"elapsed_ms", Ms(start, std::chrono::steady_clock::now())},
        {"setup_ms", {{"total", setup_ms},
                      {"weights", Ms(start, p.weights_done)},
                      {"compile", Ms(p.weights_done, p.compile_done)},
                      {"precompile", p.precompile_ms},
                      {"first_forward", f.first_ms}}},
        {"first_forward_timed", first_is_timed},
        {"non_finite_outputs", printed.non_finite},
        {"memory", MemoryJson(f.first_memory, f.last_memory)},
        {"weights_given_back_bytes", weights_given_back},
        {"top5", printed.top5},
    };
    if (!printed.detections.is_null()) report["detections"] = printed.detections;
    if (f.replica_summary.has_value()) report["replicas"] = f.replica_summary->Json();
    for (const auto& [key, value] : facts.items()) report[key] = value;
    SY_RETURN_IF_ERROR(AddBackendOptions(r.device(), registry, report));
    SY_RETURN_IF_ERROR(files.Stage(r.report_path, report.dump(2) + "\n"));
  }
  // Every output together, only now that the whole run has succeeded.
  SY_RETURN_IF_ERROR(files.Commit());
  PrintTraceWritten(r);
  for (const std::string& path : output_paths) std::printf("wrote %s\n", path.c_str());
  if (!r.report_path.empty()) std::printf("wrote %s\n", r.report_path.c_str());
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace switchyard
