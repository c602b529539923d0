"""File readers facing hostile file systems (adversarial review, issue 11): a FIFO where a header or
data file should be never blocks a reader (OSError instead); ParmParse include fan-out is bounded;
error texts are well formed.  Each scenario runs in a subprocess with a timeout, so a hang fails the
test instead of the run."""
import os
import subprocess
import sys
import textwrap

import pytest

PRELUDE = """
import os, numpy as np
import boxfab.space3d as amr
amr.initialize(["amrex.verbose=0"])
dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(7, 7, 7))
geom = amr.Geometry(dom, amr.RealBox([0.0] * 3, [1.0] * 3), 0, [1] * 3)
ba = amr.BoxArray(dom)
ba.max_size(4)
dm = amr.DistributionMapping(ba)
def fifo(path):
    os.remove(path)
    os.mkfifo(path)
def expect_oserror(fn):
    try:
        fn()
    except OSError as e:
        print("OSError", "regular file" in str(e))
    else:
        print("accepted")
"""


def run(tmp_path, body, timeout=60):
    code = PRELUDE + f"os.chdir({str(tmp_path)!r})\n" + textwrap.dedent(body)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_never_blocks_a_reader(tmp_path):
    out = run(tmp_path, """
        mf = amr.MultiFab(ba, dm, 1, 1)
        mf.set_val(1.0)
        amr.write_single_level_plotfile("plt", mf, ["a"], geom, 0.0, 0)
        fifo("plt/Level_0/Cell_D_00000")
        expect_oserror(lambda: amr.PlotFileData("plt").get(0))
        amr.write_single_level_plotfile("plt2", mf, ["a"], geom, 0.0, 0)
        fifo("plt2/Header")
        expect_oserror(lambda: amr.PlotFileData("plt2"))
        amr.VisMF.Write(mf, "chk")
        fifo("chk_D_00000")
        expect_oserror(lambda: amr.VisMF.Read(amr.MultiFab(ba, dm, 1, 1), "chk"))
        pc = amr.ParticleContainer(geom, dm, ba)
        pc.add_particles(np.random.default_rng(0).random((20, 3)))
        pc.write_plotfile(".", "parts")
        fifo("parts/Level_0/DATA_00000")
        expect_oserror(lambda: amr.ParticleContainer(geom, dm, ba).restart(".", "parts"))
        open("in.txt", "w").write("a = 1\\n")
        fifo("in.txt")
        expect_oserror(lambda: amr.ParmParse.addfile("in.txt"))
    """)
    assert out.split("\n")[:5] == ["OSError True"] * 5, out


def test_parmparse_include_fan_out_is_bounded(tmp_path):
    out = run(tmp_path, """
        for i in range(25):
            open(f"f{i}.txt", "w").write(f"FILE = f{i + 1}.txt\\nFILE = f{i + 1}.txt\\n")
        open("f25.txt", "w").write("x = 1\\n")
        try:
            amr.ParmParse.addfile("f0.txt")
            print("accepted")
        except ValueError as e:
            print("ValueError", "inputs files read" in str(e))
        open("g.txt", "w").write("FILE = a b c\\n")
        try:
            amr.ParmParse.addfile("g.txt")
        except ValueError as e:
            print(str(e))
    """)
    lines = out.split("\n")
    assert lines[0] == "ValueError True", out
    assert lines[1] == "g.txt:1: FILE = takes one file name, got several", out


def test_huge_box_in_cell_h_is_refused_before_allocating(tmp_path):
    """A Cell_H naming a 701^3 box: ValueError without allocating the level (the child runs under a
    1.5 GB address-space limit; allocating and zero-filling first needed about 5 GB)."""
    out = run(tmp_path, """
        import resource
        mf = amr.MultiFab(ba, dm, 1, 0)
        mf.set_val(1.0)
        amr.write_single_level_plotfile("plt", mf, ["a"], geom, 0.0, 0)
        h = open("plt/Level_0/Cell_H").read()
        open("plt/Level_0/Cell_H", "w").write(h.replace("((0,0,0) (3,3,3) (0,0,0))", "((0,0,0) (700,700,700) (0,0,0))", 1))
        resource.setrlimit(resource.RLIMIT_AS, (1500 * 2**20, 1500 * 2**20))
        try:
            amr.PlotFileData("plt").get(0)
            print("accepted")
        except ValueError as e:
            print("ValueError", "truncated" in str(e))
    """)
    assert out.strip() == "ValueError True", out
