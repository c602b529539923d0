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


# ---- mutated and truncated plotfiles (issue 21) -----------------------------------------------------
# Each case damages one copy of a good two-level plotfile and records what PlotFileData(path) and get()
# of every level do: "ok" (then the data must equal what was written), or the exception's type.  All
# cases run in one subprocess, so a crash or a hang fails the test.  BOXFAB_HOSTILE_SEED varies the
# random cases.
MUTANTS = r"""
import os, shutil, stat, random
seed = int(os.environ.get("BOXFAB_HOSTILE_SEED", "21"))
rng = random.Random(seed)
ba1 = amr.BoxArray(amr.Box(amr.IntVect(4, 4, 4), amr.IntVect(11, 11, 11)))
ba1.max_size(4)
geom1 = amr.Geometry(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(15, 15, 15)), amr.RealBox([0.0] * 3, [1.0] * 3), 0, [0] * 3)
mfs = [amr.MultiFab(ba, dm, 2, 0), amr.MultiFab(ba1, amr.DistributionMapping(ba1), 2, 0)]
for l, mf in enumerate(mfs):
    for mfi in mf:
        a = mf.array(mfi).to_numpy()
        a[...] = np.random.default_rng(l * 100 + mfi.index).random(a.shape)
def dense(mf):
    return sorted((tuple(mfi.validbox().small_end), mf.array(mfi).to_numpy().copy().tobytes()) for mfi in mf)
want = [dense(m) for m in mfs]
amr.write_multi_level_plotfile("good", 2, mfs, ["a", "b"], [geom, geom1], 0.5, [1, 2], [amr.IntVect(2, 2, 2)])
H = open("good/Header", "rb").read()
C = open("good/Level_0/Cell_H", "rb").read()
D = open("good/Level_0/Cell_D_00000", "rb").read()
def outcome(path):
    try:
        p = amr.PlotFileData(path)
        names = list(p.varNames())
        for l in range(p.finestLevel() + 1):
            got = p.get(l)
            if l < 2 and names == ["a", "b"] and dense(got) != want[l]:
                return "WRONG DATA"
        return "ok"
    except (ValueError, OSError, IndexError, RuntimeError) as e:
        return type(e).__name__ + ("" if str(e) else " EMPTY MESSAGE")
results = {}
def case(name, fn):
    d = "m_" + name
    shutil.copytree("good", d, symlinks=True)
    fn(d)
    results[name] = outcome(d)
    shutil.rmtree(d, ignore_errors=True)
def put(rel, data, check=True):
    assert not check or data not in (H, C, D), "a mutation that changes nothing"
    def f(d):
        with open(os.path.join(d, rel), "wb") as fh:
            fh.write(data)
    return f
lines = H.split(b"\n")
def header_lines(fn, check=True):
    ls = list(lines)
    fn(ls)
    return put("Header", b"\n".join(ls), check)
case("crlf", put("Header", H.replace(b"\n", b"\r\n")))
case("nvars_50", header_lines(lambda ls: ls.__setitem__(1, b"50")))
case("nvars_99999", header_lines(lambda ls: ls.__setitem__(1, b"99999")))
case("nvars_huge", header_lines(lambda ls: ls.__setitem__(1, b"99999999999999999999")))
case("finest_999", header_lines(lambda ls: ls.__setitem__(6, b"999")))
case("nul_in_name", header_lines(lambda ls: ls.__setitem__(2, b"a\0x")))
case("ngrids_negative", put("Header", H.replace(b"\n0 8 0.5", b"\n0 -1 0.5", 1)))
case("ngrids_2_31", put("Header", H.replace(b"\n0 8 0.5", b"\n0 2147483648 0.5", 1)))
case("level_path_absolute", put("Header", H.replace(b"Level_0/Cell", b"/etc/Cell", 1)))
case("level_path_up", put("Header", H.replace(b"Level_0/Cell", b"Level_0/../../good/Level_0/Cell", 1)))
case("header_empty", put("Header", b""))
case("header_is_a_dir", lambda d: (os.remove(d + "/Header"), os.mkdir(d + "/Header")))
case("header_symlink_loop", lambda d: (os.remove(d + "/Header"), os.symlink("Header", d + "/Header")))
case("header_dangling", lambda d: (os.remove(d + "/Header"), os.symlink("nowhere", d + "/Header")))
case("level_is_a_file", lambda d: (shutil.rmtree(d + "/Level_0"), open(d + "/Level_0", "w").close()))
case("cellh_offset_huge", put("Level_0/Cell_H", C.replace(b"Cell_D_00000 0", b"Cell_D_00000 4611686018427387904", 1)))
case("cellh_offset_negative", put("Level_0/Cell_H", C.replace(b"Cell_D_00000 0", b"Cell_D_00000 -8", 1)))
case("cellh_missing_file", put("Level_0/Cell_H", C.replace(b"Cell_D_00000 0", b"Cell_D_99999 0", 1)))
case("cellh_ncomp", put("Level_0/Cell_H", C.replace(b"1\n1\n2\n", b"1\n1\n3\n", 1)))
case("cellh_nbox_plus_one", put("Level_0/Cell_H", C.replace(b"(8 0", b"(9 0", 1)))
case("cellh_box_type_2", put("Level_0/Cell_H", C.replace(b"(0,0,0))", b"(2,0,0))", 1)))
case("cellh_box_reversed", put("Level_0/Cell_H", C.replace(b"((0,0,0) (3,3,3)", b"((3,3,3) (0,0,0)", 1)))
case("cellh_ghost_2d", put("Level_0/Cell_H", C.replace(b"1\n1\n2\n0\n", b"1\n1\n2\n(1,1)\n", 1)))
case("cellh_minmax_short", put("Level_0/Cell_H", C[:C.rindex(b",\n") - 3]))
case("data_is_a_dir", lambda d: (os.remove(d + "/Level_0/Cell_D_00000"), os.mkdir(d + "/Level_0/Cell_D_00000")))
case("data_empty", put("Level_0/Cell_D_00000", b""))
case("data_no_newline", put("Level_0/Cell_D_00000", b"F" * 5000 + D[5000:]))
case("data_fab_ncomp", put("Level_0/Cell_D_00000", D.replace(b") 2\n", b") 3\n", 1)))
case("data_fab_box_moved", put("Level_0/Cell_D_00000", D.replace(b"((0,0,0) (3,3,3)", b"((1,0,0) (4,3,3)", 1)))
case("data_symlink_outside", lambda d: (os.remove(d + "/Level_0/Cell_D_00000"), os.symlink("/dev/zero", d + "/Level_0/Cell_D_00000")))
for k in range(1, len(lines)):
    case(f"cut_line_{k}", put("Header", b"\n".join(lines[:k])))
for t in range(40):
    def shuffle(ls, t=t):
        i, j = rng.randrange(len(ls)), rng.randrange(len(ls))
        kind = rng.randrange(4)
        if kind == 0: ls[i], ls[j] = ls[j], ls[i]
        elif kind == 1: del ls[i]
        elif kind == 2: ls.insert(i, ls[j])
        else: ls[i] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 12)))
    case(f"random_{t}", header_lines(shuffle, False))
for t in range(20):
    cut = rng.randrange(len(C))
    case(f"cellh_cut_{t}", put("Level_0/Cell_H", C[:cut], False))
print(repr(results))
"""


def test_mutated_plotfiles_fail_cleanly_or_read_right(tmp_path):
    out = run(tmp_path, MUTANTS, timeout=600)
    results = eval(out.strip().split("\n")[-1])
    wrong = {k: v for k, v in results.items() if v not in ("ok", "ValueError", "OSError")}
    assert not wrong, wrong
    expect_error = {
        "nvars_50": "ValueError", "nvars_99999": "ValueError", "nvars_huge": "ValueError", "finest_999": "ValueError",
        "nul_in_name": "ValueError", "ngrids_negative": "ValueError", "ngrids_2_31": "ValueError",
        "level_path_absolute": "ValueError", "level_path_up": "ValueError", "header_empty": "ValueError",
        "header_is_a_dir": "OSError", "header_symlink_loop": "OSError", "header_dangling": "OSError",
        "level_is_a_file": "OSError", "cellh_offset_huge": "ValueError", "cellh_offset_negative": "ValueError",
        "cellh_missing_file": "OSError", "cellh_ncomp": "ValueError", "cellh_nbox_plus_one": "ValueError",
        "cellh_box_type_2": "ValueError", "cellh_box_reversed": "ValueError", "cellh_ghost_2d": "ValueError",
        "cellh_minmax_short": "ValueError", "data_is_a_dir": "OSError", "data_empty": "ValueError",
        "data_no_newline": "ValueError", "data_fab_ncomp": "ValueError", "data_fab_box_moved": "ValueError",
        "data_symlink_outside": "OSError",
    }
    got = {k: results[k] for k in expect_error}
    assert got == expect_error
    assert results["crlf"] == "ok"
    # every cut of the Header before its last line is an error (the last line is the level-1 MultiFab path)
    cuts = {k: v for k, v in results.items() if k.startswith("cut_line_")}
    assert all(v != "ok" for k, v in cuts.items() if int(k.split("_")[-1]) < len(cuts)), cuts
