// libFuzzer target for the .npy reader (models/npy.h).
//
// Any byte string may come in; ParseNpy must return a Status, never crash,
// hang or read out of bounds. An accepted array has as many values as its
// shape says, and SerializeNpy + ParseNpy gives it back unchanged.
//
// Built by tools/fuzz.sh (libFuzzer) and by Bazel as
// //tests/fuzz:npy_fuzzer_replay_test (corpus replay).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/string_view.h"
#include "models/npy.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<switchyard::HostArray> array =
      switchyard::ParseNpy(bytes, "fuzz.npy");
  if (!array.ok()) {
    FUZZ_CHECK(absl::string_view(array.status().message()).find("fuzz.npy") !=
               absl::string_view::npos);
    FUZZ_CHECK(array.status().code() == absl::StatusCode::kInvalidArgument ||
               array.status().code() == absl::StatusCode::kUnimplemented);
    return 0;
  }
  FUZZ_CHECK(static_cast<int64_t>(array->values.size()) ==
             array->shape.num_elements());
  FUZZ_CHECK(array->shape.rank() <= switchyard::kMaxTensorFileRank);
  const std::string again = switchyard::SerializeNpy(*array);
  absl::StatusOr<switchyard::HostArray> reparsed =
      switchyard::ParseNpy(again, "reserialized");
  FUZZ_CHECK(reparsed.ok());
  FUZZ_CHECK(reparsed->shape == array->shape);
  FUZZ_CHECK(reparsed->values.size() == array->values.size());
  FUZZ_CHECK(array->values.empty() ||
             std::memcmp(reparsed->values.data(), array->values.data(),
                         array->values.size() * sizeof(float)) == 0);
  return 0;
}
