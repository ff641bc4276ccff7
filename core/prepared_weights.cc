#include "core/prepared_weights.h"

namespace switchyard {

std::shared_ptr<const void> PreparedWeights::GetErased(
    const Tensor& source, const std::string& how,
    const std::function<std::shared_ptr<const void>()>& make) {
  const std::shared_ptr<Buffer>& buffer = source.buffer();
  absl::MutexLock lock(&mu_);
  const auto key = std::make_pair(static_cast<const Buffer*>(buffer.get()), how);
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    // The same buffer object still alive (not a new one at a reused
    // address), and a kernel still holds what was made from it.
    std::shared_ptr<Buffer> alive = it->second.source.lock();
    std::shared_ptr<const void> prepared = it->second.prepared.lock();
    if (alive == buffer && prepared != nullptr) {
      ++stats_.reused;
      return prepared;
    }
  }
  // Entries whose kernels or buffers are gone go now, so the map stays as
  // small as what is in use.
  for (auto e = entries_.begin(); e != entries_.end();) {
    e = e->second.source.expired() || e->second.prepared.expired() ? entries_.erase(e)
                                                                   : std::next(e);
  }
  std::shared_ptr<const void> prepared = make();
  entries_[key] = Entry{buffer, prepared};
  ++stats_.prepared;
  return prepared;
}

PreparedWeights::Stats PreparedWeights::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

}  // namespace switchyard
