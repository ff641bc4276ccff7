#ifndef SWITCHYARD_MODELS_FILE_IO_H_
#define SWITCHYARD_MODELS_FILE_IO_H_

// Whole-file reads and crash-safe whole-file writes, shared by the tensor file
// formats in this folder. Private to //models:tensor_files.
//
//   SY_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
//   SY_RETURN_IF_ERROR(WriteFileAtomically(path, bytes));

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace switchyard {
namespace file_io_internal {

// Reads all of `path`. A missing file is NotFound; every error names the path
// and the system's reason (strerror).
absl::StatusOr<std::string> ReadFileToString(const std::string& path);

// A whole file mapped read-only into memory, for readers that copy parts of a
// large file (tensors) to their destination without first holding a copy of
// the whole file: pages are read from the file when first touched, and
// Release() gives touched pages back. Files that cannot be mapped (pipes,
// character devices) are read into memory instead, so any readable path
// works. Errors are ReadFileToString's.
//
// The mapping is private and read-only; it stays valid if the file is
// replaced (rename), but truncating the file while it is mapped makes reads
// past the new end fault (SIGBUS), as with every mmap-based loader.
//
//   SY_ASSIGN_OR_RETURN(std::unique_ptr<MappedFile> file, MappedFile::Open(p));
//   std::memcpy(dst, file->bytes().data() + offset, n);
//   file->Release(file->bytes().data() + offset, n);
class MappedFile {
 public:
  static absl::StatusOr<std::unique_ptr<MappedFile>> Open(
      const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  absl::string_view bytes() const { return bytes_; }

  // Drops the pages that lie wholly inside [data, data + size) from this
  // process's memory (they stay in the page cache; reading them again faults
  // them back in from the file). For bytes already copied elsewhere; a no-op
  // for a file that was read instead of mapped.
  void Release(const char* data, size_t size);

 private:
  MappedFile() = default;

  void* mapping_ = nullptr;  // null when empty or read into `contents_`
  size_t mapping_size_ = 0;
  std::string contents_;
  absl::string_view bytes_;
};

// switchyard::WriteFileAtomically (core/file_transaction.h): a fresh unique
// temporary next to `path`, synced, renamed over it; refuses symlinks,
// devices, directories and hard-linked files; errors name `path` and strerror.
absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents);

}  // namespace file_io_internal
}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_FILE_IO_H_
