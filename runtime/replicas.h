#ifndef SWITCHYARD_RUNTIME_REPLICAS_H_
#define SWITCHYARD_RUNTIME_REPLICAS_H_

// Data-parallel replicas in one process (`run --replicas`, `bench
// --replicas`): one copy of a model per device, each batch split along
// dimension 0 as evenly as possible, the slices run concurrently (one host
// thread per replica), the outputs joined back in input order.
//
//   SY_ASSIGN_OR_RETURN(std::vector<Device> devices,
//                       ParseReplicaDevices("ref:0,ref:1", registry));
//   SY_ASSIGN_OR_RETURN(std::unique_ptr<ReplicaSet> replicas,
//       ReplicaSet::Create(devices, make_model, run_model, registry));
//   SY_ASSIGN_OR_RETURN(ReplicaRun run, replicas->Run(host_inputs));
//   run.outputs;   // every output, batch in dimension 0, in input order
//   run.busy_ms;   // per replica: upload + forward + download of its slice
//
// Each slice is computed exactly as a batch of its own size on that device:
// on backends whose per-sample results do not depend on the batch size (the
// reference backend) the joined outputs equal a one-device run bit for bit.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/backend_registry.h"
#include "core/device.h"
#include "core/tensor.h"
#include "models/host_array.h"
#include "models/module.h"
#include "nlohmann/json.hpp"

namespace switchyard {
namespace runtime {

// The devices of a --replicas value ("ref:0,ref:1"; "cpu" means "cpu:0"), in
// order. InvalidArgument for an empty list, a malformed name or a device named
// twice (two replicas on one device would only take turns); Unavailable,
// listing the devices there are, for a device that does not exist.
absl::StatusOr<std::vector<Device>> ParseReplicaDevices(absl::string_view flag,
                                                        BackendRegistry& registry);

// One slice of a batch: samples [offset, offset + count) of dimension 0.
struct BatchSlice {
  int64_t offset = 0;
  int64_t count = 0;
};
// `batch` split over `replicas` as evenly as possible, in order: the first
// batch % replicas slices get one sample more. Replicas beyond the batch get
// empty slices (count 0: idle).
std::vector<BatchSlice> SplitBatch(int64_t batch, int replicas);

// Samples [slice.offset, slice.offset + slice.count) of `array` along
// dimension 0 (rank >= 1), and the arrays joined along dimension 0 (same
// dtype and trailing dimensions: InvalidArgument naming `what` otherwise).
HostArray SliceRows(const HostArray& array, const BatchSlice& slice);
absl::StatusOr<HostArray> JoinRows(absl::Span<const HostArray> parts,
                                   absl::string_view what);

// One call of ReplicaSet::Run.
struct ReplicaRun {
  std::vector<HostArray> outputs;   // joined, in input order
  std::vector<int64_t> samples;     // per replica
  std::vector<double> busy_ms;      // per replica (0 when idle)
  double wall_ms = 0;               // from the split to the joined outputs
};

// One model per device; see the file comment.
class ReplicaSet {
 public:
  // Makes the replica for `device` (the index-th of the set); shared so
  // that a caller may lend a model it keeps (a no-op deleter).
  using MakeFn = std::function<absl::StatusOr<std::shared_ptr<Module>>(
      const Device& device, int index)>;
  // The replicas are made one after another (Module::To and weight loading
  // must not overlap on one registry's devices); errors name the device.
  // Each runs with Module::Run, as every model does (a model file's chain
  // of plans too).
  static absl::StatusOr<std::unique_ptr<ReplicaSet>> Create(
      std::vector<Device> devices, const MakeFn& make, BackendRegistry& registry);

  // Splits every input along dimension 0 (all must have rank >= 1 and one
  // batch size), runs the slices concurrently and joins the outputs, each of
  // which must have the slice's batch in dimension 0 (FailedPrecondition
  // otherwise: such a model cannot be split). The first failing replica's
  // error, prefixed with its device, after every thread has finished.
  absl::StatusOr<ReplicaRun> Run(absl::Span<const HostArray> inputs);

  const std::vector<Device>& devices() const { return devices_; }
  Module& replica(int index) { return *models_[index]; }

 private:
  ReplicaSet() = default;

  std::vector<Device> devices_;
  std::vector<BackendDevice*> backend_devices_;
  std::vector<std::shared_ptr<Module>> models_;
};

// What the replicas did over a number of runs of one batch size: the
// per-device table `run` and `bench` print, and its JSON.
class ReplicaSummary {
 public:
  explicit ReplicaSummary(std::vector<Device> devices);
  void Add(const ReplicaRun& run);  // one timed run

  // "device  samples/run  busy ms/run  busy share  images/s" per replica and a
  // total row. busy share = the replica's busy time / wall time; a device's
  // images/s = its samples / wall time, so the rows add up to the total.
  std::string Table() const;
  nlohmann::json Json() const;
  int runs() const { return runs_; }

 private:
  std::vector<Device> devices_;
  std::vector<int64_t> samples_;   // per replica, summed over runs
  std::vector<double> busy_ms_;    // per replica, summed over runs
  std::vector<int64_t> per_run_;   // per replica, of the last run
  double wall_ms_ = 0;
  int runs_ = 0;
};

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_REPLICAS_H_
