"""The MPI suite: each program tests/mpi/mpi_*.py runs under `mpirun -n N`
for N = 1, 2 and 4 (4 with --oversubscribe: more ranks than this machine's
cores), as a subprocess with a timeout, so that a hang fails that test and
not the whole run (tests/mpi/mpi_harness.py aborts every rank when a check
fails on one).

The suite needs an MPI build of boxfab, mpirun and mpi4py.  scripts/test.sh
installs all three and sets BOXFAB_REQUIRE_MPI=1: then a missing piece fails
the tests instead of skipping them."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import boxfab

MPI_DIR = pathlib.Path(__file__).resolve().parents[2] / "mpi"
PROGRAMS = sorted(p.name for p in MPI_DIR.glob("mpi_*.py") if p.name != "mpi_harness.py")
TIMEOUT = float(os.environ.get("BOXFAB_MPI_TIMEOUT", "300"))


def _missing():
    if not boxfab.build_info().get("mpi"):
        return "boxfab was built without MPI"
    if not shutil.which("mpirun"):
        return "mpirun is not installed"
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return "mpi4py is not installed"
    return None


def mpirun(program, nranks, env_extra=None, timeout=TIMEOUT, args=()):
    """Run tests/mpi/<program> on `nranks` ranks; return the CompletedProcess."""
    missing = _missing()
    if missing:
        if os.environ.get("BOXFAB_REQUIRE_MPI") == "1":
            pytest.fail(f"the MPI suite cannot run: {missing}")
        pytest.skip(missing)
    env = dict(os.environ)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", PYTHONUNBUFFERED="1")
    if env.get("BOXFAB_TEST_DEVICE") == "gpu":  # the GPU half: each rank uses the GPU
        env.pop("BOXFAB_DEVICE", None)
    if env.get("PYTHONPATH"):  # the programs run in tests/mpi: keep relative entries working
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep) if p)
    if env_extra:
        env.update(env_extra)
    cmd = ["mpirun", "-n", str(nranks), "--oversubscribe", sys.executable, str(MPI_DIR / program), *args]
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=str(MPI_DIR))
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"")[-4000:] if isinstance(e.stdout, bytes) else (e.stdout or "")[-4000:]
        pytest.fail(f"{program} on {nranks} ranks hung (no end after {timeout:.0f} s); output so far:\n{out}")


@pytest.mark.mpi
@pytest.mark.parametrize("nranks", [1, 2, 4])
@pytest.mark.parametrize("program", PROGRAMS)
def test_mpi_program(program, nranks):
    r = mpirun(program, nranks)
    report = f"--- stdout\n{r.stdout[-6000:]}\n--- stderr\n{r.stderr[-6000:]}"
    assert r.returncode == 0, f"{program} on {nranks} ranks failed (exit {r.returncode})\n{report}"
    assert f"checks on {nranks} ranks" in r.stdout, report


@pytest.mark.mpi
@pytest.mark.parametrize("nranks", [2, 4])
def test_review_mpi_finalized(nranks):
    """MPI.Finalize() by the script under a live instance: boxfab raises RuntimeError (it aborted the
    process), and the script ends cleanly (tests/mpi/review_mpi_finalized.py)."""
    r = mpirun("review_mpi_finalized.py", nranks, timeout=120)
    report = f"--- stdout\n{r.stdout[-6000:]}\n--- stderr\n{r.stderr[-6000:]}"
    assert r.returncode == 0, report
    assert r.stdout.count("clean end") == nranks, report
    assert r.stdout.count("fill_boundary: RuntimeError") == nranks, report
