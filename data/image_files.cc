#include "data/image_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace switchyard {
namespace data {
namespace {

bool IsRegularFile(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ListImageFiles(const std::string& dir_or_glob) {
  std::vector<std::string> files;
  struct stat info;
  if (stat(dir_or_glob.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    DIR* dir = opendir(dir_or_glob.c_str());
    if (dir == nullptr) {
      return absl::ErrnoToStatus(errno, absl::StrCat("cannot list '", dir_or_glob, "'"));
    }
    const std::string prefix =
        dir_or_glob.back() == '/' ? dir_or_glob : absl::StrCat(dir_or_glob, "/");
    while (dirent* entry = readdir(dir)) {
      if (entry->d_name[0] == '.') continue;
      std::string path = absl::StrCat(prefix, entry->d_name);
      if (IsRegularFile(path)) files.push_back(std::move(path));
    }
    closedir(dir);
  } else if (dir_or_glob.find_first_of("*?[") != std::string::npos) {
    glob_t matches;
    const int rc = glob(dir_or_glob.c_str(), 0, nullptr, &matches);
    if (rc == 0) {
      for (size_t i = 0; i < matches.gl_pathc; ++i) {
        if (IsRegularFile(matches.gl_pathv[i])) files.push_back(matches.gl_pathv[i]);
      }
    }
    globfree(&matches);
  } else if (IsRegularFile(dir_or_glob)) {
    files.push_back(dir_or_glob);
  } else {
    return absl::NotFoundError(absl::StrCat(
        "'", dir_or_glob, "' is not a folder, a file or a pattern that matches files"));
  }
  if (files.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "no files in '", dir_or_glob,
        "'; give a folder of JPEG/PNG files or a pattern such as 'photos/*.jpg'"));
  }
  std::sort(files.begin(), files.end());
  return files;
}

absl::StatusOr<std::string> ReadFileBytes(const std::string& path, int64_t max_bytes) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat(path, ": cannot open"));
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a regular file"));
  }
  if (info.st_size > max_bytes) {
    close(fd);
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": ", info.st_size, " bytes, over the limit of ", max_bytes,
        " bytes for one image file"));
  }
  std::string bytes(static_cast<size_t>(info.st_size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = read(fd, &bytes[done], bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      close(fd);
      return absl::ErrnoToStatus(error, absl::StrCat(path, ": cannot read"));
    }
    if (n == 0) break;  // the file shrank while we read it
    done += static_cast<size_t>(n);
  }
  close(fd);
  bytes.resize(done);
  return bytes;
}

}  // namespace data
}  // namespace switchyard
