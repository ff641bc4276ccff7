#ifndef SWITCHYARD_DATA_IMAGE_BATCH_LOADER_H_
#define SWITCHYARD_DATA_IMAGE_BATCH_LOADER_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "data/image.h"
#include "data/loader_stages.h"
#include "data/sample_pipeline.h"

namespace switchyard {
namespace data {

// What a loader does with a file that cannot be read or decoded.
enum class BadImagePolicy {
  kSkip,  // report it (path and reason, once, on stderr), count it, and fill
          // its slot with the next good file in the list
  kFail,  // the batch fails with the file's error
};

// Fills batches of images for a model input [B, 3, size, size], from several
// loader threads at once (LoadBatch is thread-safe).
//
// Batch b holds the samples at stream positions b*B .. b*B + B - 1; position
// p is file p mod N (the list repeats for epochs past the first), and its
// random crop and flip are seeded by (seed, p), so every batch is the same
// whichever thread loads it. A skipped file's slot takes the next file in
// the list that is not known to be bad (the batch's shape is fixed); a file
// found bad once is not read again.
//
// Each sample is transformed into a per-call buffer and then copied into its
// slot of the batch ("batch": torchvision's collate, into the staging
// buffer the device upload reads from).
//
//   ImageBatchLoader loader(files, /*batch_size=*/8, options);
//   std::vector<float> staged(8 * 3 * 224 * 224);
//   std::vector<StageSpan> spans;
//   SY_RETURN_IF_ERROR(loader.LoadBatch(0, absl::MakeSpan(staged), &spans));
class ImageBatchLoader {
 public:
  struct Options {
    TransformOptions transform;
    DecodeLimits limits;
    BadImagePolicy bad_images = BadImagePolicy::kSkip;
    bool report_bad_images = true;  // on stderr, as they are found
  };
  ImageBatchLoader(std::vector<std::string> files, int batch_size, Options options);

  // `batch` has batch_size * 3 * size * size floats. FailedPrecondition when
  // every file is bad; with kFail, the first bad file's error.
  absl::Status LoadBatch(int64_t index, absl::Span<float> batch,
                         std::vector<StageSpan>* spans);

  int64_t batch_elements() const;
  // Batches in one pass over the files (the last one wraps around).
  int64_t batches_per_epoch() const;
  const std::vector<std::string>& files() const { return files_; }

  struct BadImage {
    std::string path;
    std::string error;
  };
  // Each bad file once, in the order found.
  std::vector<BadImage> bad_images() const;
  // Slots that a bad file would have filled (a file may count once per epoch).
  int64_t skipped() const;

 private:
  bool KnownBad(size_t file) const;
  // Records it; true when it was not known before.
  bool MarkBad(size_t file, const absl::Status& error);

  const std::vector<std::string> files_;
  const int batch_size_;
  const Options options_;
  mutable absl::Mutex mu_;
  std::set<size_t> bad_ ABSL_GUARDED_BY(mu_);
  std::vector<BadImage> bad_list_ ABSL_GUARDED_BY(mu_);
  int64_t skipped_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace data
}  // namespace switchyard

#endif  // SWITCHYARD_DATA_IMAGE_BATCH_LOADER_H_
