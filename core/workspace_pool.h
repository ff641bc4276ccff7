#ifndef SWITCHYARD_CORE_WORKSPACE_POOL_H_
#define SWITCHYARD_CORE_WORKSPACE_POOL_H_

#include <cstddef>
#include <map>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/backend.h"
#include "core/buffer.h"

namespace switchyard {

// Memory that one run at a time borrows for its intermediate values, shared
// by every plan of a model (and, in a backend, by every kernel of a device).
//
// Why: a plan that owned its intermediates kept them for as long as it was
// cached, and every new input size compiled a plan whose memory was fresh:
// a detector over photos of 8 sizes held 8 sets of feature maps (7 GB) and
// paid a page fault for each 4 KiB (or a zeroed 2 MiB page) of each, more
// than the forward pass itself. Borrowed per run, the memory of the largest
// size seen so far serves every size; the same size touches nothing new.
//
// A workspace is one block per device; the borrower places its values at
// offsets in it. A request larger than every idle block replaces the largest
// idle one by a larger block, with room to grow: on a device of host memory
// twice the request (pages never touched cost neither memory nor a fault,
// and a photo a little larger than the last then fits), elsewhere an eighth
// more than asked (a GPU's allocation is real memory). Blocks come from the
// device's Allocate (its caching allocator) and go back to it when the pool
// dies.
//
//   auto pool = std::make_shared<WorkspacePool>();
//   SY_ASSIGN_OR_RETURN(Workspace ws, pool->Borrow(device, bytes));
//   ws.View(offset, n)   // a Buffer of n bytes at offset, for one tensor
//   // ~Workspace gives the block back for the next borrower.
class WorkspacePool;

class Workspace {
 public:
  Workspace() = default;
  Workspace(Workspace&& other) noexcept;
  Workspace& operator=(Workspace&& other) noexcept;
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  ~Workspace();

  bool defined() const { return block_ != nullptr; }
  void* data() const { return block_ == nullptr ? nullptr : block_->data(); }
  size_t size_bytes() const { return block_ == nullptr ? 0 : block_->size_bytes(); }
  // `bytes` at `offset` as a Buffer of the block's device. The view keeps
  // the block's memory alive, but not the borrowing: once this Workspace is
  // given back, another run may write the same bytes.
  absl::StatusOr<std::shared_ptr<Buffer>> View(size_t offset, size_t bytes) const;

 private:
  friend class WorkspacePool;
  struct Shared;
  Workspace(std::shared_ptr<Shared> pool, std::shared_ptr<Buffer> block)
      : pool_(std::move(pool)), block_(std::move(block)) {}
  void GiveBack();

  std::shared_ptr<Shared> pool_;
  std::shared_ptr<Buffer> block_;
};

class WorkspacePool {
 public:
  WorkspacePool();

  // A block of at least `bytes` (at least 1) on `device`, the caller's
  // alone until the Workspace is destroyed. The device's allocation error
  // (ResourceExhausted) otherwise.
  absl::StatusOr<Workspace> Borrow(BackendDevice& device, size_t bytes);

  // Bytes held in idle blocks (for tests and memory reports).
  size_t idle_bytes() const;

 private:
  std::shared_ptr<Workspace::Shared> shared_;
};

// Where values of `sizes` bytes go in one workspace: one after another,
// each at a multiple of kWorkspaceAlignment (what GPU libraries want of a
// pointer, and whole cache lines on the CPU). The offsets, and in *total the
// bytes to borrow; InvalidArgument when the sum overflows.
inline constexpr size_t kWorkspaceAlignment = 256;
absl::StatusOr<std::vector<size_t>> LayOutWorkspace(const std::vector<size_t>& sizes,
                                                    size_t* total);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_WORKSPACE_POOL_H_
