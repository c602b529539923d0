"""The heat example's two stencil paths (one kernel over the stacked view of every box, and box by
box) and benchmarks/heat_gpu.py, run small in subprocesses.  On the CPU the stacked path is one
NumPy expression over mf.to_numpy_stacked(); the GPU tests (marked gpu) run the CuPy RawKernel."""
import os
import re

import pytest

from test_examples import run_example, run_script

gpu = pytest.mark.gpu
BENCH = os.path.join("benchmarks", "heat_gpu.py")
SMALL = ("--n", "16", "--max-grid", "8", "--steps", "6", "--print-every", "2", "--png", "", "--plotfile", "")


def numbers(out):
    """The printed results: progress lines and the amplitude, which must not depend on the path."""
    return re.findall(r"^step .*$", out, re.M) + re.findall(r"measured [0-9.]+", out)


def run_paths(tmp_path, *extra):
    outs = {}
    for path in ("stacked", "boxes"):
        r = run_example(tmp_path, *SMALL, "--path", path, *extra)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "checks: passed" in r.stdout
        outs[path] = r.stdout
    return outs


def test_heat_paths_agree_bit_for_bit(tmp_path):
    outs = run_paths(tmp_path)
    assert "stencil: one kernel over all boxes per step (stacked view)" in outs["stacked"]
    assert "stencil: box by box" in outs["boxes"]
    assert len(numbers(outs["stacked"])) == 4 and numbers(outs["stacked"]) == numbers(outs["boxes"])


def test_heat_stacked_needs_boxes_of_one_shape(tmp_path):
    r = run_example(tmp_path, "--n", "24", "--max-grid", "16", "--steps", "2", "--png", "", "--plotfile", "",
                    "--path", "stacked")
    assert r.returncode != 0
    assert "ValueError" in r.stderr and "box 1 (local 1) is 8x16x16" in r.stderr and "max_grid_size" in r.stderr
    r = run_example(tmp_path, "--n", "24", "--max-grid", "16", "--steps", "2", "--png", "", "--plotfile", "")
    assert r.returncode == 0 and "stencil: box by box" in r.stdout and "checks: passed" in r.stdout


def test_heat_path_from_the_environment(tmp_path):
    r = run_example(tmp_path, *SMALL, HEAT_PATH="stacked")
    assert r.returncode == 0 and "(stacked view)" in r.stdout, r.stdout + r.stderr
    r = run_example(tmp_path, *SMALL, "--path", "sideways")
    assert r.returncode == 2 and "invalid choice" in r.stderr


def bench_table(out):
    rates = {k: float(v) for k, v in re.findall(r"^  \((a|b|c)\) .*? +([0-9.]+) +[0-9.]+$", out, re.M)}
    assert set(rates) == {"a", "b", "c"}, out
    m = re.search(r"^  \(a\)/\(c\) = ([0-9.]+) +target >= 0.8 +(PASS|MISS)$", out, re.M)
    assert m and abs(float(m.group(1)) - rates["a"] / rates["c"]) < 0.01 + 0.01 * float(m.group(1)), out
    assert re.search(r"^  \(a\)/\(b\) = [0-9.]+$", out, re.M), out
    assert len(re.findall(r"^check: \((a|b)\) .* against \(c\) after \d+ steps: .*: ok$", out, re.M)) == 2, out
    assert "checks passed (0 failed)" in out, out
    return rates


def test_heat_bench_on_the_cpu(tmp_path):
    r = run_script(tmp_path, BENCH, "--cpu", "--n", "32", "--box", "8", "--steps", "2", "--loop-steps", "1",
                   "--repeat", "1", "--check-steps", "3")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("heat step, 32^3 doubles, 8^3 boxes (64 boxes, 1 ghost layer), CPU (NumPy")
    bench_table(r.stdout)
    assert "bitwise equal" in r.stdout  # the same operations in the same order
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("args", [["--n", "30", "--box", "8"], ["--steps", "0"], ["--box", "0"]])
def test_heat_bench_bad_arguments(tmp_path, args):
    r = run_script(tmp_path, BENCH, "--cpu", *args)
    assert r.returncode == 2 and r.stderr.startswith("usage: heat_gpu.py"), r.stdout + r.stderr


@gpu
def test_heat_bench_on_the_gpu(tmp_path):
    r = run_script(tmp_path, BENCH, "--n", "64", "--box", "16", "--steps", "3", "--loop-steps", "1",
                   "--repeat", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "GPU (CuPy" in r.stdout
    bench_table(r.stdout)


@gpu
def test_heat_example_stacked_kernel_on_the_gpu(tmp_path):
    outs = run_paths(tmp_path)
    assert "one kernel over all boxes per step (stacked view) on the GPU" in outs["stacked"]
    assert numbers(outs["stacked"]) == numbers(outs["boxes"])
    r = run_example(tmp_path, *SMALL)  # auto: stacked on a GPU
    assert r.returncode == 0 and "(stacked view) on the GPU" in r.stdout, r.stdout + r.stderr
