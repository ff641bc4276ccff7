#include "models/file_io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "core/file_transaction.h"

namespace switchyard {
namespace file_io_internal {
namespace {

// Status for a failed system call: the code follows errno (ENOENT ->
// NotFound, EACCES -> PermissionDenied, ...) and the message ends with
// strerror.
absl::Status SystemError(int error_number, absl::string_view what,
                         const std::string& path) {
  return absl::ErrnoToStatus(error_number, absl::StrCat(what, " '", path, "'"));
}

// Appends everything `fd` still has to `contents`.
absl::Status ReadToEnd(int fd, const std::string& path, std::string* contents) {
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n == 0) return absl::OkStatus();
    if (n < 0) {
      if (errno == EINTR) continue;
      return SystemError(errno, "cannot read", path);
    }
    contents->append(buffer, static_cast<size_t>(n));
  }
}

}  // namespace

absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  int fd;
  do {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return SystemError(errno, "cannot open", path);

  std::string contents;
  struct stat info;
  if (fstat(fd, &info) == 0) {
    if (S_ISDIR(info.st_mode)) {
      close(fd);
      return absl::FailedPreconditionError(
          absl::StrCat("cannot read '", path, "': it is a directory"));
    }
    // A hint only: the loop below reads until end of file either way.
    if (S_ISREG(info.st_mode) && info.st_size > 0) {
      contents.reserve(static_cast<size_t>(info.st_size));
    }
  }

  absl::Status read = ReadToEnd(fd, path, &contents);
  close(fd);
  if (!read.ok()) return read;
  return contents;
}

absl::StatusOr<std::unique_ptr<MappedFile>> MappedFile::Open(
    const std::string& path) {
  std::unique_ptr<MappedFile> file(new MappedFile());
  int fd;
  do {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return SystemError(errno, "cannot open", path);
  struct stat info;
  if (fstat(fd, &info) != 0) {
    const int error_number = errno;
    close(fd);
    return SystemError(error_number, "cannot stat", path);
  }
  if (S_ISDIR(info.st_mode)) {
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read '", path, "': it is a directory"));
  }
  if (S_ISCHR(info.st_mode) || S_ISBLK(info.st_mode) ||
      S_ISSOCK(info.st_mode)) {
    // /dev/zero or /dev/urandom would be read without end.
    close(fd);
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot read '", path, "': it is a ",
        S_ISSOCK(info.st_mode) ? "socket" : "device",
        ", not a file (give a .npy or .safetensors file, or a pipe)"));
  }
  if (!S_ISREG(info.st_mode)) {
    // A pipe or device has no size to map; read it like any stream (from
    // this descriptor: a FIFO's data is gone once its writer has closed).
    absl::Status read = ReadToEnd(fd, path, &file->contents_);
    close(fd);
    if (!read.ok()) return read;
    file->bytes_ = file->contents_;
    return file;
  }
  const size_t size = static_cast<size_t>(info.st_size);
  if (size > 0) {
    void* mapping = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapping == MAP_FAILED) {
      const int error_number = errno;
      close(fd);
      return SystemError(error_number, "cannot map", path);
    }
    file->mapping_ = mapping;
    file->mapping_size_ = size;
    file->bytes_ = absl::string_view(static_cast<const char*>(mapping), size);
  }
  close(fd);  // the mapping keeps the file open
  return file;
}

MappedFile::~MappedFile() {
  if (mapping_ != nullptr) munmap(mapping_, mapping_size_);
}

void MappedFile::Release(const char* data, size_t size) {
  if (mapping_ == nullptr || size == 0) return;
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t start = reinterpret_cast<uintptr_t>(mapping_);
  const uintptr_t end = start + mapping_size_;
  uintptr_t first = reinterpret_cast<uintptr_t>(data);
  uintptr_t last = first + size;
  if (first < start || last > end || last < first) return;  // not ours
  first = (first + page - 1) / page * page;  // whole pages only
  last = last / page * page;
  if (last <= first) return;
  // Advice only: on failure the pages simply stay resident.
  (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents) {
  return switchyard::WriteFileAtomically(path, contents, "output");
}

}  // namespace file_io_internal
}  // namespace switchyard
