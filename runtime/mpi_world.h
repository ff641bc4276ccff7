#ifndef SWITCHYARD_RUNTIME_MPI_WORLD_H_
#define SWITCHYARD_RUNTIME_MPI_WORLD_H_

// The MPI job a `switchyard` process belongs to when `mpirun -np N` (or
// Slurm's srun with PMIx) started it: its rank, where it runs, and the few
// collectives the front ends need to merge what the ranks did. Every wait has a
// deadline, so a rank that hangs ends the job with its name instead of
// hanging every other rank. Built on MPI where the build found it
// (tools/mpi_configure.bzl); elsewhere a process started by mpirun is told
// how to get it, and a plain process is a world of one.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace switchyard {
namespace runtime {

// Whether a launcher of MPI jobs started this process (mpirun's
// OMPI_COMM_WORLD_SIZE, PMIx's PMIX_RANK, Slurm's PMI_SIZE).
bool LaunchedAsMpiRank();

// Whether this build can run as an MPI rank, and if not, why and how to fix
// it (for `switchyard devices` and help).
bool MpiBuilt();
std::string MpiMissingReason();

class MpiWorld {
 public:
  // Joins the job (MPI_Init_thread) when LaunchedAsMpiRank(), else null: a
  // plain process. FailedPrecondition when mpirun started this process but
  // the build has no MPI (N copies would each run the whole job).
  static absl::StatusOr<std::unique_ptr<MpiWorld>> JoinIfLaunched();
  ~MpiWorld();  // MPI_Finalize
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // This rank's number among the ranks on its host (picks its GPU), and how
  // many ranks share that host (share its CPU cores).
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  const std::string& host() const { return host_; }

  // How the front end names the timeouts below, for their errors: the
  // command line's "--rank-timeout", Python's "timeout_s".
  void set_timeout_name(std::string name) { timeout_name_ = std::move(name); }

  // Waits for every rank to reach this point, or DeadlineExceeded naming
  // `what` and the timeout.
  absl::Status Barrier(absl::Duration timeout, const std::string& what);

  // Every rank's `mine` at rank 0, in rank order (other ranks get an empty
  // vector). Rank 0 waits at most `timeout` for the others: past it,
  // DeadlineExceeded naming every rank that has not sent. Each rank's bytes
  // may be of any size.
  absl::StatusOr<std::vector<std::string>> GatherAtRoot(const std::string& mine,
                                                        absl::Duration timeout);

  // Rank 0's `value` on every rank; other ranks wait at most `timeout`.
  absl::StatusOr<std::string> BroadcastFromRoot(const std::string& value,
                                                absl::Duration timeout);

  // Ends every rank of the job now (MPI_Abort), after printing `message`.
  [[noreturn]] void Abort(const std::string& message, int code);

 private:
  MpiWorld() = default;
  // "the timeout" plus the front end's name for it, in parentheses.
  std::string TimeoutName() const;

  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  std::string host_;
  std::string timeout_name_;
};

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_MPI_WORLD_H_
