// libFuzzer target for the .npy reader (models/npy.h).
//
// Any byte string may come in; ParseNpy must return a Status, never crash,
// hang or read out of bounds. An accepted array has as many bytes as its
// shape and dtype say, and SerializeNpy + ParseNpy gives it back unchanged
// (same dtype, same bytes).
//
// Built by tools/fuzz.sh (libFuzzer) and by Bazel as
// //tests/fuzz:npy_fuzzer_replay_test (corpus replay).

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "core/dtype.h"
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
  FUZZ_CHECK(array->bytes.size() ==
             static_cast<uint64_t>(array->shape.num_elements()) *
                 switchyard::DTypeSize(array->dtype));
  FUZZ_CHECK(array->dtype != switchyard::DType::kBFloat16);
  FUZZ_CHECK(array->shape.rank() <= switchyard::kMaxTensorFileRank);
  const std::string again = switchyard::SerializeNpy(*array);
  absl::StatusOr<switchyard::HostArray> reparsed =
      switchyard::ParseNpy(again, "reserialized");
  FUZZ_CHECK(reparsed.ok());
  FUZZ_CHECK(reparsed->shape == array->shape);
  FUZZ_CHECK(reparsed->dtype == array->dtype);
  FUZZ_CHECK(reparsed->bytes == array->bytes);
  return 0;
}
