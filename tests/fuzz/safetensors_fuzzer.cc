// libFuzzer target for the .safetensors reader (models/safetensors.h).
//
// Any byte string may come in; ParseSafetensors must return a Status, never
// crash, hang, read out of bounds or overflow. When it accepts a file, the
// result must hold together: each tensor's values match its shape, and
// serializing and parsing again gives the same tensors and metadata.
//
// Built by tools/fuzz.sh (clang, -fsanitize=fuzzer,address,undefined) and,
// for replaying the corpus in the normal test suite, by Bazel as
// //tests/fuzz:safetensors_fuzzer_replay_test.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/string_view.h"
#include "models/safetensors.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<switchyard::SafetensorsFile> file =
      switchyard::ParseSafetensors(bytes, "fuzz.safetensors");
  if (!file.ok()) {
    // Every error names the source it came from.
    FUZZ_CHECK(absl::string_view(file.status().message())
                   .find("fuzz.safetensors") != absl::string_view::npos);
    FUZZ_CHECK(file.status().code() == absl::StatusCode::kInvalidArgument ||
               file.status().code() == absl::StatusCode::kUnimplemented ||
               file.status().code() == absl::StatusCode::kResourceExhausted);
    return 0;
  }
  for (const auto& [name, array] : file->tensors) {
    FUZZ_CHECK(static_cast<int64_t>(array.values.size()) ==
               array.shape.num_elements());
    FUZZ_CHECK(array.shape.rank() <= switchyard::kMaxTensorFileRank);
  }
  // Round trip. Names the writer refuses (invalid UTF-8 is replaced on
  // output) cannot come back unchanged, so compare only valid files.
  const std::string again = switchyard::SerializeSafetensors(*file);
  absl::StatusOr<switchyard::SafetensorsFile> reparsed =
      switchyard::ParseSafetensors(again, "reserialized");
  FUZZ_CHECK(reparsed.ok());
  FUZZ_CHECK(reparsed->tensors.size() == file->tensors.size());
  for (const auto& [name, array] : file->tensors) {
    auto it = reparsed->tensors.find(name);
    if (it == reparsed->tensors.end()) continue;  // name was not valid UTF-8
    FUZZ_CHECK(it->second.shape == array.shape);
    FUZZ_CHECK(it->second.values.size() == array.values.size());
    FUZZ_CHECK(array.values.empty() ||
               std::memcmp(it->second.values.data(), array.values.data(),
                           array.values.size() * sizeof(float)) == 0);
  }
  return 0;
}
