#ifndef SWITCHYARD_RUNTIME_PER_FILE_OUTPUTS_H_
#define SWITCHYARD_RUNTIME_PER_FILE_OUTPUTS_H_

// `switchyard run --images=DIR_OR_GLOB`: each image file's own results.
// A classifier's top-5 line per file (for the front end to print); with
// --output=DIR/ every output of every file is written as
//
//   DIR/<name>.<output>.npy      out/cat.logits.npy, out/street.boxes.npy
//
// <name> is the file's stem, unique over every file of --images
// (ImageOutputNames); <output> is the model's name for the output
// (output_<i> when it has none). A model that takes batches gives each
// file its sample's slice along dimension 0, as [1, ...]: what `run
// --input` of that image alone as a batch of one writes. Files are staged
// in the run's FileTransaction as each image or batch finishes (published
// together at the end, or not at all), so no output outlives its batch in
// memory, however many files the stream has.
//
//   SY_ASSIGN_OR_RETURN(std::string dir, PrepareImageOutputFolder(flag, resolved));
//   PerFileOutputs outputs({dir, names, labels}, files);
//   std::printf("%s", outputs.Top5Lines(number, path, host_outputs).c_str());
//   SY_RETURN_IF_ERROR(outputs.Stage(name_of_path, host_outputs));

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/file_transaction.h"
#include "models/host_array.h"

namespace switchyard {
namespace runtime {

// The name each file's outputs take, in `files`' order (every file of
// --images, so that MPI ranks agree): the stem ("photos/cat.jpg" -> "cat");
// files that share a stem take their whole base name ("cat.jpg",
// "cat.png"); files that still share one (a pattern over several folders)
// are numbered by their place in the list, from 1 ("3_cat.jpg").
std::vector<std::string> ImageOutputNames(const std::vector<std::string>& files);

// --output with --images, checked before any work: one folder (a value
// ending in '/' or naming a directory), created with its parents when
// missing and probed for writing. `flag` is the value as given (for
// errors), `target` resolved. Returns the folder without trailing '/'.
absl::StatusOr<std::string> PrepareImageOutputFolder(const std::string& flag,
                                                     const std::string& target);

// Sample `s` of `batch` (dimension 0) as an array of [1, ...].
HostArray SampleOf(const HostArray& batch, int64_t s);

// Which file of a stream's first pass each sample of batch `index` holds
// (ImageBatchLoader: position p is file p mod n, and a bad file's slot is
// filled by the next good one), or -1 for a slot whose file is bad (it holds
// another file, counted where it belongs) or a position past the last file
// (the last batch wraps around to the first files).
std::vector<int64_t> FilesOfBatch(int64_t index, int64_t batch, int64_t num_files,
                                  const std::function<bool(int64_t file)>& is_bad);

class PerFileOutputs {
 public:
  struct Options {
    std::string folder;  // from PrepareImageOutputFolder; empty: no files
    // The model's output names as file-name parts (OutputFileNames).
    std::vector<std::string> output_names;
    std::vector<std::string> labels;  // --labels
    int64_t total_files = 0;  // every file of --images (for "image 3/15")
  };
  PerFileOutputs(Options options, FileTransaction& files);

  // One file's top-5 lines, for the caller to print: a line per
  // class-score output ([1, C], floating), the table's header before the
  // first such line of the stream; "" when no output is class scores.
  // `number` is the file's place among all the files (1-based).
  std::string Top5Lines(int64_t number, const std::string& path,
                        const std::vector<HostArray>& outputs);
  // One file's outputs staged under the folder (nothing without a folder).
  // Callable on another thread than Top5Lines (PerFileOutputsWriter).
  absl::Status Stage(const std::string& name, const std::vector<HostArray>& outputs);

  bool writes_files() const { return !options_.folder.empty(); }
  int64_t files_written() const { return files_written_; }
  int64_t images_seen() const { return images_seen_; }

 private:
  const Options options_;
  FileTransaction& files_;
  bool header_given_ = false;
  std::atomic<int64_t> files_written_{0};
  std::atomic<int64_t> images_seen_{0};
};

// PerFileOutputs::Stage on a thread of its own, at most `capacity` files
// behind: a stream's driver hands each file's outputs over and goes on, so
// that writing (each file synced to disk) does not show as the device's
// idle time in the utilization report. Memory stays bounded by `capacity`.
class PerFileOutputsWriter {
 public:
  PerFileOutputsWriter(PerFileOutputs& outputs, size_t capacity);
  ~PerFileOutputsWriter();  // finishes what is queued

  // Queues one file's outputs, waiting while `capacity` are queued. The
  // error of an earlier file, if one failed (then nothing more is written).
  absl::Status Add(std::string name, std::vector<HostArray> outputs);

  // Waits for every queued file; the first error.
  absl::Status Finish();

 private:
  struct Item {
    std::string name;
    std::vector<HostArray> outputs;
  };
  void Loop();
  bool HasRoom() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool HasWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  PerFileOutputs& outputs_;
  const size_t capacity_;
  absl::Mutex mu_;
  std::deque<Item> queue_ ABSL_GUARDED_BY(mu_);
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status error_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

// A model's output names as parts of file names, as `run --output=DIR/`
// names its files (models/output_files.h: characters other than letters,
// digits, '.', '-' and '_' become '_'; output_<i> when unnamed; each
// unique). `folder` is an existing folder (PrepareImageOutputFolder).
absl::StatusOr<std::vector<std::string>> OutputFileNames(
    const std::string& folder, size_t num_outputs, const std::vector<std::string>& names);

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_PER_FILE_OUTPUTS_H_
