"""initialize() / finalize() print AMReX's verbose lines.

AMReX's answer (AMReX_AMReX.cpp): system::verbose starts at 1 and Initialize
does not reset it; Initialize reads ParmParse("amrex").query("verbose", "v"),
so "amrex.verbose" (else "amrex.v") sets it and the value stays for later
instances; with verbose > 0 Initialize prints "Initializing AMReX (<version>)...",
in MPI builds "MPI initialized with N MPI processes" (boxfab has no MPI), in
OpenMP builds "OMP initialized with N OMP threads" (N = omp_get_max_threads())
and, on ErrorStream, "AMReX Warning: You might be oversubscribing CPU cores
with OMP threads." when the cores are fewer than the threads, with a GPU
"Initializing CUDA..." and "CUDA initialized with 1 device."
(AMReX_GpuDevice.cpp, Device::Initialize), then "AMReX (<version>)
initialized"; every Finalize ends with "AMReX (<version>) finalized" when
verbose > 0 at that time.  boxfab prints "boxfab <its version>" where AMReX
prints its version.  Each scenario runs in a fresh interpreter (the verbosity
is process-wide) with a block-buffered stdout, so the lines must keep their
place among print()'s."""
import os
import subprocess
import sys
import textwrap

import pytest

import boxfab

V = boxfab.__version__
OPENMP = boxfab.build_info()["openmp"]


def run(code, threads=1, **env_extra):
    # BOXFAB_DEVICE=cpu: no GPU lines, whatever the machine (test_gpu_lines sets it to auto)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), BOXFAB_DEVICE="cpu")
    env.update(env_extra)
    env.pop("PYTHONUNBUFFERED", None)
    if env.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep) if p)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=60,
                       env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def init_lines(threads=1, gpu=False):
    lines = [f"Initializing AMReX (boxfab {V})..."]
    if OPENMP:
        lines.append(f"OMP initialized with {threads} OMP threads")
    if gpu:
        lines += ["Initializing CUDA...", "CUDA initialized with 1 device."]
    return lines + [f"AMReX (boxfab {V}) initialized"]


FINALIZED = f"AMReX (boxfab {V}) finalized"


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_default_verbosity_is_amrex_s_and_prints_in_place(dim):
    r = run(f"""
        import boxfab.space{dim}d as amr
        print("verbose", amr.Config.verbose)
        print("before")
        rt = amr.initialize([])
        print("inside")
        amr.finalize()
        print("after")
    """)
    assert r.stdout.splitlines() == ["verbose 1", "before", *init_lines(), "inside", FINALIZED, "after"]
    assert r.stderr == ""


def test_explicit_verbose_1_and_the_context_manager():
    r = run("""
        import boxfab.space3d as amr
        with amr.initialize(["amrex.verbose=1", "n_cell=8"]):
            print("inside")
        print("after")
    """)
    # n_cell was never read: AMReX lists it at finalize
    unused = ["Unused ParmParse Variables:", "  [TOP]::n_cell(nvals = 1)  :: [8]", ""]
    assert r.stdout.splitlines() == [*init_lines(), "inside", *unused, FINALIZED, "after"]


def test_verbose_0_is_quiet_and_stays():
    r = run("""
        import boxfab.space3d as amr
        amr.initialize(["amrex.verbose=0"])
        amr.finalize()
        amr.initialize([])           # AMReX keeps system::verbose between instances
        print(amr.Config.verbose)
        amr.finalize()
    """)
    assert r.stdout.splitlines() == ["0"]


def test_amrex_v_is_the_alias_and_amrex_verbose_wins():
    r = run("""
        import boxfab.space3d as amr
        with amr.initialize(["amrex.v=0"]):
            print("quiet", amr.Config.verbose)
        with amr.initialize(["amrex.v=2"]):
            print("loud", amr.Config.verbose)
        with amr.initialize(["amrex.v=0", "amrex.verbose=1"]):
            print("verbose wins", amr.Config.verbose)
    """)
    # with amrex.verbose given, AMReX never reads its alias amrex.v: listed as unused
    unused = ["Unused ParmParse Variables:", "  [TOP]::amrex.v(nvals = 1)  :: [0]", ""]
    assert r.stdout.splitlines() == ["quiet 0", *init_lines(), "loud 2", FINALIZED,
                                     *init_lines(), "verbose wins 1", *unused, FINALIZED]


def test_config_verbose_decides_at_each_call_and_nested_instances_each_print():
    r = run("""
        import boxfab.space3d as amr
        a = amr.initialize([])
        b = amr.initialize([])       # every Initialize prints
        print("two")
        amr.finalize(b)              # every Finalize prints
        amr.Config.verbose = 0
        amr.finalize(a)              # verbose 0 at this time: quiet
        amr.Config.verbose = 1
        amr.initialize([]); amr.finalize()
    """)
    assert r.stdout.splitlines() == [*init_lines(), *init_lines(), "two", FINALIZED, *init_lines(), FINALIZED]


def test_a_failed_initialize_prints_nothing():
    r = run("""
        import boxfab.space3d as amr
        try:
            amr.initialize(["amrex.verbose=loud"])
        except ValueError:
            print("ValueError")
        print(amr.initialized())
    """)
    assert r.stdout.splitlines() == ["ValueError", "False"]


@pytest.mark.skipif(not OPENMP, reason="an OpenMP build prints the OMP line and the oversubscription warning")
def test_omp_threads_and_the_oversubscription_warning():
    cores = os.sysconf("SC_NPROCESSORS_ONLN")
    r = run("""
        import boxfab.space3d as amr
        amr.initialize([]); amr.finalize()
    """, threads=cores)
    assert r.stdout.splitlines() == [*init_lines(cores), FINALIZED]
    assert r.stderr == ""
    r = run("""
        import boxfab.space3d as amr
        amr.initialize([]); amr.finalize()
    """, threads=cores + 1)
    assert r.stdout.splitlines() == [*init_lines(cores + 1), FINALIZED]
    assert r.stderr.splitlines() == [
        "AMReX Warning: You might be oversubscribing CPU cores with OMP threads.",
        f"               There are {cores} cores per node.",
        f"               But OMP is initialized with {cores + 1} threads per process.",
        f"               You should consider setting OMP_NUM_THREADS={cores} or less in the environment."]


@pytest.mark.gpu
def test_gpu_lines():
    r = run("""
        import boxfab.space3d as amr
        amr.initialize([]); amr.finalize()
    """, BOXFAB_DEVICE="auto")
    assert r.stdout.splitlines() == [*init_lines(gpu=True), FINALIZED]
