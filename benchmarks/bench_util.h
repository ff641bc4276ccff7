#ifndef SWITCHYARD_BENCHMARKS_BENCH_UTIL_H_
#define SWITCHYARD_BENCHMARKS_BENCH_UTIL_H_

// What the Google Benchmark binaries of benchmarks/ share: their own flags
// (taken out of argv before Google Benchmark parses it), random inputs, and
// the list of devices to register cases for.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "benchmark/benchmark.h"
#include "core/backend_registry.h"
#include "core/device_list.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "core/tensor.h"

namespace switchyard {
namespace benchmarks {

// Takes the flags named in `names` ("--name=value" or "--name value") out of
// argv and returns them by name; everything else stays, in order, for
// benchmark::Initialize.
absl::StatusOr<std::map<std::string, std::string>> ExtractFlags(
    int* argc, char** argv, absl::Span<const char* const> names);

// "1,8,32": positive integers; InvalidArgument naming --flag otherwise.
absl::StatusOr<std::vector<int64_t>> ParsePositiveList(absl::string_view flag,
                                                       absl::string_view text);
absl::StatusOr<int64_t> ParseInt(absl::string_view flag, absl::string_view text,
                                 int64_t min);

// A seeded N(0, 1) tensor on `device` (uninitialized for non-float types:
// values do not change the speed of a dense kernel).
absl::StatusOr<Tensor> RandomTensor(const Shape& shape, DType dtype,
                                    const Device& device, uint64_t seed,
                                    BackendRegistry& registry);

// The devices to register cases for: the comma-separated `names` (empty:
// every device of every registered backend). Unavailable ones are kept, with
// the reason, so that their cases are registered and skip with it.
absl::StatusOr<std::vector<DeviceChoice>> BenchmarkDevices(
    BackendRegistry& registry, const std::string& names);

// The case's name for a device choice ("cpu:0", or "cuda" without devices).
inline const std::string& CaseDevice(const DeviceChoice& d) { return d.name; }

// Ends a case with the status as its error (the case is reported, not timed).
void SkipWithStatus(benchmark::State& state, const absl::Status& status);

}  // namespace benchmarks
}  // namespace switchyard

#endif  // SWITCHYARD_BENCHMARKS_BENCH_UTIL_H_
