#include "core/releasable_weights.h"

#include <sys/mman.h>
#include <unistd.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace switchyard {

// One registered buffer: its memory, how to read it back, who pins it.
class ReleasableWeights::Entry {
 public:
  Entry(const Tensor& tensor, RestoreFn restore)
      : buffer(tensor.buffer()),
        begin(static_cast<char*>(tensor.buffer()->data())),
        size(tensor.size_bytes()),
        restore(std::move(restore)) {}

  std::weak_ptr<Buffer> buffer;  // expired: the entry is stale
  char* begin;
  size_t size;
  RestoreFn restore;
  int pins = 0;
  bool released = false;
  bool read_back = false;  // restored once: kept from then on

  // The whole pages inside the buffer (its edges may share pages with
  // other buffers, which stay).
  std::pair<char*, size_t> Pages() const {
    const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const uintptr_t first = (reinterpret_cast<uintptr_t>(begin) + page - 1) / page * page;
    const uintptr_t end = (reinterpret_cast<uintptr_t>(begin) + size) / page * page;
    if (end <= first) return {nullptr, 0};
    return {reinterpret_cast<char*>(first), end - first};
  }
};

// A graph constant's residency: pinned from the trace until lowering unpins
// it; the backend's release and restore go to the entry.
class ReleasableWeights::GraphResidency : public ConstantResidency {
 public:
  GraphResidency(ReleasableWeights& owner, std::shared_ptr<Entry> entry)
      : owner_(owner), entry_(std::move(entry)) {}
  ~GraphResidency() override { Unpin(); }

  absl::Status MakeResident() override {
    absl::MutexLock lock(&owner_.mu_);
    return owner_.MakeResident(*entry_);
  }
  void ReleaseIfUnread() override {
    absl::MutexLock lock(&owner_.mu_);
    owner_.ReleaseIfUnpinned(*entry_);
  }
  void Unpin() override {
    if (pinned_) owner_.Unpin(entry_);
    pinned_ = false;
  }

 private:
  ReleasableWeights& owner_;
  std::shared_ptr<Entry> entry_;
  bool pinned_ = true;  // counted by Residency()
};

ReleasableWeights& ReleasableWeights::Global() {
  static ReleasableWeights* const weights = new ReleasableWeights();
  return *weights;
}

absl::Mutex& LoweringLock() {
  static absl::Mutex* const mu = new absl::Mutex();
  return *mu;
}

void ReleasableWeights::Register(const Tensor& tensor, RestoreFn restore) {
  if (!tensor.defined() || tensor.size_bytes() < kMinBytes ||
      tensor.size_bytes() > tensor.buffer()->size_bytes()) {
    return;
  }
  absl::MutexLock lock(&mu_);
  // Entries of buffers gone go now, so that a new buffer at a reused
  // address is never mistaken for an old one.
  for (auto it = entries_.begin(); it != entries_.end();) {
    it = it->second->buffer.expired() ? entries_.erase(it) : std::next(it);
  }
  entries_[reinterpret_cast<uintptr_t>(tensor.buffer()->data())] =
      std::make_shared<Entry>(tensor, std::move(restore));
}

std::shared_ptr<ReleasableWeights::Entry> ReleasableWeights::Find(const void* address) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(address);
  auto it = entries_.upper_bound(at);
  if (it == entries_.begin()) return nullptr;
  --it;
  Entry& e = *it->second;
  if (e.buffer.expired() || at >= reinterpret_cast<uintptr_t>(e.begin) + e.size) {
    return nullptr;
  }
  return it->second;
}

absl::Status ReleasableWeights::MakeResident(Entry& entry) {
  if (!entry.released) return absl::OkStatus();
  SY_RETURN_IF_ERROR(entry.restore(entry.begin, entry.size));
  entry.released = false;
  entry.read_back = true;
  ++stats_.restored;
  stats_.released_bytes -= static_cast<int64_t>(entry.Pages().second);
  return absl::OkStatus();
}

void ReleasableWeights::ReleaseIfUnpinned(Entry& entry) {
  // A weight read back once belongs to a workload that compiles new shapes
  // (a detector over photos of many sizes): given back every time, it would
  // be read from the file again for every size. It stays.
  if (entry.pins > 0 || entry.released || entry.read_back || entry.buffer.expired()) return;
  const auto [pages, bytes] = entry.Pages();
  // Private anonymous memory reads as zeros after this: only an entry that
  // restores its bytes before any read may take it.
  if (bytes == 0 || madvise(pages, bytes, MADV_DONTNEED) != 0) return;
  entry.released = true;
  ++stats_.released;
  stats_.released_bytes += static_cast<int64_t>(bytes);
}

void ReleasableWeights::Unpin(const std::shared_ptr<Entry>& entry) {
  absl::MutexLock lock(&mu_);
  --entry->pins;
}

absl::StatusOr<std::shared_ptr<ReleasableWeights::Entry>> ReleasableWeights::PinEntry(
    const Tensor& tensor) {
  if (!tensor.defined()) return std::shared_ptr<Entry>();
  absl::MutexLock lock(&mu_);
  std::shared_ptr<Entry> entry = Find(tensor.buffer()->data());
  if (entry == nullptr) return entry;
  SY_RETURN_IF_ERROR(MakeResident(*entry));
  ++entry->pins;
  return entry;
}

absl::StatusOr<std::shared_ptr<const void>> ReleasableWeights::Pin(const Tensor& tensor) {
  SY_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry, PinEntry(tensor));
  if (entry == nullptr) return std::shared_ptr<const void>();
  return std::shared_ptr<const void>(entry.get(), [this, entry](const void*) { Unpin(entry); });
}

absl::StatusOr<std::shared_ptr<ConstantResidency>> ReleasableWeights::Residency(
    const Tensor& tensor) {
  SY_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry, PinEntry(tensor));
  if (entry == nullptr) return std::shared_ptr<ConstantResidency>();
  return std::shared_ptr<ConstantResidency>(
      std::make_shared<GraphResidency>(*this, std::move(entry)));
}

ReleasableWeights::Stats ReleasableWeights::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

}  // namespace switchyard
