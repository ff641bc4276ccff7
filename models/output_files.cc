#include "models/output_files.h"

#include <cstdint>
#include <cctype>
#include <filesystem>
#include <set>
#include <system_error>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "models/host_array.h"
#include "models/npy.h"

namespace switchyard {
namespace {

bool IsFolder(const std::string& target) {
  std::error_code error;
  return absl::EndsWith(target, "/") ||
         std::filesystem::is_directory(target, error);
}

// `tensor` on the host in a dtype .npy holds (AsNpyDType).
absl::StatusOr<HostArray> ToHostArray(const Tensor& tensor) {
  SY_ASSIGN_OR_RETURN(std::vector<char> bytes, tensor.ToBytes());
  return AsNpyDType(HostArray(tensor.shape(), tensor.dtype(), std::move(bytes)));
}

}  // namespace

absl::StatusOr<std::vector<std::string>> OutputFilePaths(
    absl::Span<const std::string> targets, size_t num_outputs,
    absl::Span<const std::string> names) {
  for (size_t i = 0; i < targets.size(); ++i) {
    if (targets[i].empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output path ", i + 1, " of ", targets.size(),
          " is empty; give one file per output separated by commas, or a "
          "folder ending in '/'"));
    }
  }
  std::vector<std::string> paths;
  if (targets.size() == 1 && IsFolder(targets[0])) {
    std::string folder = targets[0];
    while (folder.size() > 1 && absl::EndsWith(folder, "/")) folder.pop_back();
    std::error_code error;
    std::filesystem::create_directories(folder, error);
    if (error) {
      return absl::ErrnoToStatus(
          error.value(),
          absl::StrCat("cannot create the output folder '", folder, "'"));
    }
    std::set<std::string> used;
    for (size_t i = 0; i < num_outputs; ++i) {
      std::string name = absl::StrCat("output_", i);
      if (i < names.size() && !names[i].empty()) {
        name = names[i];
        for (char& c : name) {
          if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' &&
              c != '-' && c != '_') {
            c = '_';
          }
        }
        if (name[0] == '.') name[0] = '_';  // never "..", never hidden
        if (used.count(name) > 0) name = absl::StrCat(name, "_", i);
      }
      used.insert(name);
      paths.push_back(absl::StrCat(folder, "/", name, ".npy"));
    }
    return paths;
  }
  if (targets.size() != num_outputs) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the model has ", num_outputs,
        num_outputs == 1 ? " output" : " outputs", " but ", targets.size(),
        targets.size() == 1 ? " file was" : " files were",
        " given; give one .npy file per output separated by commas, or a "
        "folder ending in '/' for output_0.npy, output_1.npy, ..."));
  }
  return std::vector<std::string>(targets.begin(), targets.end());
}

absl::Status StageOutputFiles(absl::Span<const Tensor> outputs,
                              absl::Span<const std::string> paths,
                              FileTransaction& files) {
  if (outputs.size() != paths.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(outputs.size(), " outputs but ", paths.size(), " paths"));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    absl::Status added = files.HasOutput(paths[i])
                             ? absl::OkStatus()
                             : files.AddOutput(paths[i], "--output");
    if (!added.ok()) {
      return absl::Status(added.code(),
                          absl::StrCat("output ", i, ": ", added.message()));
    }
    absl::StatusOr<HostArray> array = ToHostArray(outputs[i]);
    absl::StatusOr<std::string> bytes =
        array.ok() ? EncodeNpy(paths[i], *array) : array.status();
    absl::Status status =
        bytes.ok() ? files.Stage(paths[i], *bytes) : bytes.status();
    if (!status.ok()) {
      return absl::Status(status.code(),
                          absl::StrCat("output ", i, ": ", status.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status WriteOutputFiles(absl::Span<const Tensor> outputs,
                              absl::Span<const std::string> paths) {
  FileTransaction files;
  SY_RETURN_IF_ERROR(StageOutputFiles(outputs, paths, files));
  return files.Commit();
}

}  // namespace switchyard
