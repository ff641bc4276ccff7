#include "core/file_transaction.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace switchyard {
namespace {

absl::Status SystemError(int error_number, absl::string_view what,
                         absl::string_view verb, const std::string& path) {
  // ErrnoToStatus appends ": <strerror>" and picks the code from errno.
  return absl::ErrnoToStatus(
      error_number, absl::StrCat(what, ": cannot ", verb, " '", path, "'"));
}

std::string Folder(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A name no other writer uses: pid, a counter and random bits.
std::string TempName(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  static thread_local std::mt19937_64 rng(std::random_device{}());
  return absl::StrCat(Folder(path), "/.", BaseName(path), ".", getpid(), "-",
                      counter.fetch_add(1), "-", rng() % 1000000007ULL,
                      ".switchyard-tmp");
}

// Creates a fresh temporary for `path` (O_EXCL, retried on a name clash).
int CreateTemp(const std::string& path, mode_t mode, std::string* temp) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    *temp = TempName(path);
    int fd;
    do {
      fd = open(temp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    } while (fd < 0 && errno == EINTR);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

absl::Status WriteAll(int fd, absl::string_view contents) {
  size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n =
        write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::ErrnoToStatus(errno, "");
    }
    written += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

void SyncFolder(const std::string& folder) {
  const int fd = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)fsync(fd);  // durability of the rename; the data itself is synced
  close(fd);
}

}  // namespace

FileTransaction::~FileTransaction() {
  if (committed_) return;
  for (const Output& output : outputs_) {
    if (!output.temp.empty()) unlink(output.temp.c_str());
  }
}

void FileTransaction::AddInput(const std::string& path, absl::string_view what) {
  struct stat info;
  if (path.empty() || stat(path.c_str(), &info) != 0) return;
  inputs_.push_back({path, std::string(what),
                     static_cast<unsigned long long>(info.st_dev),
                     static_cast<unsigned long long>(info.st_ino)});
}

bool FileTransaction::HasOutput(const std::string& path) const {
  for (const Output& output : outputs_) {
    if (output.path == path) return true;
  }
  return false;
}

absl::Status FileTransaction::CheckDestination(const Output& output) const {
  const std::string& path = output.path;
  struct stat info;
  if (lstat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return absl::OkStatus();  // a new file
    return SystemError(errno, output.what, "write", path);
  }
  auto refuse = [&](absl::string_view why) {
    return absl::FailedPreconditionError(absl::StrCat(
        output.what, ": will not replace '", path, "': ", why,
        "; give the path of a new or regular file"));
  };
  if (S_ISLNK(info.st_mode)) {
    return refuse("it is a symbolic link (replacing it would not write "
                  "where it points)");
  }
  if (S_ISDIR(info.st_mode)) return refuse("it is a directory");
  if (!S_ISREG(info.st_mode)) {
    return refuse(S_ISCHR(info.st_mode) || S_ISBLK(info.st_mode)
                      ? "it is a device"
                      : "it is not a regular file (a FIFO or socket)");
  }
  if (info.st_nlink > 1) {
    return refuse(absl::StrCat("it has ", info.st_nlink,
                               " hard links (replacing it would split them)"));
  }
  if ((info.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0) {
    return absl::PermissionDeniedError(absl::StrCat(
        output.what, ": will not replace '", path,
        "': it is read-only (chmod u+w it, or choose another path)"));
  }
  for (const Input& input : inputs_) {
    if (input.dev == static_cast<unsigned long long>(info.st_dev) &&
        input.ino == static_cast<unsigned long long>(info.st_ino)) {
      return absl::InvalidArgumentError(absl::StrCat(
          output.what, ": '", path, "' is the same file as ", input.what, "='",
          input.path, "'; writing it would destroy the input"));
    }
  }
  return absl::OkStatus();
}

absl::Status FileTransaction::AddOutput(const std::string& path,
                                        absl::string_view what) {
  Output output;
  output.path = path;
  output.what = std::string(what);
  if (path.empty() || path.back() == '/') {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": '", path, "' is not a file name"));
  }
  const std::string folder = Folder(path);
  char real[PATH_MAX];
  if (realpath(folder.c_str(), real) == nullptr) {
    if (errno == ENOENT) {
      return absl::ErrnoToStatus(
          ENOENT, absl::StrCat(what, ": cannot write '", path, "' (the folder '",
                               folder, "' does not exist; create it first)"));
    }
    return SystemError(errno, what, "write", path);
  }
  output.key = absl::StrCat(real, "/", BaseName(path));
  struct stat info;
  if (lstat(path.c_str(), &info) == 0) {
    output.existed = true;
    output.dev = static_cast<unsigned long long>(info.st_dev);
    output.ino = static_cast<unsigned long long>(info.st_ino);
  }
  for (const Output& other : outputs_) {
    if (other.key == output.key ||
        (output.existed && other.existed && other.dev == output.dev &&
         other.ino == output.ino)) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, "='", path, "' is the same file as ", other.what, "='",
          other.path, "'; give each output its own path"));
    }
  }
  if (absl::Status status = CheckDestination(output); !status.ok()) {
    return status;
  }
  // The folder must take a new file: create and remove a probe now, so an
  // unwritable folder fails before the run rather than after it.
  std::string probe;
  const int fd = CreateTemp(path, 0600, &probe);
  if (fd < 0) {
    return SystemError(errno, what, "write", path);
  }
  close(fd);
  unlink(probe.c_str());
  outputs_.push_back(std::move(output));
  return absl::OkStatus();
}

absl::Status FileTransaction::Stage(const std::string& path,
                                    absl::string_view contents) {
  Output* output = nullptr;
  for (Output& candidate : outputs_) {
    if (candidate.path == path) output = &candidate;
  }
  if (output == nullptr) {
    return absl::InternalError(
        absl::StrCat("'", path, "' was not added as an output"));
  }
  if (!output->temp.empty()) {
    unlink(output->temp.c_str());
    output->temp.clear();
  }
  mode_t mode = 0644;  // less the umask, as for any new file
  struct stat info;
  if (stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode)) {
    mode = info.st_mode & 07777;
  }
  std::string temp;
  int fd = CreateTemp(path, mode, &temp);
  if (fd < 0) return SystemError(errno, output->what, "write", path);
  if (mode != 0644) (void)fchmod(fd, mode);  // the replaced file's mode
  absl::Status status = WriteAll(fd, contents);
  if (!status.ok()) {
    close(fd);
    unlink(temp.c_str());
    return absl::Status(status.code(),
                        absl::StrCat(output->what, ": cannot write '", path,
                                     "'", status.message()));
  }
  // Without fsync a crash soon after the rename can leave `path` empty on
  // some file systems, which is the corruption the temporary avoids.
  if (fsync(fd) != 0) {
    const int error_number = errno;
    close(fd);
    unlink(temp.c_str());
    return SystemError(error_number, output->what, "write", path);
  }
  if (close(fd) != 0) {
    const int error_number = errno;
    unlink(temp.c_str());
    return SystemError(error_number, output->what, "write", path);
  }
  output->temp = std::move(temp);
  return absl::OkStatus();
}

absl::Status FileTransaction::Commit() {
  for (const Output& output : outputs_) {
    if (output.temp.empty()) {
      return absl::InternalError(absl::StrCat(
          output.what, ": '", output.path, "' was never written"));
    }
    // The destination may have changed since AddOutput.
    if (absl::Status status = CheckDestination(output); !status.ok()) {
      return status;
    }
  }
  std::vector<std::string> published;
  for (Output& output : outputs_) {
    if (rename(output.temp.c_str(), output.path.c_str()) != 0) {
      absl::Status status =
          SystemError(errno, output.what, "publish", output.path);
      if (published.empty()) return status;
      return absl::Status(
          status.code(),
          absl::StrCat(status.message(), " (already published: ",
                       absl::StrJoin(published, ", "), ")"));
    }
    output.temp.clear();
    published.push_back(output.path);
  }
  committed_ = true;
  for (const Output& output : outputs_) SyncFolder(Folder(output.path));
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents,
                                 absl::string_view what) {
  FileTransaction files;
  if (absl::Status status = files.AddOutput(path, what); !status.ok()) {
    return status;
  }
  if (absl::Status status = files.Stage(path, contents); !status.ok()) {
    return status;
  }
  return files.Commit();
}

}  // namespace switchyard
