#ifndef SWITCHYARD_RUNTIME_BENCH_H_
#define SWITCHYARD_RUNTIME_BENCH_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/backend_registry.h"
#include "core/compile.h"
#include "core/device.h"
#include "core/shape.h"
#include "models/module.h"
#include "nlohmann/json.hpp"

namespace switchyard {
namespace runtime {

// What `switchyard bench` measures: a model made on a device, and its input
// shape per batch size. ZooModel gives the model zoo's; tests give a tiny one.
struct BenchModel {
  std::string name;
  // The model with its parameters on `device`.
  std::function<absl::StatusOr<std::unique_ptr<Module>>(const Device& device,
                                                        BackendRegistry& registry)>
      create;
  // Its inputs per batch size (device ignored: each row's own): any number,
  // any dtypes. When unset, one float32 input of `input_shape(batch)`.
  std::function<absl::StatusOr<std::vector<InputSpec>>(int64_t batch)> inputs;
  std::function<absl::StatusOr<Shape>(int64_t batch)> input_shape;
};

// A model of the zoo (models/model_zoo.h) with its seeded initialisation.
// `input_shape` (--input_shape) replaces the model's own, with dimension 0
// set to each batch size.
BenchModel ZooModel(const std::string& name, uint64_t seed,
                    std::optional<Shape> input_shape = std::nullopt);

// A model file (runtime::IsModelFile) loaded on each device, with the
// inputs it declares (any number and dtypes) at each batch size: dimension 0
// of every input, the rest from `shapes` (--input_shape's values: "name:DIMS"
// or "DIMS") and the declarations. Seeded inputs as ZooModel's.
absl::StatusOr<BenchModel> FileModel(const std::string& path, uint64_t seed,
                                     const std::vector<std::string>& shapes,
                                     BackendRegistry& registry);

// `model` made with `placement` on every device (bench's default is auto:
// nodes a device has no kernel for fall back to the CPU).
BenchModel WithPlacement(BenchModel model, PlacementPolicy placement);

struct BenchOptions {
  // Device names ("cpu", "cuda:1"); empty: every device the registry knows
  // of, and one unavailable entry (with the reason) per type without devices.
  std::vector<std::string> devices;
  std::vector<int64_t> batches = {1, 8};
  int warmup = 2;       // untimed iterations per device and batch
  int iterations = 10;  // timed iterations per device and batch
  uint64_t seed = 0;    // of the random input
};

// Summary of one measured quantity, in milliseconds. p95 interpolates
// linearly between order statistics (numpy's default); with 10 samples it
// lies between the two slowest.
struct BenchStats {
  double median_ms = 0, p95_ms = 0, min_ms = 0, max_ms = 0, mean_ms = 0;
  std::vector<double> samples_ms;
};
BenchStats ComputeBenchStats(std::vector<double> samples_ms);

// One device and batch size. Each timed iteration: copy the input from host
// memory to the device (h2d: every input), run the compiled plan (forward; Run
// synchronizes the device), copy the output back (d2h). h2d, forward and d2h
// are differences of marks on the device's own clock (DeviceClock: CUDA
// events on a GPU); end_to_end is host wall time from the start of the
// upload until the result is in host memory.
struct BenchRow {
  std::string device;
  int64_t batch = 0;
  BenchStats forward, h2d, d2h, end_to_end;
  double images_per_s = 0;  // batch / end_to_end median
  // Against the CPU (cpu:0) at the same batch, when it was measured too:
  // CPU median / this median, above 1 means faster than the CPU.
  std::optional<double> speedup_forward, speedup_end_to_end;
  std::string error;  // set when this device failed at this batch size
};

struct BenchDeviceEntry {
  std::string device;  // "cpu:0", or a bare type ("cuda") without devices
  bool available = false;
  std::string name;    // DeviceInfo name, for available devices
  std::vector<std::pair<std::string, std::string>> properties;
  std::string reason;  // why not available (the registry's message)
};

struct BenchReport {
  std::string model;
  BenchOptions options;
  std::vector<BenchDeviceEntry> devices;
  std::vector<BenchRow> rows;
  std::string baseline;  // "cpu:0" when measured, else empty
  // Shown in every output: threads, command, date, ... (ordered).
  std::vector<std::pair<std::string, std::string>> context;
};

// Measures `model` on every chosen device and batch size. Never skips a
// device silently: unavailable ones are listed with the reason, and a device
// that fails gets its error in its rows. InvalidArgument for bad options or a
// malformed device name. `progress` (optional) gets one line per device and
// batch before it is measured.
absl::StatusOr<BenchReport> RunBench(
    const BenchModel& model, const BenchOptions& options,
    BackendRegistry& registry,
    const std::function<void(const std::string&)>& progress = nullptr);

// The JSON that `switchyard bench --json` writes and benchmarks/compare.py
// reads (benchmarks/pytorch_peer.py writes the same schema):
//   {"schema": "switchyard.bench/1", "framework": "switchyard", "model": ..,
//    "warmup": .., "iterations": .., "batches": [..], "context": {..},
//    "devices": [{"device", "available", "name", "properties", "reason"}],
//    "results": [{"device", "batch", "forward_ms": {median, p95, min, max,
//                 mean, samples}, "h2d_ms": {..}, "d2h_ms": {..},
//                 "end_to_end_ms": {..}, "images_per_s",
//                 "speedup_vs_cpu": {"forward", "end_to_end"} or null,
//                 "error" (only on failure)}]}
nlohmann::json BenchReportJson(const BenchReport& report);
// The table printed on the terminal.
std::string BenchReportTable(const BenchReport& report);

// A warning when `row`'s end-to-end p95 is far above its median (at least
// 1.5x, over 5 or more samples): some iterations waited for cores that other
// work held (`load` is the load average, `cores` the machine's); "" when
// the tail is close or the row has no numbers.
std::string TailWarning(const BenchRow& row, double load, unsigned cores);
// A Markdown section with the same figures.
std::string BenchReportMarkdown(const BenchReport& report);

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_BENCH_H_
