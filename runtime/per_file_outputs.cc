#include "runtime/per_file_outputs.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <system_error>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "models/npy.h"
#include "models/output_files.h"
#include "runtime/output_summary.h"

namespace switchyard {
namespace runtime {
namespace {

std::string BaseName(const std::string& path) {
  return path.substr(path.find_last_of('/') + 1);
}

// "cat.01.jpg" -> "cat.01"; a name without an extension (or a hidden one)
// stays whole.
std::string Stem(const std::string& base) {
  const size_t dot = base.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}


}  // namespace

std::vector<std::string> ImageOutputNames(const std::vector<std::string>& files) {
  // Each file climbs the levels (stem, base name, numbered base name) while
  // its name is shared; numbered names are unique, so this ends.
  std::vector<int> level(files.size(), 0);
  std::vector<std::string> names(files.size());
  auto name_at = [&](size_t i) {
    const std::string base = BaseName(files[i]);
    switch (level[i]) {
      case 0: return Stem(base);
      case 1: return base;
      default: return absl::StrCat(i + 1, "_", base);
    }
  };
  for (bool shared = true; shared;) {
    std::map<std::string, std::vector<size_t>> users;
    for (size_t i = 0; i < files.size(); ++i) {
      names[i] = name_at(i);
      users[names[i]].push_back(i);
    }
    shared = false;
    for (const auto& [name, indices] : users) {
      if (indices.size() < 2) continue;
      for (size_t i : indices) {
        if (level[i] < 2) {
          ++level[i];
          shared = true;
        }
      }
    }
  }
  return names;
}

absl::StatusOr<std::string> PrepareImageOutputFolder(const std::string& flag,
                                                     const std::string& target) {
  struct stat info;
  const bool exists = stat(target.c_str(), &info) == 0;
  if (exists && !S_ISDIR(info.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--output=", flag, ": '", target, "' is ",
        S_ISREG(info.st_mode) ? "a file" : "not a folder",
        ", but with --images each image has its own outputs (<name>.<output>.npy); "
        "give a folder (--output=DIR/)"));
  }
  if (!exists && (target.empty() || !absl::EndsWith(target, "/") ||
                  absl::StrContains(target, ','))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--output=", flag, ": with --images each image has its own outputs "
        "(<name>.<output>.npy); give a folder (--output=DIR/, created if missing)"));
  }
  std::string folder = target;
  while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) {
    return absl::ErrnoToStatus(
        error.value(), absl::StrCat("--output=", flag, ": cannot create the folder '",
                                    folder, "'"));
  }
  // A probe file: permissions, a read-only file system, quotas.
  std::string probe = absl::StrCat(folder, "/.switchyard-probe-XXXXXX");
  const int fd = mkstemp(probe.data());
  if (fd < 0) {
    return absl::ErrnoToStatus(
        errno, absl::StrCat("--output=", flag, ": cannot write in the folder '", folder,
                            "'; give a folder you can write to"));
  }
  close(fd);
  unlink(probe.c_str());
  return folder;
}

HostArray SampleOf(const HostArray& batch, int64_t s) {
  std::vector<int64_t> dims = batch.shape.dims();
  const int64_t n = dims.empty() ? 1 : dims[0];
  const size_t per_sample = n > 0 ? batch.bytes.size() / static_cast<size_t>(n) : 0;
  if (!dims.empty()) dims[0] = 1;
  const auto begin = batch.bytes.begin() + static_cast<std::ptrdiff_t>(s * per_sample);
  return HostArray(Shape(std::move(dims)), batch.dtype,
                   std::vector<char>(begin, begin + static_cast<std::ptrdiff_t>(per_sample)));
}

std::vector<int64_t> FilesOfBatch(int64_t index, int64_t batch, int64_t num_files,
                                  const std::function<bool(int64_t file)>& is_bad) {
  std::vector<int64_t> files(static_cast<size_t>(batch), -1);
  for (int64_t s = 0; s < batch; ++s) {
    const int64_t position = index * batch + s;
    if (position < num_files && !is_bad(position)) files[s] = position;
  }
  return files;
}

absl::StatusOr<std::vector<std::string>> OutputFileNames(
    const std::string& folder, size_t num_outputs, const std::vector<std::string>& names) {
  SY_ASSIGN_OR_RETURN(std::vector<std::string> paths,
                      OutputFilePaths({folder + "/"}, num_outputs, names));
  for (std::string& path : paths) {
    path = BaseName(path);
    path.resize(path.size() - 4);  // ".npy"
  }
  return paths;
}

PerFileOutputs::PerFileOutputs(Options options, FileTransaction& files)
    : options_(std::move(options)), files_(files) {}

std::string PerFileOutputs::Top5Lines(int64_t number, const std::string& path,
                                      const std::vector<HostArray>& outputs) {
  std::string lines;
  for (size_t o = 0; o < outputs.size(); ++o) {
    const HostArray& out = outputs[o];
    if (!LooksLikeClassScores(out.shape, out.dtype) || out.shape.dim(0) != 1) continue;
    if (!header_given_) {
      absl::StrAppend(&lines, "top-5 per image: class, softmax probability (raw output)",
                      options_.labels.empty() ? "" : ", label", "\n");
      header_given_ = true;
    }
    const std::string output = o < options_.output_names.size() && outputs.size() > 1
                                   ? absl::StrCat(" ", options_.output_names[o])
                                   : "";
    absl::StrAppend(&lines, "image ", number, "/", options_.total_files, " ", path, output,
                    " top-5:", FormatTop5(out, 0, options_.labels).text, "\n");
  }
  return lines;
}

absl::Status PerFileOutputs::Stage(const std::string& name,
                                   const std::vector<HostArray>& outputs) {
  ++images_seen_;
  if (options_.folder.empty()) return absl::OkStatus();
  if (outputs.size() != options_.output_names.size()) {
    return absl::InternalError(absl::StrCat(name, ": ", outputs.size(), " outputs but ",
                                            options_.output_names.size(), " output names"));
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    const std::string file =
        absl::StrCat(options_.folder, "/", name, ".", options_.output_names[o], ".npy");
    SY_RETURN_IF_ERROR(files_.AddOutput(file, "--output"));
    SY_ASSIGN_OR_RETURN(std::string bytes, EncodeNpy(file, AsNpyDType(outputs[o])));
    SY_RETURN_IF_ERROR(files_.Stage(file, bytes));
    ++files_written_;
  }
  return absl::OkStatus();
}

PerFileOutputsWriter::PerFileOutputsWriter(PerFileOutputs& outputs, size_t capacity)
    : outputs_(outputs), capacity_(capacity > 0 ? capacity : 1), thread_([this] { Loop(); }) {}

PerFileOutputsWriter::~PerFileOutputsWriter() { Finish().IgnoreError(); }

absl::Status PerFileOutputsWriter::Add(std::string name, std::vector<HostArray> outputs) {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(this, &PerFileOutputsWriter::HasRoom));
  if (!error_.ok()) return error_;
  queue_.push_back({std::move(name), std::move(outputs)});
  return absl::OkStatus();
}

absl::Status PerFileOutputsWriter::Finish() {
  {
    absl::MutexLock lock(&mu_);
    done_ = true;
  }
  if (thread_.joinable()) thread_.join();
  absl::MutexLock lock(&mu_);
  return error_;
}

bool PerFileOutputsWriter::HasRoom() const {
  return queue_.size() < capacity_ || !error_.ok();
}

bool PerFileOutputsWriter::HasWork() const { return !queue_.empty() || done_; }

void PerFileOutputsWriter::Loop() {
  while (true) {
    Item item;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &PerFileOutputsWriter::HasWork));
      if (queue_.empty()) return;  // done, and nothing left
      item = std::move(queue_.front());
      queue_.pop_front();
    }
    absl::Status status = outputs_.Stage(item.name, item.outputs);
    if (!status.ok()) {
      absl::MutexLock lock(&mu_);
      error_ = std::move(status);
      queue_.clear();
      return;
    }
  }
}

}  // namespace runtime
}  // namespace switchyard
