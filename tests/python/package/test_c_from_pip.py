"""A C program against the installed package (`pip install .`), as a C user would build it:

    cc $(python -m boxfab --cflags) prog.c $(python -m boxfab --libs)
    cmake -Dboxfab_DIR=$(python -m boxfab --cmake-dir)     (find_package(boxfab CONFIG REQUIRED))
    PKG_CONFIG_PATH=$(python -m boxfab --pkgconfig-dir) pkg-config --cflags --libs boxfab

The program makes a Box, chops it into a BoxArray (max_size), distributes it,
makes a MultiFab with a ghost layer, sets it and prints the box count, the
first box and the sum; the test checks them against AMReX's chopping rule
computed here in Python.  Skipped where there is no C compiler (or cmake, or
pkg-config), and where boxfab is imported from a source tree (PYTHONPATH=python
after scripts/dev-build.sh) instead of an installed package; scripts/test.sh
installs the package and sets BOXFAB_REQUIRE_INSTALLED=1, so there these
tests cannot skip for that reason.
"""
import math
import os
import shlex
import shutil
import subprocess
import sys

import pytest

import boxfab

PKG = os.path.dirname(os.path.abspath(boxfab.__file__))
N_CELL = (20, 24, 8)
MAX_GRID = 8
VALUE = 1.5

PROG = r"""
#include <stdio.h>
#include <boxfab/boxfab.h>

#define CHECK(call)                                                        \
  do {                                                                     \
    if ((call) != BF_SUCCESS) {                                            \
      fprintf(stderr, "%%s failed: %%s\n", #call, bf_error_message());    \
      return 1;                                                            \
    }                                                                      \
  } while (0)

int main(void) {
  const char *args[] = {"amrex.verbose=0"};
  uint64_t id;
  CHECK(bf_runtime_initialize(1, args, &id));
  int lo[3] = {0, 0, 0}, hi[3] = {%(hx)d, %(hy)d, %(hz)d}, max_grid[3] = {%(mg)d, %(mg)d, %(mg)d};
  bf_box domain, first;
  CHECK(bf_box_define(3, lo, hi, 0, &domain));
  bf_boxarray *ba = NULL;
  CHECK(bf_boxarray_create_box(&domain, &ba));
  CHECK(bf_boxarray_max_size(&ba, max_grid));
  CHECK(bf_boxarray_get(ba, 0, &first));
  bf_distmap *dm = NULL;
  CHECK(bf_distmap_create_balanced(ba, 1, BF_DISTMAP_SFC, &dm));
  bf_multifab *mf = NULL;
  CHECK(bf_multifab_create(ba, dm, 1, bf_intvect_splat(3, 1), BF_DTYPE_DOUBLE, NULL, true, &mf));
  CHECK(bf_multifab_set_val_all(mf, %(value)r));
  double sum = 0.0;
  CHECK(bf_multifab_sum(mf, NULL, 0, false, &sum));
  printf("version %%s\n", bf_version());
  printf("boxes %%lld\n", (long long)bf_boxarray_size(ba));
  printf("first %%d %%d %%d %%d %%d %%d\n", first.lo[0], first.lo[1], first.lo[2], first.hi[0], first.hi[1],
         first.hi[2]);
  printf("sum %%.17g\n", sum);
  bf_multifab_destroy(&mf);
  bf_distmap_destroy(&dm);
  bf_boxarray_destroy(&ba);
  CHECK(bf_runtime_finalize());
  return 0;
}
""" % {"hx": N_CELL[0] - 1, "hy": N_CELL[1] - 1, "hz": N_CELL[2] - 1, "mg": MAX_GRID, "value": VALUE}

CMAKELISTS = """\
cmake_minimum_required(VERSION 3.18)
project(use_boxfab LANGUAGES C)
find_package(boxfab CONFIG REQUIRED)
add_executable(prog prog.c)
target_link_libraries(prog PRIVATE boxfab::boxfab)
"""


def amrex_chunks(cells, m):
    """AMReX's BoxList::maxSize (AMReX_BoxList.cpp) for one direction of `cells` cells and at
    most m per piece: while both are even, halve both (the pieces then come in units of the
    accumulated ratio); then nblk = ceil(len / bs) pieces of len // nblk units, the first
    len % nblk of them one unit longer.  Returns the piece lengths in cells."""
    if cells <= m:
        return [cells]
    ratio, bs, n = 1, m, cells
    while bs % 2 == 0 and n % 2 == 0:
        ratio, bs, n = ratio * 2, bs // 2, n // 2
    nblk = -(-n // bs)
    sz, extra = divmod(n, nblk)
    return [(sz + (1 if j < extra else 0)) * ratio for j in range(nblk)]


def expected_output():
    chunks = [amrex_chunks(n, MAX_GRID) for n in N_CELL]
    return {
        "version": boxfab.__version__,
        "boxes": str(math.prod(len(c) for c in chunks)),
        "first": " ".join(["0"] * 3 + [str(c[0] - 1) for c in chunks]),
        "sum": VALUE * math.prod(N_CELL),
    }


def test_amrex_chunks_rule():
    # the examples (AMReX's answers): 14 cells with 6 -> 6, 4, 4; 6 with 4 -> 4, 2
    assert amrex_chunks(14, 6) == [6, 4, 4] and amrex_chunks(6, 4) == [4, 2]
    assert amrex_chunks(10, 4) == [4, 4, 2] and amrex_chunks(7, 3) == [3, 2, 2]


def parse(out):
    got = dict(line.split(" ", 1) for line in out.strip().splitlines())
    got["sum"] = float(got["sum"])  # printed with %.17g: exact
    return got


def boxfab_cli(*opts):
    """`python -m boxfab OPTS`, as a user runs it (the interpreter of these tests)."""
    r = subprocess.run([sys.executable, "-m", "boxfab", *opts], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout.strip()


@pytest.fixture(scope="module")
def installed():
    if not os.path.exists(os.path.join(PKG, "include", "boxfab", "boxfab.h")):
        why = (f"boxfab is imported from {PKG}, a source tree (PYTHONPATH dev build), not an installed package: "
               "the C files are installed by `pip install .` (scripts/test.sh runs these tests against it)")
        if os.environ.get("BOXFAB_REQUIRE_INSTALLED") == "1":
            pytest.fail(why)
        pytest.skip(why)
    return PKG


def need(tool):
    path = shutil.which(tool)
    if not path:
        pytest.skip(f"no {tool} on PATH")
    return path


def run_prog(path):
    # no LD_LIBRARY_PATH: the program must find libboxfab.so through its rpath
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    r = subprocess.run([str(path)], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert parse(r.stdout) == expected_output()


def test_cli_prints_paths_inside_the_installed_package(installed):
    assert boxfab_cli("--includedir") == os.path.join(installed, "include")
    assert boxfab_cli("--libdir") == installed
    assert boxfab_cli("--cmake-dir") == os.path.join(installed, "cmake")
    assert boxfab_cli("--pkgconfig-dir") == os.path.join(installed, "pkgconfig")
    assert boxfab_cli("--cflags") == "-I" + shlex.quote(os.path.join(installed, "include"))
    lib = shlex.quote(installed)
    assert boxfab_cli("--libs") == f"-L{lib} -Wl,-rpath,{lib} -lboxfab"
    # several options: one line each, in the order given
    assert boxfab_cli("--version", "--libdir").splitlines() == [boxfab.__version__, installed]
    for name in ("include/boxfab/boxfab.h", "libboxfab.so", "cmake/boxfabConfig.cmake",
                 "cmake/boxfabConfigVersion.cmake", "cmake/boxfabTargets.cmake", "pkgconfig/boxfab.pc"):
        assert os.path.exists(os.path.join(installed, name)), name


def test_compile_with_cflags_and_libs(installed, tmp_path):
    cc = need("cc")
    (tmp_path / "prog.c").write_text(PROG)
    cmd = f"{shlex.quote(cc)} $({shlex.quote(sys.executable)} -m boxfab --cflags) prog.c " \
          f"$({shlex.quote(sys.executable)} -m boxfab --libs) -o prog"
    r = subprocess.run(cmd, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, cmd + "\n" + r.stdout + r.stderr
    run_prog(tmp_path / "prog")


def test_compile_with_pkg_config(installed, tmp_path):
    cc = need("cc")
    need("pkg-config")
    (tmp_path / "prog.c").write_text(PROG)
    env = dict(os.environ, PKG_CONFIG_PATH=boxfab_cli("--pkgconfig-dir"))
    r = subprocess.run(f"{shlex.quote(cc)} prog.c $(pkg-config --cflags --libs boxfab) -o prog", shell=True,
                       cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    run_prog(tmp_path / "prog")


@pytest.mark.parametrize("how", ["boxfab_DIR", "CMAKE_PREFIX_PATH"])
def test_cmake_find_package(installed, tmp_path, how):
    cmake = need("cmake")
    need("cc")
    src = tmp_path / "src"
    src.mkdir()
    (src / "prog.c").write_text(PROG)
    (src / "CMakeLists.txt").write_text(CMAKELISTS)
    # boxfab_DIR: the config's folder; CMAKE_PREFIX_PATH: site-packages, searched as <prefix>/boxfab/cmake
    where = boxfab_cli("--cmake-dir") if how == "boxfab_DIR" else os.path.dirname(installed)
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    build = tmp_path / "build"
    for cmd in ([cmake, "-S", str(src), "-B", str(build), *gen, f"-D{how}={where}"],
                [cmake, "--build", str(build)]):
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, " ".join(cmd) + "\n" + r.stdout + r.stderr
    run_prog(build / "prog")


BANNER = r"""
#include <stdio.h>
#include <boxfab/boxfab.h>

int main(void) {
  uint64_t id;
  printf("verbose %d\n", bf_runtime_verbose());
  printf("before\n"); /* C's stdout, the stream the library writes to: the lines keep their place */
  if (bf_runtime_initialize(0, NULL, &id) != BF_SUCCESS) return 1;
  printf("inside\n");
  if (bf_runtime_finalize() != BF_SUCCESS) return 1;
  printf("after\n");
  return 0;
}
"""


def test_c_program_prints_amrex_initialization_lines(installed, tmp_path):
    """From C, as from Python, amrex.verbose is 1 unless set (AMReX's default, AMReX.cpp), and
    bf_runtime_initialize / bf_runtime_finalize print AMReX's lines on C's stdout."""
    cc = need("cc")
    (tmp_path / "banner.c").write_text(BANNER)
    cmd = f"{shlex.quote(cc)} $({shlex.quote(sys.executable)} -m boxfab --cflags) banner.c " \
          f"$({shlex.quote(sys.executable)} -m boxfab --libs) -o banner"
    r = subprocess.run(cmd, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    env = dict(os.environ, OMP_NUM_THREADS="1", BOXFAB_DEVICE="cpu")
    r = subprocess.run([str(tmp_path / "banner")], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    v = boxfab.__version__
    omp = ["OMP initialized with 1 OMP threads"] if boxfab.build_info()["openmp"] else []
    assert r.stdout.splitlines() == ["verbose 1", "before", f"Initializing AMReX (boxfab {v})...", *omp,
                                     f"AMReX (boxfab {v}) initialized", "inside", f"AMReX (boxfab {v}) finalized",
                                     "after"]
    assert r.stderr == ""
