"""restart() tells a particle directory written again while it reads it (review of issue 21).

restart compared the directory's inode number before and after reading.  Two ways past that:

* files copied over the directory in place (cp -r new/. chk/, shutil.copytree(dirs_exist_ok=True))
  keep the directory and its number;
* ext4 gives a deleted directory's number to the next directory made at once: the checkpoint moved
  aside and deleted, a new one made under the name (what two checkpoint() calls in another process do)
  has the number restart saw first.

restart then read the new data files at the old Header's counts and offsets: particles of neither
checkpoint, refused at best by a misleading "particle 0 at byte 2016 has id -292155297344" (the bytes of
another particle), kept when they happened to look valid.  It holds the directory open now (its number cannot
go to another directory while it does) and compares the Header's inode, size and times too.

The replacement has to happen in the middle of one restart call, so a tiny LD_PRELOAD library (built
with the C compiler; skipped without one) runs a shell command when restart first opens a data file.
Each case runs in a subprocess."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
static int done;
static void hook(const char *p) {
  const char *want = getenv("BFHOOK_MATCH"), *cmd = getenv("BFHOOK_CMD");
  if (done || !want || !cmd || !p || !strstr(p, want)) return;
  done = 1;
  unsetenv("LD_PRELOAD");
  if (system(cmd) != 0) abort();
}
#define WRAP(name)                                                   \
  int name(const char *p, int fl, ...) {                             \
    mode_t m = 0;                                                    \
    if (fl & O_CREAT) {                                              \
      va_list a;                                                     \
      va_start(a, fl);                                               \
      m = (mode_t)va_arg(a, int);                                    \
      va_end(a);                                                     \
    }                                                                \
    hook(p);                                                         \
    static int (*real)(const char *, int, ...);                      \
    if (!real) real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #name); \
    return real(p, fl, m);                                           \
  }
WRAP(open)
WRAP(open64)
"""

SCRIPT = r"""
import os, sys
import numpy as np
import boxfab.space3d as amr
amr.initialize([])
mode, d = sys.argv[1], sys.argv[2]
dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(15, 15, 15))
gm = amr.Geometry(dom, amr.RealBox([0.0] * 3, [1.0] * 3), 0, [1, 1, 1])
ba = amr.BoxArray(dom)
ba.max_size(8)
dm = amr.DistributionMapping(ba)

def make(n, seed):
    pc = amr.ParticleContainer_pureSoA_8_0_default(gm, dm, ba)
    if n:
        rng = np.random.default_rng(seed)
        pc.add_particles(rng.random((n, 3)), {c: rng.random(n) + seed for c in "abcde"})
    return pc

def snap(pc):
    return pc.to_df().reset_index(drop=True).sort_values(["idcpu"]).reset_index(drop=True)

if mode == "write":
    make(200, 1).checkpoint(d, "chk")
    make(700, 2).checkpoint(d, "v2")
    sys.exit(0)
pc = make(30, 7)
before = snap(pc)
try:
    pc.restart(d, "chk")
except OSError as e:
    assert "replaced" in str(e), e
    after = snap(pc)
    assert before.equals(after), "the container changed"
    print("REFUSED")
    sys.exit(0)
except Exception as e:
    print("OTHER", type(e).__name__, e)
    sys.exit(0)
print("READ", pc.total_number_of_particles())
"""


@pytest.fixture(scope="module")
def shim(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler for the LD_PRELOAD hook")
    d = tmp_path_factory.mktemp("shim")
    (d / "shim.c").write_text(SHIM)
    so = d / "shim.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(so), str(d / "shim.c"), "-ldl"], check=True)
    return str(so)


def run(args, env=None):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(SCRIPT), *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})})


@pytest.mark.parametrize("how", ["copied_in_place", "inode_reused"])
def test_restart_tells_a_directory_written_again_while_it_reads(tmp_path, shim, how):
    """The checkpoint is replaced when restart opens its first data file: by files copied over it in
    place (same directory), or by a new directory made right after the old one was deleted (ext4 gives
    it the old number).  restart returned particles of neither checkpoint; now OSError 'replaced', and
    the container is as it was (its full data compared)."""
    r = run(["write", str(tmp_path)])
    assert r.returncode == 0, r.stderr
    chk, v2 = tmp_path / "chk", tmp_path / "v2"
    if how == "copied_in_place":
        cmd = f"cp -r '{v2}'/. '{chk}'/"
    else:
        gone = tmp_path / "gone"
        cmd = f"mv '{chk}' '{gone}' && rm -rf '{gone}' && cp -r '{v2}' '{chk}'"
    r = run(["read", str(tmp_path)], env={"LD_PRELOAD": shim, "BFHOOK_MATCH": "/DATA_", "BFHOOK_CMD": cmd})
    assert r.returncode == 0, r.stdout + r.stderr
    assert os.path.exists(chk / "Header")
    assert r.stdout.strip().splitlines()[-1] == "REFUSED", r.stdout + r.stderr
    # untouched afterwards, the new checkpoint reads as itself
    r = run(["read", str(tmp_path)])
    assert r.stdout.strip().splitlines()[-1] == "READ 730", r.stdout + r.stderr
