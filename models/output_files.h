#ifndef SWITCHYARD_MODELS_OUTPUT_FILES_H_
#define SWITCHYARD_MODELS_OUTPUT_FILES_H_

// Writing a model's outputs as .npy files, one per output, as
// `switchyard run --output=...` does.
//
//   --output=y.npy          one output, one file (as always)
//   --output=out/           a folder: out/output_0.npy, out/output_1.npy, ...
//   --output=boxes.npy,scores.npy   one file per output, in output order
//
//   std::vector<std::string> targets = absl::StrSplit(flag, ',');
//   SY_ASSIGN_OR_RETURN(std::vector<std::string> paths,
//                       OutputFilePaths(targets, outputs.size()));
//   SY_RETURN_IF_ERROR(WriteOutputFiles(outputs, paths));

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/file_transaction.h"
#include "core/tensor.h"

namespace switchyard {

// The file for each of `num_outputs` outputs, from `targets` (the --output
// value split at commas). One target that ends with '/' or names an
// existing directory is a folder: output i goes to "<folder>/<names[i]>.npy"
// when the model names its outputs (`names`, from the first output on; characters
// other than letters, digits, '.', '-' and '_' become '_'), else
// "<folder>/output_<i>.npy" (the folder is created if missing). Otherwise there must be one file per
// output. InvalidArgument, saying how to fix it, when the counts differ or
// a target is empty; a folder that cannot be created is the system's error.
absl::StatusOr<std::vector<std::string>> OutputFilePaths(
    absl::Span<const std::string> targets, size_t num_outputs,
    absl::Span<const std::string> names = {});

// Copies each output to the host and writes it to the path of the same
// index as .npy, in its own dtype; bfloat16, which .npy cannot hold, is
// written as float32 (exactly). Errors name the output and the path.
absl::Status WriteOutputFiles(absl::Span<const Tensor> outputs,
                              absl::Span<const std::string> paths);

// Like WriteOutputFiles, into `files` (core/file_transaction.h): each path is
// added (unless it already was) and staged; the caller commits with the rest
// of the run's outputs.
absl::Status StageOutputFiles(absl::Span<const Tensor> outputs,
                              absl::Span<const std::string> paths,
                              FileTransaction& files);

}  // namespace switchyard

#endif  // SWITCHYARD_MODELS_OUTPUT_FILES_H_
