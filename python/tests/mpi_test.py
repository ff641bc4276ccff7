"""switchyard.mpi_world() under `mpirun -np 2 python3 ...`: ranks, a
contiguous share of a list, gather at rank 0 and broadcast from it, the
world `mpirun -np N switchyard run` joins (runtime/mpi_world.h)."""

import os
import shutil
import subprocess
import sys

import pytest

import switchyard

RANKS = r'''
import pickle
import switchyard
w = switchyard.mpi_world()
assert w is not None and switchyard.mpi_world() is w
mine = w.share(list(range(5)))
got = w.gather(pickle.dumps((w.rank, w.size, w.local_rank, mine)))
value = w.broadcast(b"from rank 0" if w.rank == 0 else b"")
w.barrier(timeout_s=60, what="the end")
if w.rank == 0:
    print("RESULT", [pickle.loads(b) for b in got], value.decode())
else:
    assert got == [] and value == b"from rank 0"
'''


def test_a_plain_process_is_no_mpi_job():
    assert switchyard.mpi_world() is None


@pytest.mark.skipif(shutil.which("mpirun") is None or not switchyard._switchyard._mpi_built(),
                    reason="no mpirun or no MPI in this build (tools/setup.sh installs both)")
def test_two_ranks_share_gather_and_broadcast(tmp_path):
    script = tmp_path / "ranks.py"
    script.write_text(RANKS)
    env = dict(os.environ)
    # The children import the package this process imported.
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    run = subprocess.run(
        ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np", "2",
         sys.executable, str(script)],
        capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    result = [line for line in run.stdout.splitlines() if line.startswith("RESULT")]
    assert result == ["RESULT [(0, 2, 0, [0, 1, 2]), (1, 2, 1, [3, 4])] from rank 0"], run.stdout
