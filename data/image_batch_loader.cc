#include "data/image_batch_loader.h"

#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace switchyard {
namespace data {

using Clock = std::chrono::steady_clock;

ImageBatchLoader::ImageBatchLoader(std::vector<std::string> files, int batch_size,
                                   Options options)
    : files_(std::move(files)), batch_size_(batch_size), options_(std::move(options)) {}

int64_t ImageBatchLoader::batch_elements() const {
  const int64_t size = options_.transform.size;
  return int64_t{batch_size_} * 3 * size * size;
}

int64_t ImageBatchLoader::batches_per_epoch() const {
  const int64_t n = static_cast<int64_t>(files_.size());
  return (n + batch_size_ - 1) / batch_size_;
}

bool ImageBatchLoader::KnownBad(size_t file) const {
  absl::MutexLock lock(&mu_);
  return bad_.count(file) > 0;
}

bool ImageBatchLoader::MarkBad(size_t file, const absl::Status& error) {
  absl::MutexLock lock(&mu_);
  ++skipped_;
  if (!bad_.insert(file).second) return false;
  bad_list_.push_back({files_[file], std::string(error.message())});
  return true;
}

std::vector<ImageBatchLoader::BadImage> ImageBatchLoader::bad_images() const {
  absl::MutexLock lock(&mu_);
  return bad_list_;
}

int64_t ImageBatchLoader::skipped() const {
  absl::MutexLock lock(&mu_);
  return skipped_;
}

absl::Status ImageBatchLoader::LoadBatch(int64_t index, absl::Span<float> batch,
                                         std::vector<StageSpan>* spans) {
  const int64_t per_sample = batch_elements() / batch_size_;
  if (static_cast<int64_t>(batch.size()) != batch_elements()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the staging buffer has ", batch.size(), " floats; a batch of ", batch_size_,
        " images of ", options_.transform.size, "x", options_.transform.size, " needs ",
        batch_elements()));
  }
  const size_t n = files_.size();
  if (n == 0) return absl::FailedPreconditionError("no image files to load");
  std::vector<float> sample(static_cast<size_t>(per_sample));
  for (int s = 0; s < batch_size_; ++s) {
    const int64_t position = index * batch_size_ + s;
    size_t tries = 0;
    for (size_t file = static_cast<size_t>(position % static_cast<int64_t>(n));;
         file = (file + 1) % n) {
      if (++tries > n) {
        return absl::FailedPreconditionError(absl::StrCat(
            "none of the ", n, " files could be decoded as an image (the first: ",
            files_.front(), "); see the errors above"));
      }
      if (KnownBad(file)) {
        absl::MutexLock lock(&mu_);
        ++skipped_;
        continue;
      }
      const absl::Status status = LoadSample(files_[file], position, options_.transform,
                                             options_.limits, absl::MakeSpan(sample), spans);
      if (status.ok()) break;
      if (options_.bad_images == BadImagePolicy::kFail) return status;
      if (MarkBad(file, status) && options_.report_bad_images) {
        // The message starts with the path.
        std::fprintf(stderr, "skipped bad image: %s\n",
                     std::string(status.message()).c_str());
      }
    }
    const Clock::time_point t = Clock::now();
    std::memcpy(batch.data() + s * per_sample, sample.data(), sample.size() * sizeof(float));
    EndStage(LoaderStage::kBatch, t, spans);
  }
  return absl::OkStatus();
}

}  // namespace data
}  // namespace switchyard
