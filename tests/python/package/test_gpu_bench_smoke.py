"""benchmarks/gpu_bench.py (issue 4, item 8), run small in a subprocess.

Without a GPU (or with BOXFAB_DEVICE=cpu, as in the CPU half of the suite) the script must
say why it skipped and exit 0; its --cpu dry run (NumPy on host memory) runs the whole
script here, checks included, and a deliberately wrong result (--corrupt OP) must fail
the run.  test_gpu_run_small (marked gpu) runs the real GPU path with tiny sizes in the
GPU half on the device machine."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SCRIPT = os.path.join(ROOT, "benchmarks", "gpu_bench.py")
OPS = ["set_val", "plus", "mult", "saxpy", "lin_comb", "copy", "sum", "norm2", "min", "max", "dot", "fill_boundary"]


def run_bench(tmp_path, *args):
    env = dict(os.environ, PYTHONUNBUFFERED="1", OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
    if env.get("PYTHONPATH"):  # the child runs elsewhere: make the entries absolute
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep) if p)
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=300, env=env,
                          cwd=tmp_path)


def gpu_in_use():
    import boxfab.space3d as amr
    if not amr.Config.have_gpu:
        return False
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def assert_table(out, boxes):
    for box in boxes:
        assert re.search(rf"^\d+\^3 doubles, {box}\^3 boxes", out, re.M), out
    for op in OPS:  # one row per op and box size, with a verdict
        rows = re.findall(rf"^  {op} +[0-9.]+ .*(PASS|MISS)", out, re.M)
        assert len(rows) == len(boxes), (op, out)
    assert re.search(r"overhead over the baseline +-?[0-9.]+ us/box +target < 2 +(PASS|MISS)", out), out
    assert "checks passed (0 failed)" in out, out


def test_default_run_exits_0(tmp_path):
    r = run_bench(tmp_path, "--n", "64", "--box", "32", "--repeat", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    if gpu_in_use():
        assert_table(r.stdout, [32])
        assert "CHECK FAILED" not in r.stdout
    else:
        assert r.stdout.startswith("gpu_bench.py: skipped: "), r.stdout
        assert "Config.have_gpu is False" in r.stdout or "CuPy" in r.stdout, r.stdout


@pytest.mark.gpu
def test_gpu_run_small(tmp_path):
    """The real thing with tiny sizes (the GPU half of the suite: BOXFAB_TEST_DEVICE=gpu)."""
    r = run_bench(tmp_path, "--n", "64", "--box", "32,16", "--repeat", "1", "--batch", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    assert_table(r.stdout, [32, 16])
    assert "CHECK FAILED" not in r.stdout
    r = run_bench(tmp_path, "--n", "32", "--box", "16", "--repeat", "1", "--batch", "1", "--corrupt", "saxpy")
    assert r.returncode == 1 and "saxpy: 1 cells differ" in r.stdout, r.stdout + r.stderr


def test_cpu_dry_run_runs_everything(tmp_path):
    r = run_bench(tmp_path, "--cpu", "--n", "32", "--box", "16,8", "--repeat", "1", "--batch", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    assert_table(r.stdout, [16, 8])
    assert "64 boxes of 8^3" in r.stdout  # the per-box section uses the smallest box size
    assert "dry run" in r.stdout


@pytest.mark.parametrize("op", OPS)
def test_a_wrong_result_fails_the_run(tmp_path, op):
    r = run_bench(tmp_path, "--cpu", "--n", "16", "--box", "8", "--repeat", "1", "--batch", "1", "--corrupt", op)
    assert r.returncode == 1, r.stdout + r.stderr
    failed = re.findall(r"CHECK FAILED: 8\^3 (?:before|after) timing: (\w+)", r.stdout)
    assert failed and set(failed) == {op}, r.stdout
    assert "checks FAILED" in r.stdout


def test_strict_exits_3_on_a_miss(tmp_path):
    # the dry run's numbers miss the GPU targets (a 16^3 MultiFab on the CPU is far from memcpy speed)
    r = run_bench(tmp_path, "--cpu", "--n", "16", "--box", "8", "--repeat", "1", "--batch", "1", "--strict")
    assert "checks passed" in r.stdout, r.stdout + r.stderr
    missed = int(re.search(r"targets: (\d+) missed", r.stdout).group(1))
    assert r.returncode == (3 if missed else 0), r.stdout


@pytest.mark.parametrize("args, msg", [
    (["--n", "60", "--box", "32"], "divide n = 60"),
    (["--box", "a,b"], "comma-separated integers"),
    (["--repeat", "0"], "must be positive"),
])
def test_bad_arguments(tmp_path, args, msg):
    r = run_bench(tmp_path, *args)
    assert r.returncode == 2 and msg in r.stderr, r.stdout + r.stderr
