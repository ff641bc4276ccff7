#include "runtime/mpi_world.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "local_mpi/mpi_config.h"

#if SWITCHYARD_MPI_FOUND
// The C API only: Open MPI's and MPICH's C++ bindings (deprecated) would
// leave symbols of libmpi_cxx in every object, which a shared library such
// as the Python module cannot resolve when it loads.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace switchyard {
namespace runtime {

namespace {

// The environment variable a launcher sets in every rank, and the size it
// gives (0 when it gives none).
struct Launcher {
  const char* variable;
  bool gives_size;
};
constexpr Launcher kLaunchers[] = {
    {"OMPI_COMM_WORLD_SIZE", true},  // OpenMPI's mpirun
    {"PMI_SIZE", true},              // MPICH's hydra, Slurm's srun --mpi=pmi2
    {"PMIX_RANK", false},            // PMIx launchers (srun --mpi=pmix, prterun)
};

}  // namespace

bool LaunchedAsMpiRank() {
  for (const Launcher& l : kLaunchers) {
    const char* value = std::getenv(l.variable);
    if (value == nullptr) continue;
    int size = 0;
    // A job of one rank is a plain process.
    if (l.gives_size && absl::SimpleAtoi(value, &size) && size <= 1) return false;
    return true;
  }
  return false;
}

bool MpiBuilt() { return SWITCHYARD_MPI_FOUND != 0; }

std::string MpiMissingReason() { return SWITCHYARD_MPI_MISSING_REASON; }

#if !SWITCHYARD_MPI_FOUND

absl::StatusOr<std::unique_ptr<MpiWorld>> MpiWorld::JoinIfLaunched() {
  if (!LaunchedAsMpiRank()) return std::unique_ptr<MpiWorld>();
  return absl::FailedPreconditionError(absl::StrCat(
      "this process was started as one rank of an MPI job (mpirun or srun), but this "
      "switchyard was built without MPI, so every rank would run the whole job on its "
      "own: ", SWITCHYARD_MPI_MISSING_REASON));
}
MpiWorld::~MpiWorld() = default;
absl::Status MpiWorld::Barrier(absl::Duration, const std::string&) {
  return absl::OkStatus();
}
absl::StatusOr<std::vector<std::string>> MpiWorld::GatherAtRoot(const std::string& mine,
                                                                absl::Duration) {
  return std::vector<std::string>{mine};
}
absl::StatusOr<std::string> MpiWorld::BroadcastFromRoot(const std::string& value,
                                                        absl::Duration) {
  return value;
}
void MpiWorld::Abort(const std::string& message, int code) {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::exit(code);
}

#else  // SWITCHYARD_MPI_FOUND

namespace {

constexpr int kSizeTag = 7301;
constexpr int kDataTag = 7302;
// MPI counts are ints: larger buffers go in pieces of this size.
constexpr int64_t kChunkBytes = int64_t{1} << 30;

absl::Status MpiError(int code, const std::string& what) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return absl::InternalError(absl::StrCat(what, ": MPI error: ", std::string(text, length)));
}

// Polls `requests` until all are complete or `timeout` has passed. On the
// deadline, `late(indices)` says what the pending requests were waiting for.
// Polling (not MPI_Waitall) is what makes the wait bounded.
absl::Status WaitAll(std::vector<MPI_Request>& requests, absl::Duration timeout,
                     const std::function<std::string(const std::vector<size_t>&)>& late) {
  const absl::Time deadline = absl::Now() + timeout;
  auto pause = std::chrono::microseconds(50);
  while (true) {
    std::vector<size_t> pending;
    for (size_t i = 0; i < requests.size(); ++i) {
      if (requests[i] == MPI_REQUEST_NULL) continue;
      int done = 0;
      const int rc = MPI_Test(&requests[i], &done, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) return MpiError(rc, "waiting for the other ranks");
      if (!done) pending.push_back(i);
    }
    if (pending.empty()) return absl::OkStatus();
    if (timeout != absl::InfiniteDuration() && absl::Now() > deadline) {
      return absl::DeadlineExceededError(late(pending));
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(5000));
  }
}

// Requests that receive or send `bytes` in pieces MPI's int counts can hold.
absl::Status PostChunks(char* data, int64_t bytes, int peer, bool send,
                        std::vector<MPI_Request>& requests) {
  for (int64_t offset = 0; offset < bytes; offset += kChunkBytes) {
    const int count = static_cast<int>(std::min(kChunkBytes, bytes - offset));
    MPI_Request request;
    const int rc = send ? MPI_Isend(data + offset, count, MPI_BYTE, peer, kDataTag,
                                    MPI_COMM_WORLD, &request)
                        : MPI_Irecv(data + offset, count, MPI_BYTE, peer, kDataTag,
                                    MPI_COMM_WORLD, &request);
    if (rc != MPI_SUCCESS) return MpiError(rc, send ? "sending to rank 0" : "receiving");
    requests.push_back(request);
  }
  return absl::OkStatus();
}

std::string Seconds(absl::Duration d) {
  return absl::StrCat(absl::ToDoubleSeconds(d), " s");
}

}  // namespace

absl::StatusOr<std::unique_ptr<MpiWorld>> MpiWorld::JoinIfLaunched() {
  if (!LaunchedAsMpiRank()) return std::unique_ptr<MpiWorld>();
  int provided = 0;
  // Only the main thread calls MPI; the backends' own threads never do.
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    return absl::UnavailableError("MPI_Init_thread failed: the MPI job could not start");
  }
  // Errors come back as codes (turned into statuses), not as aborts.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  std::unique_ptr<MpiWorld> world(new MpiWorld());
  MPI_Comm_rank(MPI_COMM_WORLD, &world->rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &world->size_);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world->rank_, MPI_INFO_NULL,
                      &local);
  MPI_Comm_rank(local, &world->local_rank_);
  MPI_Comm_size(local, &world->local_size_);
  MPI_Comm_free(&local);
  char name[MPI_MAX_PROCESSOR_NAME];
  int length = 0;
  MPI_Get_processor_name(name, &length);
  world->host_.assign(name, length);
  return world;
}

MpiWorld::~MpiWorld() { MPI_Finalize(); }

std::string MpiWorld::TimeoutName() const {
  return timeout_name_.empty() ? "the timeout" : absl::StrCat("the timeout, ", timeout_name_);
}

absl::Status MpiWorld::Barrier(absl::Duration timeout, const std::string& what) {
  MPI_Request request;
  const int rc = MPI_Ibarrier(MPI_COMM_WORLD, &request);
  if (rc != MPI_SUCCESS) return MpiError(rc, what);
  std::vector<MPI_Request> requests = {request};
  return WaitAll(requests, timeout, [&](const std::vector<size_t>&) {
    return absl::StrCat("rank ", rank_, " waited ", Seconds(timeout), " for the other ranks ",
                        what, " (", TimeoutName(), "); at least one of them is stuck or far behind");
  });
}

absl::StatusOr<std::vector<std::string>> MpiWorld::GatherAtRoot(const std::string& mine,
                                                                absl::Duration timeout) {
  if (rank_ != 0) {
    int64_t bytes = static_cast<int64_t>(mine.size());
    std::vector<MPI_Request> requests(1);
    int rc = MPI_Isend(&bytes, 1, MPI_INT64_T, 0, kSizeTag, MPI_COMM_WORLD, &requests[0]);
    if (rc != MPI_SUCCESS) return MpiError(rc, "sending to rank 0");
    if (absl::Status s = PostChunks(const_cast<char*>(mine.data()), bytes, 0, true, requests);
        !s.ok()) {
      return s;
    }
    absl::Status s = WaitAll(requests, timeout, [&](const std::vector<size_t>&) {
      return absl::StrCat("rank ", rank_, " could not hand its results to rank 0 within ",
                          Seconds(timeout), " (", TimeoutName(), "): rank 0 is stuck or gone");
    });
    if (!s.ok()) return s;
    return std::vector<std::string>();
  }
  std::vector<std::string> all(size_);
  all[0] = mine;
  std::vector<int64_t> sizes(size_, -1);
  std::vector<MPI_Request> size_requests(size_, MPI_REQUEST_NULL);
  for (int r = 1; r < size_; ++r) {
    const int rc = MPI_Irecv(&sizes[r], 1, MPI_INT64_T, r, kSizeTag, MPI_COMM_WORLD,
                             &size_requests[r]);
    if (rc != MPI_SUCCESS) return MpiError(rc, absl::StrCat("receiving from rank ", r));
  }
  const absl::Time deadline = absl::Now() + timeout;
  const auto ranks_of = [](const std::vector<size_t>& pending,
                           const std::vector<int>& owner) {
    std::vector<int> ranks;
    for (size_t i : pending) {
      if (ranks.empty() || ranks.back() != owner[i]) ranks.push_back(owner[i]);
    }
    return absl::StrJoin(ranks, ", ");
  };
  std::vector<int> size_owner(size_);
  for (int r = 0; r < size_; ++r) size_owner[r] = r;
  absl::Status s = WaitAll(size_requests, timeout, [&](const std::vector<size_t>& pending) {
    return absl::StrCat("rank(s) ", ranks_of(pending, size_owner), " did not finish within ",
                        Seconds(timeout), " of rank 0 (", TimeoutName(), "): stuck, or far "
                        "slower than the others");
  });
  if (!s.ok()) return s;
  std::vector<MPI_Request> data_requests;
  std::vector<int> data_owner;
  for (int r = 1; r < size_; ++r) {
    if (sizes[r] < 0) return absl::InternalError(absl::StrCat("rank ", r, " sent a negative size"));
    all[r].resize(static_cast<size_t>(sizes[r]));
    const size_t before = data_requests.size();
    if (absl::Status p = PostChunks(all[r].data(), sizes[r], r, false, data_requests); !p.ok()) {
      return p;
    }
    data_owner.insert(data_owner.end(), data_requests.size() - before, r);
  }
  const absl::Duration left = std::max(deadline - absl::Now(), absl::Seconds(10));
  s = WaitAll(data_requests, left, [&](const std::vector<size_t>& pending) {
    return absl::StrCat("the results of rank(s) ", ranks_of(pending, data_owner),
                        " did not arrive within ", Seconds(timeout), " (", TimeoutName(), ")");
  });
  if (!s.ok()) return s;
  return all;
}

absl::StatusOr<std::string> MpiWorld::BroadcastFromRoot(const std::string& value,
                                                        absl::Duration timeout) {
  int64_t bytes = rank_ == 0 ? static_cast<int64_t>(value.size()) : 0;
  const auto late = [&](const std::vector<size_t>&) {
    return absl::StrCat("rank ", rank_, " waited ", Seconds(timeout),
                        " for rank 0's value (", TimeoutName(), "): rank 0 is stuck or gone");
  };
  std::vector<MPI_Request> requests(1);
  int rc = MPI_Ibcast(&bytes, 1, MPI_INT64_T, 0, MPI_COMM_WORLD, &requests[0]);
  if (rc != MPI_SUCCESS) return MpiError(rc, "the verdict from rank 0");
  if (absl::Status s = WaitAll(requests, timeout, late); !s.ok()) return s;
  std::string out = rank_ == 0 ? value : std::string(static_cast<size_t>(bytes), '\0');
  requests.clear();
  for (int64_t offset = 0; offset < bytes; offset += kChunkBytes) {
    const int count = static_cast<int>(std::min(kChunkBytes, bytes - offset));
    MPI_Request request;
    rc = MPI_Ibcast(out.data() + offset, count, MPI_BYTE, 0, MPI_COMM_WORLD, &request);
    if (rc != MPI_SUCCESS) return MpiError(rc, "the verdict from rank 0");
    requests.push_back(request);
  }
  if (absl::Status s = WaitAll(requests, timeout, late); !s.ok()) return s;
  return out;
}

void MpiWorld::Abort(const std::string& message, int code) {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);  // MPI_Abort does not return; this keeps [[noreturn]] honest
}

#endif  // SWITCHYARD_MPI_FOUND

}  // namespace runtime
}  // namespace switchyard
