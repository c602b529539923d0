"""The README's main job, examples/heat_equation.py, run small in a subprocess."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_example(tmp_path, *args, **env_extra):
    # the same boxfab as the tests (the installed package, or PYTHONPATH's)
    env = dict(os.environ, **env_extra)
    if env.get("PYTHONPATH"):  # the child runs elsewhere: make the entries absolute
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep) if p)
    return subprocess.run([sys.executable, os.path.join(ROOT, "examples", "heat_equation.py"), *args],
                          capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)


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
