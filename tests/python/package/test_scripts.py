"""scripts/setup-env.sh: when scripts/run.sh and scripts/test.sh rebuild and
reinstall boxfab.  They skip `pip install .` when a stamp in the virtual
environment matches (a) the hash of the build's inputs (every tracked or new,
not ignored, file under CMakeLists.txt, pyproject.toml, README.md, cmake/,
include/, src/, python/; the build environment) and (b) what is installed
(the package's folder, version and compiled files).  These tests run the
shell functions in a small git repository made here, with a fake interpreter
standing in for the installed package."""
import os
import shutil
import stat
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SETUP = os.path.join(ROOT, "scripts", "setup-env.sh")

pytestmark = pytest.mark.skipif(not (shutil.which("bash") and shutil.which("git") and shutil.which("sha256sum")),
                                reason="needs bash, git and sha256sum")

FILES = {
    "CMakeLists.txt": "project(x)\n",
    "pyproject.toml": "[project]\nname = 'x'\n",
    "README.md": "# x\n",
    "cmake/x.pc.in": "prefix=@P@\n",
    "include/boxfab/a.h": "int a(void);\n",
    "src/core/a.c": "int a(void) { return 1; }\n",
    "python/boxfab/__init__.py": "",
    "tests/python/test_a.py": "def test_a(): pass\n",
    "scripts/run.sh": "echo\n",
    "benchmarks/b.py": "",
    ".gitignore": "/build/\n*.so\n__pycache__/\n",
}
FINGERPRINT = "/site/boxfab 0.1.0 0123abcd"


def sh(repo, script, env_extra=None, check=True):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CMAKE_", "SKBUILD_")) and
           k not in ("CC", "CFLAGS", "CPPFLAGS", "LDFLAGS", "CUDACXX", "CUDAFLAGS", "CUDAARCHS")}
    env.update(env_extra or {})
    r = subprocess.run(["bash", "-c", f"set -euo pipefail; source {SETUP}; {script}"], cwd=repo, env=env,
                       capture_output=True, text=True, timeout=60)
    if check:
        assert r.returncode == 0, r.stdout + r.stderr
    return r


@pytest.fixture
def repo(tmp_path):
    r = tmp_path / "repo"
    for name, text in FILES.items():
        (r / name).parent.mkdir(parents=True, exist_ok=True)
        (r / name).write_text(text)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "x"]):
        subprocess.run(git + cmd, cwd=r, check=True, capture_output=True)
    # the fake interpreter: prints the fingerprint of an "installed" boxfab (or fails, as a broken install)
    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    py = venv / "python"
    py.write_text('#!/bin/sh\ncat >/dev/null\n[ -f "$(dirname "$0")/broken" ] && exit 1\n'
                  f'cat "$(dirname "$0")/fingerprint" 2>/dev/null || echo "{FINGERPRINT}"\n')
    py.chmod(py.stat().st_mode | stat.S_IXUSR)
    return r


def source_hash(repo, **env):
    out = sh(repo, "PY=/venv/bin/python; bf_source_hash", env).stdout.strip()
    assert len(out) == 64 and int(out, 16) >= 0
    return out


@pytest.mark.parametrize("name", ["CMakeLists.txt", "pyproject.toml", "README.md", "cmake/x.pc.in",
                                  "include/boxfab/a.h", "src/core/a.c", "python/boxfab/__init__.py"])
def test_a_change_to_any_source_changes_the_hash(repo, name):
    h0 = source_hash(repo)
    path = repo / name
    old = path.read_text()
    path.write_text(old + "// changed\n")  # not committed: the working tree counts
    assert source_hash(repo) != h0
    path.write_text(old)
    assert source_hash(repo) == h0  # content, not time stamps


def test_new_deleted_and_renamed_sources_change_the_hash(repo):
    h0 = source_hash(repo)
    (repo / "src" / "core" / "b.c").write_text("")  # new, untracked, not ignored: CMake's glob builds it
    h1 = source_hash(repo)
    assert h1 != h0
    (repo / "src" / "core" / "b.c").unlink()
    assert source_hash(repo) == h0
    (repo / "src" / "core" / "a.c").unlink()  # deleted, not committed
    assert source_hash(repo) != h0
    (repo / "src" / "core" / "a.c").write_text(FILES["src/core/a.c"])
    (repo / "src" / "core" / "a.c").rename(repo / "src" / "core" / "c.c")
    assert source_hash(repo) not in (h0, h1)


def test_other_files_do_not_change_the_hash(repo):
    h0 = source_hash(repo)
    (repo / "tests" / "python" / "test_a.py").write_text("def test_b(): pass\n")
    (repo / "scripts" / "run.sh").write_text("echo changed\n")
    (repo / "benchmarks" / "b.py").write_text("x = 1\n")
    (repo / "build").mkdir()
    (repo / "build" / "out.o").write_text("object")
    (repo / "python" / "boxfab" / "_core.so").write_text("ignored by git")  # dev-build's link
    (repo / "python" / "boxfab" / "__pycache__").mkdir()
    (repo / "python" / "boxfab" / "__pycache__" / "x.pyc").write_text("")
    assert source_hash(repo) == h0


def test_build_environment_and_interpreter_change_the_hash(repo):
    h0 = source_hash(repo)
    assert source_hash(repo, CMAKE_ARGS="-DBOXFAB_ENABLE_CUDA=OFF") != h0
    assert source_hash(repo, CC="clang") != h0
    assert source_hash(repo, SOME_OTHER_VARIABLE="1") == h0
    # run.sh installs as a user's pip install builds, test.sh with warnings as errors: not the same build
    assert source_hash(repo, BOXFAB_INSTALL_WERROR="ON") != h0
    assert source_hash(repo, BOXFAB_INSTALL_WERROR="OFF") == h0
    other_py = sh(repo, "PY=/other/bin/python; bf_source_hash").stdout.strip()
    assert other_py != h0


def test_outside_a_git_checkout_the_files_count(repo):
    shutil.rmtree(repo / ".git")
    h0 = source_hash(repo)
    (repo / "src" / "core" / "a.c").write_text("int a(void) { return 2; }\n")
    assert source_hash(repo) != h0
    (repo / "src" / "core" / "a.c").write_text(FILES["src/core/a.c"])
    assert source_hash(repo) == h0
    (repo / "python" / "boxfab" / "_core.so").write_text("a build output")
    assert source_hash(repo) == h0


def is_current(repo):
    py = repo.parent / "venv" / "bin" / "python"
    return sh(repo, f"PY={py}; bf_install_is_current", check=False).returncode == 0


def write_stamp(repo):
    py = repo.parent / "venv" / "bin" / "python"
    sh(repo, f'PY={py}; echo "$(bf_source_hash) $(bf_installed_fingerprint)" > "$(bf_stamp_file)"')
    assert (repo.parent / "venv" / ".boxfab-install-stamp").read_text().strip().endswith(FINGERPRINT)


def test_install_is_current_only_for_the_stamped_sources_and_install(repo):
    venv = repo.parent / "venv"
    assert not is_current(repo)  # no stamp: first install
    write_stamp(repo)
    assert is_current(repo)
    (repo / "tests" / "python" / "test_a.py").write_text("# a test changed: no rebuild\n")
    assert is_current(repo)
    (repo / "src" / "core" / "a.c").write_text("int a(void) { return 3; }\n")
    assert not is_current(repo)  # a source changed
    (repo / "src" / "core" / "a.c").write_text(FILES["src/core/a.c"])
    assert is_current(repo)
    (venv / "bin" / "fingerprint").write_text("/site/boxfab 0.1.0 ffff\n")
    assert not is_current(repo)  # another build was installed over it (other compiled files)
    (venv / "bin" / "fingerprint").unlink()
    assert is_current(repo)
    (venv / "bin" / "broken").write_text("")
    assert not is_current(repo)  # the installed package does not import
    (venv / "bin" / "broken").unlink()
    (venv / ".boxfab-install-stamp").write_text("garbage\n")
    assert not is_current(repo)


def test_install_skips_pip_when_current(repo):
    py = repo.parent / "venv" / "bin" / "python"
    write_stamp(repo)
    r = sh(repo, f"PY={py}; bf_install_boxfab")
    assert "up to date" in r.stdout and "pip" not in r.stdout.replace("BOXFAB_FORCE_INSTALL", "")


def test_condensed_build_output(tmp_path):
    """Ninja's [n/N] lines become at most 4 (25/50/75/100 %) off a terminal; phases, boxfab's
    configuration summary and errors pass; the rest goes only to the log."""
    lines = ["  *** Configuring CMake...", "  -- Detecting C compiler ABI info",
             "  -- boxfab 0.1.0 configuration:", "  --   CUDA compiler : no", "  --   MPI           : no",
             "  -- Found Python: /x", "  *** Building project with Ninja...", "  [0/2] Re-checking globbed"]
    lines += [f"  [{i}/40] Building C object src/f{i}.c.o" for i in range(1, 41)]
    lines += ["src/f.c:1:2: error: expected ';'", "  *** Making wheel..."]
    log = tmp_path / "log"
    r = subprocess.run(["bash", "-c", f"source {SETUP}; bf_condense_build {log}"], input="\n".join(lines) + "\n",
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out == ["  *** Configuring CMake...", "  boxfab 0.1.0 configuration:", "    CUDA compiler : no",
                   "    MPI           : no", "  *** Building project with Ninja...",
                   "  [10/40]  25%  Building C object src/f10.c.o", "  [20/40]  50%  Building C object src/f20.c.o",
                   "  [30/40]  75%  Building C object src/f30.c.o", "  [40/40] 100%  Building C object src/f40.c.o",
                   "src/f.c:1:2: error: expected ';'", "  *** Making wheel..."]
    assert log.read_text().splitlines() == lines


@pytest.mark.skipif(not (shutil.which("cmake") and shutil.which("ctest")), reason="needs cmake and ctest")
def test_ctest_skip_reasons(tmp_path):
    """test.sh prints why ctest skipped a test (exit code 77): its "skipped: ..." line, else its
    last line; from ctest's own log of a real run (a tiny project made here)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(t NONE)\nenable_testing()\n"
        "add_test(NAME passes COMMAND sh -c \"echo skipped: not me\")\n"
        "add_test(NAME noisy COMMAND sh -c \"echo Initializing...; echo 'skipped: no GPU (42 checks)'; exit 77\")\n"
        "add_test(NAME plain COMMAND sh -c \"echo first; echo no device here; exit 77\")\n"
        "set_tests_properties(noisy plain PROPERTIES SKIP_RETURN_CODE 77)\n")
    build = tmp_path / "build"
    subprocess.run(["cmake", "-S", str(src), "-B", str(build)], check=True, capture_output=True, timeout=120)
    out = tmp_path / "ctest-output.txt"
    r = subprocess.run(f"ctest --test-dir {build} > {out}", shell=True, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, out.read_text() + r.stderr
    r = subprocess.run(["bash", "-c", f"source {SETUP}; bf_ctest_skip_reasons {build} {out}"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.splitlines()) == ["   noisy (Skipped): no GPU (42 checks)",
                                             "   plain (Skipped): no device here"]


# ---- .ci/run and .gitignore against the main job's outputs (issue 21) ---------------------------
CI_RUN = os.path.join(ROOT, ".ci", "run")


def ci_checkout(tmp_path, run_sh):
    """A checkout with .ci/run and stub scripts: run.sh does `run_sh`, test.sh leaves a mark."""
    r = tmp_path / "ci"
    (r / ".ci").mkdir(parents=True)
    (r / "scripts").mkdir()
    shutil.copy(CI_RUN, r / ".ci" / "run")
    (r / "scripts" / "run.sh").write_text(run_sh)
    (r / "scripts" / "test.sh").write_text("touch tests-ran\n")
    return r


WRITE_OUTPUTS = "mkdir -p plt_heat/tracers && echo x > plt_heat/Header && echo x > plt_heat/tracers/Header " \
                "&& echo x > heat_slice.png\n"


def test_ci_run_accepts_outputs_written_by_this_run(tmp_path):
    r = ci_checkout(tmp_path, WRITE_OUTPUTS)
    p = subprocess.run(["bash", ".ci/run"], cwd=r, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    assert (r / "tests-ran").exists()


@pytest.mark.parametrize("missing", ["plt_heat/Header", "plt_heat/tracers/Header", "heat_slice.png"])
def test_ci_run_refuses_outputs_left_from_an_earlier_run(tmp_path, missing):
    """The main job must write plt_heat (and its tracers and the PNG) in this run: a plotfile left in a
    reused checkout by an earlier run passed `test -f plt_heat/Header` though this run wrote nothing."""
    r = ci_checkout(tmp_path, WRITE_OUTPUTS)
    subprocess.run(["bash", "-c", WRITE_OUTPUTS], cwd=r, check=True)          # an earlier run's outputs
    old = 1_000_000_000
    os.utime(r / missing, (old, old))
    # this run writes every output but `missing`
    (r / "scripts" / "run.sh").write_text("".join(
        f"echo y > {f}\n" for f in ("plt_heat/Header", "plt_heat/tracers/Header", "heat_slice.png") if f != missing))
    p = subprocess.run(["bash", ".ci/run"], cwd=r, capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and f"did not write {missing}" in p.stdout, p.stdout + p.stderr
    assert not (r / "tests-ran").exists()


def test_ci_run_fails_when_the_main_job_fails(tmp_path):
    r = ci_checkout(tmp_path, WRITE_OUTPUTS + "exit 3\n")
    p = subprocess.run(["bash", ".ci/run"], cwd=r, capture_output=True, text=True, timeout=60)
    assert p.returncode == 3 and not (r / "tests-ran").exists()


@pytest.mark.parametrize("path", ["plt_heat/Header", "plt_heat.old.1716000000123456/Header",
                                  "plt_heat.old.1716000000123456_2/Level_0/Cell_D_00000", "heat_slice.png",
                                  ".bftmp.0123456789abcdef/Header", "sub/.bftmp.0123456789abcdef_D_00000"])
def test_gitignore_covers_the_main_jobs_outputs(path):
    """scripts/run.sh run twice moves the first plt_heat aside to plt_heat.old.<unique> (as AMReX): git status
    must not list it, nor a writer's temporary left by a killed run."""
    if not os.path.isdir(os.path.join(ROOT, ".git")) and not os.path.isfile(os.path.join(ROOT, ".git")):
        pytest.skip("not a git checkout")
    p = subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=ROOT)
    assert p.returncode == 0, f"{path} is not ignored"


@pytest.mark.parametrize("path", ["src/core/io/plotfile.c", "plt_heat_notes.md", "examples/plt_heat.old.py"])
def test_gitignore_keeps_sources(path):
    if not os.path.exists(os.path.join(ROOT, ".git")):
        pytest.skip("not a git checkout")
    p = subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=ROOT)
    assert p.returncode == 1, f"{path} is ignored"
