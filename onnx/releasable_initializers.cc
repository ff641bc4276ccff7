#include "onnx/releasable_initializers.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/releasable_weights.h"
#include "models/file_io.h"
#include "onnx/raw_data_ranges.h"

namespace switchyard {
namespace onnx_import {
namespace {

// A checksum of `bytes` (four independent 64-bit lanes, so that it runs
// near memory speed): it tells a changed file from the one loaded, not an
// adversary's forgery.
uint64_t Checksum(const char* bytes, size_t size) {
  uint64_t lane[4] = {0x9E3779B97F4A7C15ull, 0xC2B2AE3D27D4EB4Full, 0x165667B19E3779F9ull,
                      0x27D4EB2F165667C5ull};
  size_t i = 0;
  for (; i + 32 <= size; i += 32) {
    for (int l = 0; l < 4; ++l) {
      uint64_t word;
      std::memcpy(&word, bytes + i + 8 * l, 8);
      lane[l] = (lane[l] ^ word) * 0x100000001B3ull;
      lane[l] ^= lane[l] >> 29;
    }
  }
  uint64_t h = size;
  for (; i < size; ++i) h = (h ^ static_cast<uint8_t>(bytes[i])) * 0x100000001B3ull;
  for (uint64_t l : lane) h = (h ^ l) * 0x9E3779B97F4A7C15ull;
  return h;
}

// The model file, open for reading weights back (a file renamed over it
// later does not change what this reads; one written in place does, and the
// checksum says so).
struct ModelFile {
  int fd = -1;
  std::string path;
  ~ModelFile() {
    if (fd >= 0) close(fd);
  }
};

absl::Status ReadBack(const ModelFile& file, const ByteRange& range, uint64_t checksum,
                      const std::string& name, void* dst, size_t bytes) {
  if (bytes != range.size) {
    return absl::InternalError(absl::StrCat("initializer '", name, "': ", bytes,
                                            " bytes asked for, ", range.size, " registered"));
  }
  char* out = static_cast<char*>(dst);
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n = pread(file.fd, out + done, bytes - done,
                            static_cast<off_t>(range.offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return absl::DataLossError(absl::StrCat(
          file.path, ": reading initializer '", name, "' back from the model file failed (",
          n < 0 ? std::strerror(errno) : "the file is shorter than when it was loaded",
          "); load the model again"));
    }
    done += static_cast<size_t>(n);
  }
  if (Checksum(out, bytes) != checksum) {
    return absl::DataLossError(absl::StrCat(
        file.path, ": initializer '", name, "' differs from when the model was loaded (the "
        "file was changed in place); load the model again"));
  }
  return absl::OkStatus();
}

}  // namespace

int RegisterReleasableInitializers(
    const std::string& path, const std::vector<std::pair<std::string, const Tensor*>>& parameters) {
  std::map<std::string, const Tensor*> by_name;
  for (const auto& [name, tensor] : parameters) {
    if (tensor != nullptr && tensor->defined() && tensor->dtype() == DType::kFloat32 &&
        tensor->device().type() == "cpu" && tensor->size_bytes() >= ReleasableWeights::kMinBytes) {
      by_name[name] = tensor;
    }
  }
  if (by_name.empty()) return 0;
  auto file = std::make_shared<ModelFile>();
  file->path = path;
  file->fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (file->fd < 0 || fstat(file->fd, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  absl::StatusOr<std::unique_ptr<file_io_internal::MappedFile>> mapped =
      file_io_internal::MappedFile::Open(path);
  if (!mapped.ok()) return 0;
  const absl::string_view bytes = (*mapped)->bytes();
  int registered = 0;
  for (const InitializerBytes& init : InitializerRawDataRanges(bytes)) {
    auto it = by_name.find(init.name);
    if (it == by_name.end() || !init.raw_data.has_value()) continue;
    const Tensor& tensor = *it->second;
    const ByteRange range = *init.raw_data;
    const char* values = static_cast<const char*>(tensor.buffer()->data());
    // Exactly the file's bytes (a name given twice, a dtype converted or a
    // rewrite at load would differ): anything else keeps its memory.
    const bool same = range.size == tensor.size_bytes() &&
                      std::memcmp(values, bytes.data() + range.offset, range.size) == 0;
    // The file's pages just read go back at once: the comparison must not
    // hold a second copy of the weights.
    (*mapped)->Release(bytes.data() + range.offset, range.size);
    if (!same) continue;
    const uint64_t checksum = Checksum(values, range.size);
    const std::string name = init.name;
    ReleasableWeights::Global().Register(
        tensor, [file, range, checksum, name](void* dst, size_t n) {
          return ReadBack(*file, range, checksum, name, dst, n);
        });
    by_name.erase(it);  // a second initializer of the same name is not it
    ++registered;
  }
  return registered;
}

}  // namespace onnx_import
}  // namespace switchyard
