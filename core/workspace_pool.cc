#include "core/workspace_pool.h"

#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/shared_memory.h"
#include "core/status_macros.h"

namespace switchyard {

// The pool's state, shared with every Workspace it lent, so a workspace may
// outlive the pool object (it then frees its block when destroyed).
struct Workspace::Shared {
  mutable absl::Mutex mu;
  std::map<BackendDevice*, std::vector<std::shared_ptr<Buffer>>> idle ABSL_GUARDED_BY(mu);
};

Workspace::Workspace(Workspace&& other) noexcept
    : pool_(std::move(other.pool_)), block_(std::move(other.block_)) {}

Workspace& Workspace::operator=(Workspace&& other) noexcept {
  if (this != &other) {
    GiveBack();
    pool_ = std::move(other.pool_);
    block_ = std::move(other.block_);
  }
  return *this;
}

Workspace::~Workspace() { GiveBack(); }

void Workspace::GiveBack() {
  if (pool_ != nullptr && block_ != nullptr) {
    absl::MutexLock lock(&pool_->mu);
    pool_->idle[&block_->owner()].push_back(std::move(block_));
  }
  pool_.reset();
  block_.reset();
}

absl::StatusOr<std::shared_ptr<Buffer>> Workspace::View(size_t offset, size_t bytes) const {
  if (block_ == nullptr || offset > block_->size_bytes() ||
      bytes > block_->size_bytes() - offset) {
    return absl::InternalError(absl::StrCat("a view of ", bytes, " bytes at offset ", offset,
                                            " does not fit a workspace of ", size_bytes(),
                                            " bytes"));
  }
  return ViewOf(block_, block_->owner(), offset, bytes);
}

WorkspacePool::WorkspacePool() : shared_(std::make_shared<Workspace::Shared>()) {}

absl::StatusOr<Workspace> WorkspacePool::Borrow(BackendDevice& device, size_t bytes) {
  if (bytes == 0) bytes = 1;
  std::shared_ptr<Buffer> replaced;  // freed outside the lock
  // Room to grow (see the header) when growing, and always on host memory,
  // which is reserved, not touched.
  bool with_room = device.host_memory();
  {
    absl::MutexLock lock(&shared_->mu);
    std::vector<std::shared_ptr<Buffer>>& idle = shared_->idle[&device];
    int best = -1, largest = -1;
    for (int i = 0; i < static_cast<int>(idle.size()); ++i) {
      const size_t size = idle[i]->size_bytes();
      if (size >= bytes && (best < 0 || size < idle[best]->size_bytes())) best = i;
      if (largest < 0 || size > idle[largest]->size_bytes()) largest = i;
    }
    if (best >= 0) {
      std::shared_ptr<Buffer> block = std::move(idle[best]);
      idle.erase(idle.begin() + best);
      return Workspace(shared_, std::move(block));
    }
    if (largest >= 0) {
      // Growing: the next slightly larger size then fits this block too.
      replaced = std::move(idle[largest]);
      idle.erase(idle.begin() + largest);
      with_room = true;
    }
  }
  replaced.reset();
  const size_t room = device.host_memory() ? bytes : bytes / 8;
  const size_t new_bytes = with_room && bytes <= std::numeric_limits<size_t>::max() - room
                               ? bytes + room
                               : bytes;
  SY_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> block, device.Allocate(new_bytes));
  return Workspace(shared_, std::move(block));
}

size_t WorkspacePool::idle_bytes() const {
  absl::MutexLock lock(&shared_->mu);
  size_t total = 0;
  for (const auto& [device, blocks] : shared_->idle) {
    for (const std::shared_ptr<Buffer>& block : blocks) total += block->size_bytes();
  }
  return total;
}

absl::StatusOr<std::vector<size_t>> LayOutWorkspace(const std::vector<size_t>& sizes,
                                                    size_t* total) {
  constexpr size_t kMax = std::numeric_limits<size_t>::max();
  std::vector<size_t> offsets;
  offsets.reserve(sizes.size());
  size_t end = 0;
  for (size_t bytes : sizes) {
    const size_t rounded = (end + kWorkspaceAlignment - 1) / kWorkspaceAlignment *
                           kWorkspaceAlignment;
    if (end > kMax - kWorkspaceAlignment || bytes > kMax - rounded) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the intermediate values of a plan overflow the address space (", sizes.size(),
          " values); the input shapes are too large"));
    }
    offsets.push_back(rounded);
    end = rounded + bytes;
  }
  *total = end;
  return offsets;
}

}  // namespace switchyard
