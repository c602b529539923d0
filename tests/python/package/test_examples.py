"""The examples and benchmarks as a user runs them, in subprocesses: every one
answers --help (argparse, exit 0); the README's main job,
examples/heat_equation.py, and examples/domain_summary.py run small."""
import glob
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


SCRIPTS = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "examples", "*.py"))
                 + glob.glob(os.path.join(ROOT, "benchmarks", "*.py")))


def run_script(tmp_path, script, *args, **env_extra):
    # the same boxfab as the tests (the installed package, or PYTHONPATH's)
    env = dict(os.environ, **env_extra)
    if env.get("PYTHONPATH"):  # the child runs elsewhere: make the entries absolute
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep) if p)
    return subprocess.run([sys.executable, os.path.join(ROOT, script), *args],
                          capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)


def run_example(tmp_path, *args, **env_extra):
    return run_script(tmp_path, os.path.join("examples", "heat_equation.py"), *args, **env_extra)


def test_every_example_and_benchmark_is_found():
    names = {os.path.basename(s) for s in SCRIPTS}
    assert {"heat_equation.py", "domain_summary.py", "multifab_bench.py", "boxarray_bench.py",
            "gpu_bench.py"} <= names


@pytest.mark.parametrize("script", SCRIPTS)
def test_help(tmp_path, script):
    r = run_script(tmp_path, script, "--help")
    assert r.returncode == 0, r.stdout + r.stderr
    name = os.path.basename(script)
    assert r.stdout.startswith(f"usage: {name} "), r.stdout
    assert "-h, --help" in r.stdout and r.stderr == ""
    # every option with a default says it (ArgumentDefaultsHelpFormatter)
    assert "(default: " in r.stdout
    assert not list(tmp_path.iterdir())  # --help writes nothing


@pytest.mark.parametrize("script", SCRIPTS)
def test_bad_option_is_a_usage_error(tmp_path, script):
    r = run_script(tmp_path, script, "--no-such-option")
    assert r.returncode == 2 and "unrecognized arguments: --no-such-option" in r.stderr, r.stdout + r.stderr


def test_domain_summary(tmp_path):
    n, grid, nprocs = 48, 16, 5
    r = run_script(tmp_path, os.path.join("examples", "domain_summary.py"), "--nprocs", str(nprocs),
                   "--n-cell", str(n), "--max-grid-size", str(grid))
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    nboxes = (n // grid) ** 3  # AMReX's max_size of a 48^3 box by 16: 3 pieces per direction
    assert f"{nboxes} boxes of at most {grid}^3, {n ** 3:,} cells" in out
    ranks = re.findall(r"^ +rank +(\d+): +(\d+) boxes +([\d,]+) cells", out, re.M)
    assert [int(k) for k, _, _ in ranks] == list(range(nprocs))
    # every box on exactly one rank, every cell counted once
    assert sum(int(b) for _, b, _ in ranks) == nboxes
    assert sum(int(c.replace(",", "")) for _, _, c in ranks) == n ** 3
    loads = [int(c.replace(",", "")) for _, _, c in ranks]
    m = re.search(r"max/ideal = ([0-9.]+)", out)
    assert m and abs(float(m.group(1)) - max(loads) / (n ** 3 / nprocs)) < 1e-3
    # quiet: amrex.verbose=0, no initialization lines
    assert "Initializing AMReX" not in out and "initialized" not in out


@pytest.mark.parametrize("args", [["--nprocs", "0"], ["--n-cell", "x"]])
def test_domain_summary_bad_arguments(tmp_path, args):
    r = run_script(tmp_path, os.path.join("examples", "domain_summary.py"), *args)
    assert r.returncode == 2 and r.stderr.startswith("usage: domain_summary.py"), r.stdout + r.stderr


def test_heat_equation_small(tmp_path):
    png = tmp_path / "slice.png"
    r = run_example(tmp_path, "--n", "16", "--max-grid", "8", "--steps", "12", "--print-every", "4",
                    "--png", str(png))
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert len(re.findall(r"^step +\d+ +time", out, re.M)) == 3
    m = re.search(r"relative change ([0-9.e+-]+)", out)
    assert m and float(m.group(1)) < 1e-12  # the periodic heat equation conserves the sum
    m = re.search(r"discrete scheme [0-9.]+ \(rel. diff ([0-9.e+-]+)\)", out)
    assert m and float(m.group(1)) < 1e-10
    assert "checks: passed" in out
    assert "Initializing AMReX" not in out  # quiet by default (--verbose 0)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        pytest.skip("matplotlib is not installed: no PNG to check")
    assert png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_heat_equation_env_and_no_png(tmp_path):
    r = run_example(tmp_path, "--png", "", HEAT_N="8", HEAT_STEPS="3")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "8^3 cells" in r.stdout and "3 steps" in r.stdout
    assert not list(tmp_path.glob("*.png"))


def test_heat_equation_plotfile_and_tracers(tmp_path):
    """The main job's plotfile: AMReX's layout with the tracer particles, and yt (an independent reader)
    finds the field's sum and every tracer."""
    r = run_example(tmp_path, "--n", "16", "--max-grid", "8", "--steps", "6", "--png", "", "--tracers", "200")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "read back: the z-mid slice equals u" in r.stdout and "u in [" in r.stdout and ": yes)" in r.stdout
    plt = tmp_path / "plt_heat"
    assert {"Header", "job_info", "Level_0", "tracers"} <= {p.name for p in plt.iterdir()}
    assert (plt / "tracers" / "Level_0" / "Particle_H").exists()
    yt = pytest.importorskip("yt")
    yt.set_log_level(50)
    ad = yt.load(str(plt)).all_data()
    assert abs(float(ad["boxlib", "u"].sum()) - 16 ** 3) < 1e-8 * 16 ** 3  # the periodic scheme conserves sum(u)
    assert ad["tracers", "particle_u"].size == 200
    r = run_example(tmp_path, "--n", "8", "--steps", "2", "--png", "", "--plotfile", "")
    assert r.returncode == 0 and "wrote plt" not in r.stdout


def test_the_main_job_needs_neither_pandas_nor_yt(tmp_path):
    """scripts/run.sh installs numpy, matplotlib and mpi4py only: the main job (plotfile and tracers
    included) must run where importing pandas or yt fails (a fresh machine's .venv had no pandas and
    the job died in to_df)."""
    blocked = tmp_path / "blocked"
    for name in ("pandas", "yt"):
        (blocked / name).mkdir(parents=True)
        (blocked / name / "__init__.py").write_text(f"raise ImportError('{name} is blocked by the test')\n")
    path = os.pathsep.join([str(blocked)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    r = run_example(tmp_path, "--n", "16", "--max-grid", "8", "--steps", "4", "--png", "", "--tracers", "100",
                    PYTHONPATH=path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "with 100 tracer particles" in r.stdout and ": yes)" in r.stdout and "checks: passed" in r.stdout
