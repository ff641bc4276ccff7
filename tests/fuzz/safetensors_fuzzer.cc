// libFuzzer target for the .safetensors reader (models/safetensors.h).
//
// Any byte string may come in; ParseSafetensors must return a Status, never
// crash, hang, read out of bounds or overflow. When it accepts a file, the
// result must hold together: each tensor's bytes match its shape and dtype,
// and serializing and parsing again gives the same tensors (dtype and bytes)
// and metadata.
//
// Built by tools/fuzz.sh (clang, -fsanitize=fuzzer,address,undefined) and,
// for replaying the corpus in the normal test suite, by Bazel as
// //tests/fuzz:safetensors_fuzzer_replay_test.

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "models/safetensors.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

bool SameFile(const switchyard::SafetensorsFile& a,
              const switchyard::SafetensorsFile& b) {
  if (a.metadata != b.metadata || a.tensors.size() != b.tensors.size()) {
    return false;
  }
  for (const auto& [name, array] : a.tensors) {
    auto it = b.tensors.find(name);
    if (it == b.tensors.end() || it->second.shape != array.shape ||
        it->second.dtype != array.dtype || it->second.bytes != array.bytes) {
      return false;
    }
  }
  return true;
}

// Writes `bytes` to an anonymous in-memory file and reads it back through
// ReadSafetensors, which maps it.
bool ReadMatchesParse(absl::string_view bytes,
                      const switchyard::SafetensorsFile& parsed) {
  const int fd = memfd_create("fuzz.safetensors", MFD_CLOEXEC);
  FUZZ_CHECK(fd >= 0);
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    FUZZ_CHECK(n > 0);
    written += static_cast<size_t>(n);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  absl::StatusOr<switchyard::SafetensorsFile> read =
      switchyard::ReadSafetensors(path);
  close(fd);
  return read.ok() && SameFile(*read, parsed);
}

}  // namespace

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
    FUZZ_CHECK(array.bytes.size() ==
               static_cast<uint64_t>(array.shape.num_elements()) *
                   switchyard::DTypeSize(array.dtype));
    FUZZ_CHECK(array.shape.rank() <= switchyard::kMaxTensorFileRank);
  }
  // The file path (ReadSafetensors: memory-mapped, copied piecewise with
  // the mapped pages released) must read the same bytes the same way.
  FUZZ_CHECK(ReadMatchesParse(bytes, *file));

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
    FUZZ_CHECK(it->second.dtype == array.dtype);
    FUZZ_CHECK(it->second.bytes == array.bytes);
  }
  return 0;
}
