import os
import subprocess
import sys

import pytest

import boxfab
import boxfab.space1d
import boxfab.space2d
import boxfab.space3d


def test_build_info_reports_features():
    info = boxfab.build_info()
    assert info["version"] == boxfab.__version__
    for key in ("cuda", "mpi", "openmp"):
        assert isinstance(info[key], bool)


def test_space_modules_have_versions(amr):
    assert amr.__version__ == boxfab.__version__
    assert isinstance(amr.__author__, str) and isinstance(amr.__license__, str)


def test_dim3_is_three_ints_in_every_space(amr):
    d = amr.Dim3(1, 2, 3)
    assert (d.x, d.y, d.z) == (1, 2, 3)
    d.z = -4
    assert d.z == -4 and "Dim3" in repr(d)
    x = amr.XDim3(0.5, 1, 2)
    assert (x.x, x.y, x.z) == (0.5, 1.0, 2.0)


# ---- python -m boxfab (where the C library is; the installed case: test_c_from_pip.py) --------------
def _cli(*args):
    env = dict(os.environ)
    if env.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep) if p)
    return subprocess.run([sys.executable, "-m", "boxfab", *args], capture_output=True, text=True, timeout=60,
                          env=env, cwd=os.path.dirname(os.path.abspath(__file__)))


def test_cli_help_and_summary():
    r = _cli("--help")
    assert r.returncode == 0 and r.stdout.startswith("usage: python -m boxfab"), r.stdout + r.stderr
    for opt in ("--cflags", "--libs", "--includedir", "--libdir", "--cmake-dir", "--pkgconfig-dir", "--version"):
        assert opt in r.stdout
    r = _cli()
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].startswith(f"boxfab {boxfab.__version__} in ")
    r = _cli("--version")
    assert r.returncode == 0 and r.stdout == boxfab.__version__ + "\n"
    r = _cli("--no-such-option")
    assert r.returncode == 2 and "unrecognized arguments" in r.stderr


def test_cli_in_a_source_tree_says_why_it_has_no_paths():
    pkg = os.path.dirname(os.path.abspath(boxfab.__file__))
    if os.path.exists(os.path.join(pkg, "include", "boxfab", "boxfab.h")):
        pytest.skip("boxfab is an installed package here (test_c_from_pip.py checks the paths)")
    r = _cli("--cflags")
    assert r.returncode == 1 and r.stdout == ""
    assert "not an installed package" in r.stderr and "pip install ." in r.stderr
