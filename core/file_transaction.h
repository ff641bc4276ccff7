#ifndef SWITCHYARD_CORE_FILE_TRANSACTION_H_
#define SWITCHYARD_CORE_FILE_TRANSACTION_H_

// Every file a command writes (npy and safetensors outputs, JSON reports,
// Chrome traces, bench JSON and Markdown) goes through FileTransaction:
//
//   FileTransaction files;
//   files.AddInput(weights_path, "--weights");      // never overwritten
//   SY_RETURN_IF_ERROR(files.AddOutput(out, "--output"));  // checked now,
//   SY_RETURN_IF_ERROR(files.AddOutput(rep, "--report"));  // before any work
//   ... the run ...
//   SY_RETURN_IF_ERROR(files.Stage(out, npy_bytes));  // a fresh temporary
//   SY_RETURN_IF_ERROR(files.Stage(rep, json));
//   SY_RETURN_IF_ERROR(files.Commit());  // renamed over the paths, together
//
// A transaction destroyed without Commit() (the run failed) removes its
// temporaries and leaves every destination as it was.
//
// AddOutput refuses, before anything is written:
//   - a destination whose folder is missing (NotFound) or not writable
//     (PermissionDenied, read-only file system...): a probe file is created
//     and removed there;
//   - an existing destination that is a symbolic link, a directory, a device,
//     FIFO or socket, a file with other hard links, or a read-only file
//     (FailedPrecondition / PermissionDenied): replacing it would change
//     what the name points at instead of writing the file;
//   - the same file as an input of the run (same device and inode) or as
//     another output of the run (InvalidArgument).
// Temporaries are created next to the destination (so the rename stays on
// one file system) with a unique name, O_EXCL, mode of the file they replace
// (0644 less the umask for a new one); they are fsynced before the rename
// and the folder after it. Every error names the user's path, never the
// temporary, and ends with the system's reason (strerror); its code follows
// errno (ENOSPC: ResourceExhausted, EACCES: PermissionDenied, ENOENT:
// NotFound...).
//
// "Together": every destination is re-checked and every temporary written
// and synced before the first rename, so a failure before publishing leaves
// none published. Renames within a folder do not fail in practice; if one
// does, the error says which outputs were already published.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace switchyard {

class FileTransaction {
 public:
  FileTransaction() = default;
  ~FileTransaction();  // removes temporaries not committed
  FileTransaction(const FileTransaction&) = delete;
  FileTransaction& operator=(const FileTransaction&) = delete;

  // A file the run reads (`what` names it in errors: "--weights"). Paths that
  // do not exist are ignored (the reader reports them).
  void AddInput(const std::string& path, absl::string_view what);

  // Checks `path` as a destination (see above); `what` names it in errors
  // ("--report"). Adding the same path twice is an error.
  absl::Status AddOutput(const std::string& path, absl::string_view what);

  // Writes `contents` to a fresh temporary for `path` (added before) and
  // syncs it.
  absl::Status Stage(const std::string& path, absl::string_view contents);

  // Publishes every staged file. Every output added must have been staged.
  absl::Status Commit();

  // Whether `path` was added as an output.
  bool HasOutput(const std::string& path) const;

 private:
  struct Output {
    std::string path;  // as the user gave it
    std::string what;
    std::string key;   // real folder + '/' + base name
    std::string temp;  // empty until staged
    bool existed = false;
    unsigned long long dev = 0, ino = 0;  // when existed
  };
  struct Input {
    std::string path, what;
    unsigned long long dev, ino;
  };
  absl::Status CheckDestination(const Output& output) const;

  std::vector<Input> inputs_;
  std::vector<Output> outputs_;
  bool committed_ = false;
};

// One file through a FileTransaction of its own: checked, staged, committed.
absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents,
                                 absl::string_view what = "output");

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_FILE_TRANSACTION_H_
