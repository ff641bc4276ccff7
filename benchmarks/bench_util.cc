#include "benchmarks/bench_util.h"

#include <random>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "models/module.h"

namespace switchyard {
namespace benchmarks {

absl::StatusOr<std::map<std::string, std::string>> ExtractFlags(
    int* argc, char** argv, absl::Span<const char* const> names) {
  std::map<std::string, std::string> values;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    absl::string_view arg = argv[i];
    bool ours = false;
    for (const char* name : names) {
      const std::string prefix = absl::StrCat("--", name);
      if (arg == prefix) {
        if (i + 1 >= *argc) {
          return absl::InvalidArgumentError(absl::StrCat(prefix, " needs a value"));
        }
        values[name] = argv[++i];
        ours = true;
        break;
      }
      if (absl::StartsWith(arg, absl::StrCat(prefix, "="))) {
        values[name] = std::string(arg.substr(prefix.size() + 1));
        ours = true;
        break;
      }
    }
    if (!ours) argv[kept++] = argv[i];
  }
  *argc = kept;
  argv[kept] = nullptr;
  return values;
}

absl::StatusOr<std::vector<int64_t>> ParsePositiveList(absl::string_view flag,
                                                       absl::string_view text) {
  std::vector<int64_t> values;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(part, &v) || v < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--", flag, " wants positive integers separated by commas, got '",
          text, "'"));
    }
    values.push_back(v);
  }
  if (values.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, " is empty"));
  }
  return values;
}

absl::StatusOr<int64_t> ParseInt(absl::string_view flag, absl::string_view text,
                                 int64_t min) {
  int64_t v = 0;
  if (!absl::SimpleAtoi(text, &v) || v < min) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--", flag, " wants an integer >= ", min, ", got '", text, "'"));
  }
  return v;
}

absl::StatusOr<Tensor> RandomTensor(const Shape& shape, DType dtype,
                                    const Device& device, uint64_t seed,
                                    BackendRegistry& registry) {
  if (dtype != DType::kFloat32) return Tensor::Empty(shape, dtype, device, registry);
  std::mt19937_64 rng(seed);
  std::vector<float> values(shape.num_elements());
  for (float& v : values) v = NormalSample(rng, 1.0f);
  return Tensor::FromVector(shape, values, device, registry);
}

absl::StatusOr<std::vector<DeviceChoice>> BenchmarkDevices(
    BackendRegistry& registry, const std::string& names) {
  if (names.empty()) return AllDevices(registry);
  std::vector<std::string> list = absl::StrSplit(names, ',', absl::SkipEmpty());
  return ChooseDevices(registry, list);
}

void SkipWithStatus(benchmark::State& state, const absl::Status& status) {
  state.SkipWithError(std::string(status.ToString()).c_str());
}

}  // namespace benchmarks
}  // namespace switchyard
