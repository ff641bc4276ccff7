// switchyard.mpi_world(): the MPI job a Python process belongs to when
// `mpirun -np N python3 script.py` started it (runtime/mpi_world.h, the same
// world `mpirun -np N switchyard run` joins), so a script can split its
// work by rank and merge at rank 0 as the command does.
//
//   world = switchyard.mpi_world()          # None in a plain process
//   mine = world.share(files)               # this rank's contiguous share
//   results = world.gather(pickle.dumps(r)) # every rank's bytes at rank 0

#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "python/registration.h"
#include "python/status.h"
#include "runtime/mpi_world.h"
#include "runtime/replicas.h"

namespace switchyard {
namespace python {

namespace py = pybind11;

namespace {

// The job, joined once (MPI allows one MPI_Init per process) and left at
// interpreter exit (the package registers _leave_mpi with atexit).
std::unique_ptr<runtime::MpiWorld>& World() {
  static auto* world = new std::unique_ptr<runtime::MpiWorld>;
  return *world;
}

absl::Duration Seconds(double seconds) {
  if (!(seconds > 0) || seconds > 86400) {
    throw StatusError(absl::InvalidArgumentError(
        "timeout_s must be more than 0 and at most 86400 seconds"));
  }
  return absl::Seconds(seconds);
}

}  // namespace

void RegisterMpi(py::module_& m) {
  py::class_<runtime::MpiWorld>(m, "MpiWorld",
                                "The MPI job this process is a rank of (switchyard.mpi_world()).")
      .def_property_readonly("rank", &runtime::MpiWorld::rank)
      .def_property_readonly("size", &runtime::MpiWorld::size)
      .def_property_readonly("local_rank", &runtime::MpiWorld::local_rank,
                             "this rank's number among the ranks on its host (picks its GPU)")
      .def_property_readonly("local_size", &runtime::MpiWorld::local_size)
      .def_property_readonly("host", &runtime::MpiWorld::host)
      .def(
          "barrier",
          [](runtime::MpiWorld& w, double timeout_s, const std::string& what) {
            const absl::Duration timeout = Seconds(timeout_s);
            py::gil_scoped_release nogil;
            ThrowIfError(w.Barrier(timeout, what));
          },
          py::arg("timeout_s") = 600.0, py::arg("what") = "the barrier",
          "Waits for every rank, or DeadlineExceededError naming `what`.")
      .def(
          "gather",
          [](runtime::MpiWorld& w, const py::bytes& mine, double timeout_s) {
            const absl::Duration timeout = Seconds(timeout_s);
            const std::string bytes = mine;
            absl::StatusOr<std::vector<std::string>> all;
            {
              py::gil_scoped_release nogil;
              all = w.GatherAtRoot(bytes, timeout);
            }
            py::list out;
            for (const std::string& b : ValueOrThrow(std::move(all))) out.append(py::bytes(b));
            return out;
          },
          py::arg("mine"), py::arg("timeout_s") = 600.0,
          "Every rank's bytes at rank 0, in rank order ([] on the other ranks).")
      .def(
          "broadcast",
          [](runtime::MpiWorld& w, const py::bytes& value, double timeout_s) {
            const absl::Duration timeout = Seconds(timeout_s);
            const std::string bytes = value;
            absl::StatusOr<std::string> got;
            {
              py::gil_scoped_release nogil;
              got = w.BroadcastFromRoot(bytes, timeout);
            }
            return py::bytes(ValueOrThrow(std::move(got)));
          },
          py::arg("value"), py::arg("timeout_s") = 600.0,
          "Rank 0's bytes on every rank.")
      .def(
          "share",
          [](const runtime::MpiWorld& w, const py::sequence& items) {
            // Contiguous shares, the first len % size ranks one item more,
            // as `switchyard run --images` splits its files.
            const runtime::BatchSlice mine = runtime::SplitBatch(
                static_cast<int64_t>(py::len(items)), w.size())[w.rank()];
            py::list out;
            for (int64_t i = mine.offset; i < mine.offset + mine.count; ++i) {
              out.append(items[static_cast<size_t>(i)]);
            }
            return out;
          },
          py::arg("items"), "This rank's contiguous share of `items`.");
  m.def(
      "_join_mpi",
      []() -> runtime::MpiWorld* {
        if (World() == nullptr) {
          World() = ValueOrThrow(runtime::MpiWorld::JoinIfLaunched());
          if (World() != nullptr) World()->set_timeout_name("timeout_s");
        }
        return World().get();
      },
      py::return_value_policy::reference);
  m.def("_leave_mpi", [] { World().reset(); });
  m.def("_mpi_built", &runtime::MpiBuilt);
}

}  // namespace python
}  // namespace switchyard
