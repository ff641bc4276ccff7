#include "runtime/replicas.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/status_macros.h"
#include "runtime/elapsed.h"

namespace switchyard {
namespace runtime {
namespace {

absl::Status WithDevice(const Device& device, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat("replica on ", device.ToString(), ": ",
                                   status.message()));
}

// Bytes of one row (one sample along dimension 0) of `array`.
size_t RowBytes(const HostArray& array) {
  const int64_t rows = array.shape.dim(0);
  return rows == 0 ? 0 : array.bytes.size() / static_cast<size_t>(rows);
}

}  // namespace

absl::StatusOr<std::vector<Device>> ParseReplicaDevices(absl::string_view flag,
                                                        BackendRegistry& registry) {
  std::vector<Device> devices;
  for (absl::string_view name : absl::StrSplit(flag, ',', absl::SkipEmpty())) {
    absl::StatusOr<Device> device = Device::Parse(name);
    if (!device.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--replicas=", flag, ": '", name, "': ", device.status().message()));
    }
    for (const Device& earlier : devices) {
      if (earlier == *device) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--replicas=", flag, ": ", device->ToString(),
            " is named twice; one replica per device (two on one device would "
            "only take turns): name each device once, e.g. --replicas=ref:0,ref:1"));
      }
    }
    absl::StatusOr<BackendDevice*> found = registry.GetDevice(*device);
    if (!found.ok()) {
      std::vector<std::string> available;
      for (const Device& d : registry.AvailableDevices()) available.push_back(d.ToString());
      return absl::UnavailableError(absl::StrCat(
          "--replicas=", flag, ": ", device->ToString(), " is not available: ",
          found.status().message(), "; devices here: ", absl::StrJoin(available, ", "),
          " (`switchyard devices` lists them; ref devices come with "
          "--plugin=libswitchyard_ref_plugin.so and SWITCHYARD_REF_DEVICES=N)"));
    }
    devices.push_back(*device);
  }
  if (devices.empty()) {
    return absl::InvalidArgumentError(
        "--replicas is empty: name one device per replica, e.g. --replicas=ref:0,ref:1");
  }
  return devices;
}

std::vector<BatchSlice> SplitBatch(int64_t batch, int replicas) {
  std::vector<BatchSlice> slices;
  if (replicas < 1) return slices;
  const int64_t base = batch / replicas, extra = batch % replicas;
  int64_t offset = 0;
  for (int r = 0; r < replicas; ++r) {
    const int64_t count = base + (r < extra ? 1 : 0);
    slices.push_back({offset, count});
    offset += count;
  }
  return slices;
}

HostArray SliceRows(const HostArray& array, const BatchSlice& slice) {
  std::vector<int64_t> dims = array.shape.dims();
  dims[0] = slice.count;
  const size_t row = RowBytes(array);
  const char* begin = array.bytes.data() + slice.offset * row;
  return HostArray(Shape(dims), array.dtype,
                   std::vector<char>(begin, begin + slice.count * row));
}

absl::StatusOr<HostArray> JoinRows(absl::Span<const HostArray> parts,
                                   absl::string_view what) {
  if (parts.empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": nothing to join"));
  const HostArray& first = parts[0];
  std::vector<int64_t> dims = first.shape.dims();
  if (dims.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, " is a scalar: replicas join outputs along dimension 0 (the batch)"));
  }
  int64_t rows = 0;
  size_t bytes = 0;
  for (const HostArray& part : parts) {
    std::vector<int64_t> d = part.shape.dims();
    if (part.dtype != first.dtype || d.size() != dims.size() ||
        !std::equal(d.begin() + 1, d.end(), dims.begin() + 1)) {
      return absl::FailedPreconditionError(absl::StrCat(
          what, ": the replicas' slices differ beyond dimension 0 (",
          first.shape.ToString(), " ", DTypeName(first.dtype), " and ",
          part.shape.ToString(), " ", DTypeName(part.dtype),
          "), so they cannot be joined into one batch"));
    }
    rows += d[0];
    bytes += part.bytes.size();
  }
  dims[0] = rows;
  std::vector<char> joined;
  joined.reserve(bytes);
  for (const HostArray& part : parts) {
    joined.insert(joined.end(), part.bytes.begin(), part.bytes.end());
  }
  return HostArray(Shape(dims), first.dtype, std::move(joined));
}

absl::StatusOr<std::unique_ptr<ReplicaSet>> ReplicaSet::Create(
    std::vector<Device> devices, const MakeFn& make, BackendRegistry& registry) {
  std::unique_ptr<ReplicaSet> set(new ReplicaSet());
  for (size_t i = 0; i < devices.size(); ++i) {
    absl::StatusOr<BackendDevice*> device = registry.GetDevice(devices[i]);
    if (!device.ok()) return WithDevice(devices[i], device.status());
    absl::StatusOr<std::shared_ptr<Module>> model = make(devices[i], static_cast<int>(i));
    if (!model.ok()) return WithDevice(devices[i], model.status());
    set->backend_devices_.push_back(*device);
    set->models_.push_back(*std::move(model));
  }
  set->devices_ = std::move(devices);
  return set;
}

absl::StatusOr<ReplicaRun> ReplicaSet::Run(absl::Span<const HostArray> inputs) {
  if (inputs.empty()) {
    return absl::InvalidArgumentError("replicas: the model has no inputs to split");
  }
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k].shape.rank() < 1 || inputs[k].shape.dim(0) != inputs[0].shape.dim(0) ||
        inputs[0].shape.rank() < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--replicas splits every input along dimension 0 (the batch), but input ", k,
          " is ", inputs[k].shape.ToString(), " and input 0 ", inputs[0].shape.ToString(),
          ": every input needs the same batch size in dimension 0; run on one --device"));
    }
  }
  if (inputs[0].shape.dim(0) == 0) {
    // No replica would run, so there would be no outputs to join.
    return absl::InvalidArgumentError(absl::StrCat(
        "replicas split a batch along dimension 0, but input 0 is ",
        inputs[0].shape.ToString(), ": give at least one sample"));
  }
  const int n = static_cast<int>(models_.size());
  const std::vector<BatchSlice> slices = SplitBatch(inputs[0].shape.dim(0), n);
  std::vector<absl::Status> status(n);
  std::vector<std::vector<HostArray>> outputs(n);
  ReplicaRun result;
  result.samples.resize(n);
  result.busy_ms.assign(n, 0.0);
  auto work = [&](int r) {
    const Clock::time_point begin = Clock::now();
    status[r] = [&]() -> absl::Status {
      std::vector<Tensor> on_device;
      for (const HostArray& input : inputs) {
        HostArray slice = SliceRows(input, slices[r]);
        SY_ASSIGN_OR_RETURN(Tensor t, Tensor::FromBytes(slice.shape, slice.dtype,
                                                        slice.bytes.data(),
                                                        slice.bytes.size(),
                                                        *backend_devices_[r]));
        on_device.push_back(std::move(t));
      }
      SY_ASSIGN_OR_RETURN(std::vector<Tensor> out,
                          models_[r]->Run(on_device));
      for (size_t o = 0; o < out.size(); ++o) {
        const Shape& shape = out[o].shape();
        if (shape.rank() < 1 || shape.dim(0) != slices[r].count) {
          return absl::FailedPreconditionError(absl::StrCat(
              "output ", o, " is ", shape.ToString(), " for a slice of ", slices[r].count,
              " samples: replicas join outputs along dimension 0, so each output "
              "needs the batch there; run this model on one --device"));
        }
        SY_ASSIGN_OR_RETURN(std::vector<char> bytes, out[o].ToBytes());
        outputs[r].emplace_back(shape, out[o].dtype(), std::move(bytes));
      }
      return absl::OkStatus();
    }();
    result.busy_ms[r] = Ms(begin, Clock::now());
  };
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    result.samples[r] = slices[r].count;
    if (slices[r].count > 0) threads.emplace_back(work, r);
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < n; ++r) {
    if (!status[r].ok()) return WithDevice(devices_[r], status[r]);
  }
  // Joined in replica order, which is input order.
  size_t num_outputs = 0;
  for (int r = 0; r < n; ++r) {
    if (slices[r].count > 0) {
      num_outputs = outputs[r].size();
      break;
    }
  }
  for (size_t o = 0; o < num_outputs; ++o) {
    std::vector<HostArray> parts;
    for (int r = 0; r < n; ++r) {
      if (slices[r].count == 0) continue;
      if (outputs[r].size() != num_outputs) {
        return absl::InternalError(absl::StrCat(
            "replica on ", devices_[r].ToString(), " returned ", outputs[r].size(),
            " outputs, another ", num_outputs));
      }
      parts.push_back(std::move(outputs[r][o]));
    }
    SY_ASSIGN_OR_RETURN(HostArray joined, JoinRows(parts, absl::StrCat("output ", o)));
    result.outputs.push_back(std::move(joined));
  }
  result.wall_ms = Ms(start, Clock::now());
  return result;
}

ReplicaSummary::ReplicaSummary(std::vector<Device> devices)
    : devices_(std::move(devices)),
      samples_(devices_.size(), 0),
      busy_ms_(devices_.size(), 0.0),
      per_run_(devices_.size(), 0) {}

void ReplicaSummary::Add(const ReplicaRun& run) {
  for (size_t r = 0; r < devices_.size() && r < run.samples.size(); ++r) {
    samples_[r] += run.samples[r];
    busy_ms_[r] += run.busy_ms[r];
    per_run_[r] = run.samples[r];
  }
  wall_ms_ += run.wall_ms;
  ++runs_;
}

std::string ReplicaSummary::Table() const {
  const double wall_s = wall_ms_ / 1e3;
  const int runs = runs_ > 0 ? runs_ : 1;
  std::vector<std::vector<std::string>> rows = {
      {"device", "samples/run", "busy ms/run", "busy share", "images/s"}};
  int64_t total = 0, total_per_run = 0;
  bool idle = false;
  for (size_t r = 0; r < devices_.size(); ++r) {
    total += samples_[r];
    total_per_run += per_run_[r];
    idle = idle || per_run_[r] == 0;
    rows.push_back({devices_[r].ToString(), absl::StrCat(per_run_[r]),
                    absl::StrFormat("%.1f", busy_ms_[r] / runs),
                    absl::StrFormat("%.1f%%", wall_ms_ > 0 ? 100 * busy_ms_[r] / wall_ms_ : 0),
                    absl::StrFormat("%.2f", wall_s > 0 ? samples_[r] / wall_s : 0)});
  }
  rows.push_back({"total", absl::StrCat(total_per_run),
                  absl::StrFormat("%.1f wall", wall_ms_ / runs), "",
                  absl::StrFormat("%.2f", wall_s > 0 ? total / wall_s : 0)});
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out = absl::StrFormat(
      "replicas: %d device%s, mean over %d run%s; busy = upload + forward + "
      "download of the device's slice; busy share = busy / wall; images/s = "
      "samples / wall\n",
      devices_.size(), devices_.size() == 1 ? "" : "s", runs_, runs_ == 1 ? "" : "s");
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      absl::StrAppendFormat(&line, c == 0 ? "  %-*s" : "  %*s", width[c], row[c]);
    }
    absl::StrAppend(&out, line, "\n");
  }
  if (idle) {
    absl::StrAppend(&out, "  (a device with 0 samples/run was idle: the batch is "
                          "smaller than the number of replicas)\n");
  }
  return out;
}

nlohmann::json ReplicaSummary::Json() const {
  const double wall_s = wall_ms_ / 1e3;
  const int runs = runs_ > 0 ? runs_ : 1;
  nlohmann::json devices = nlohmann::json::array();
  int64_t total = 0;
  for (size_t r = 0; r < devices_.size(); ++r) {
    total += samples_[r];
    devices.push_back({{"device", devices_[r].ToString()},
                       {"samples_per_run", per_run_[r]},
                       {"busy_ms_per_run", busy_ms_[r] / runs},
                       {"busy_share", wall_ms_ > 0 ? busy_ms_[r] / wall_ms_ : 0.0},
                       {"images_per_s", wall_s > 0 ? samples_[r] / wall_s : 0.0}});
  }
  return {{"runs", runs_},
          {"wall_ms_per_run", wall_ms_ / runs},
          {"images_per_s", wall_s > 0 ? total / wall_s : 0.0},
          {"devices", devices}};
}

}  // namespace runtime
}  // namespace switchyard
