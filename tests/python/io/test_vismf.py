"""MultiFab checkpoints in AMReX's VisMF format (issue 11): VisMF.Write(mf, name) writes name_H and
name_D_00000 (grown FABs, native float64) and VisMF.Read restores every bit, ghost cells, NaN payloads,
-0.0 and denormals included; a run restarted from a checkpoint in another process continues bit for bit."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import boxfab.space1d as amr1
import boxfab.space2d as amr2
import boxfab.space3d as amr

HERE = os.path.dirname(os.path.abspath(__file__))
MODS = {1: amr1, 2: amr2, 3: amr}


@pytest.fixture(scope="module", autouse=True)
def runtime():
    amr.initialize(["amrex.verbose=0"])
    yield
    amr.finalize()


def make_mf(mod, dim, ncomp=3, ngrow=2, n=12, seed=0):
    dom = mod.Box(mod.IntVect(*([0] * dim)), mod.IntVect(*([n - 1] * dim)))
    ba = mod.BoxArray(dom)
    ba.max_size(5)
    mf = mod.MultiFab(ba, mod.DistributionMapping(ba), ncomp, ngrow)
    rng = np.random.default_rng(seed)
    specials = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 5e-324, -2.2e-310, 1.7976931348623157e308],
                        dtype="f8").view("u8")
    specials = np.concatenate([specials, [0x7FF0000000000123, 0xFFF8DEADBEEF0001]]).astype("u8")  # NaN payloads
    for mfi in mf:
        a = mf.array(mfi).to_numpy()
        bits = rng.integers(0, 2**64, size=a.shape, dtype="u8")  # every bit pattern, sNaN included
        pick = rng.random(a.shape) < 0.2
        bits[pick] = specials[rng.integers(0, len(specials), size=int(pick.sum()))]
        a[...] = bits.view("f8")
    return mf


def bits_of(mf):
    """All data (ghost cells included) as raw uint64, per box index."""
    return {mfi.index: mf.array(mfi).to_numpy().view("u8").copy() for mfi in mf}


def assert_same_bits(a, b):
    ba, bb = bits_of(a), bits_of(b)
    assert ba.keys() == bb.keys()
    for k in ba:
        assert ba[k].shape == bb[k].shape
        assert np.array_equal(ba[k], bb[k]), f"box {k} differs"


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_round_trip_bit_for_bit(tmp_path, dim):
    mod = MODS[dim]
    mf = make_mf(mod, dim)
    name = str(tmp_path / "chk")
    mod.VisMF.Write(mf, name)
    assert sorted(os.listdir(tmp_path)) == ["chk_D_00000", "chk_H"]  # no temporary file left
    back = mod.MultiFab(mf.box_array(), mf.dm(), 3, 2)
    back.set_val(1.0)
    assert mod.VisMF.Read(back, name) is None
    assert_same_bits(mf, back)
    fresh = mod.VisMF.Read(name)
    assert isinstance(fresh, mod.MultiFab)
    assert fresh.n_comp == 3 and fresh.n_grow_vect == mod.IntVect(*([2] * dim))
    assert fresh.box_array() == mf.box_array()
    assert_same_bits(mf, fresh)


def test_non_uniform_ghost_width_and_one_component(tmp_path):
    ba = amr.BoxArray(amr.Box(amr.IntVect(-3, 0, 2), amr.IntVect(8, 9, 6)))
    ba.max_size(4)
    mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, amr.IntVect(1, 3, 0))
    for mfi in mf:
        a = mf.array(mfi).to_numpy()
        a[...] = np.arange(a.size, dtype="f8").reshape(a.shape) * -0.5 - 0.0
    name = str(tmp_path / "ng")
    amr.VisMF.Write(mf, name)
    assert open(name + "_H").read().split("\n")[3] == "(1,3,0)"  # AMReX writes a non-uniform width as an IntVect
    fresh = amr.VisMF.Read(name)
    assert fresh.n_grow_vect == amr.IntVect(1, 3, 0)
    assert_same_bits(mf, fresh)


def parse_data_file(path):
    """Independent reader of a VisMF data file: {offset: (box lo, box hi, ncomp, array[comp, z, y, x])}."""
    data = open(path, "rb").read()
    pos, out = 0, {}
    while pos < len(data):
        nl = data.index(b"\n", pos)
        line = data[pos:nl].decode()
        assert line.startswith("FAB ((8, (64 11 52 0 1 12 0 1023)),(8, (8 7 6 5 4 3 2 1)))")
        box, ncomp = line[line.index(")))") + 3:].rsplit(" ", 1)
        lo, hi = [list(map(int, t.split(","))) for t in box.strip("()").replace(") (", "|").split("|")[:2]]
        shape = [h - l + 1 for l, h in zip(lo, hi)]
        n = int(np.prod(shape)) * int(ncomp)
        arr = np.frombuffer(data, dtype="<f8", count=n, offset=nl + 1).reshape([int(ncomp)] + shape[::-1])
        out[pos] = (lo, hi, int(ncomp), arr)
        pos = nl + 1 + n * 8
    return out


def test_layout_is_amrex_visMF(tmp_path):
    """The header names the data file by its base name with the offsets of grown FABs; the data are the
    grown FABs (AMReX's VisMF::Write) in Fortran order, min/max over the valid boxes."""
    mf = amr.MultiFab(*(lambda ba: (ba, amr.DistributionMapping(ba)))(
        (lambda b: (b.max_size(4), b)[1])(amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(7, 3, 3))))), 2, 1)
    mf.set_val(-100.0)  # ghost cells: outside the min/max
    for mfi in mf:
        bx = mfi.validbox()
        a = mf.array(mfi).to_numpy()
        i, j, k = np.meshgrid(*[np.arange(bx.length()[d]) + bx.small_end[d] for d in range(3)], indexing="ij")
        a[1:-1, 1:-1, 1:-1, 0] = i + 10.0 * j + 100.0 * k
        a[1:-1, 1:-1, 1:-1, 1] = -(i + 10.0 * j + 100.0 * k)
    name = str(tmp_path / "sub_chk")
    amr.VisMF.Write(mf, name)
    lines = open(name + "_H").read().split("\n")
    assert lines[:5] == ["1", "1", "2", "1", "(2 0"]
    assert lines[5:8] == ["((0,0,0) (3,3,3) (0,0,0))", "((4,0,0) (7,3,3) (0,0,0))", ")"]
    assert lines[8] == "2"
    fabs = parse_data_file(name + "_D_00000")
    offs = []
    for ln in lines[9:11]:
        word, fname, off = ln.split()
        assert word == "FabOnDisk:" and fname == "sub_chk_D_00000"
        offs.append(int(off))
    assert sorted(fabs) == offs
    arrays = {mfi.index: mf.array(mfi).to_numpy() for mfi in mf}
    for b, off in enumerate(offs):
        lo, hi, nc, arr = fabs[off]
        bx = mf.box_array()[b]
        assert lo == [x - 1 for x in bx.small_end] and hi == [x + 1 for x in bx.big_end] and nc == 2
        for c in range(2):  # to_numpy is [x, y, z, c]; on disk [c][z][y][x]
            assert np.array_equal(arr[c], arrays[b][..., c].T)
    # min/max blocks: over the valid cells only, 17 digits in scientific notation
    assert lines[12] == "2,2" and lines[16] == "2,2"
    assert lines[13] == f"{0.0:.17e},{-333.0:.17e},"
    assert lines[17] == f"{333.0:.17e},{-0.0:.17e},"


def test_same_files_as_the_plotfile_writer_without_ghost_cells(tmp_path):
    """For ngrow 0, a VisMF checkpoint is the plotfile's Cell_H / Cell_D pair: the same data bytes and the same
    header but the FabOnDisk name."""
    ba = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(9, 7, 5)))
    ba.max_size(4)
    mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 2, 0)
    for mfi in mf:
        a = mf.array(mfi).to_numpy()
        a[...] = np.sin(np.arange(a.size)).reshape(a.shape) * 1e-3
    geom = amr.Geometry(ba.minimal_box(), amr.RealBox([0, 0, 0], [1, 1, 1]), 0, [0, 0, 0])
    amr.write_single_level_plotfile(str(tmp_path / "plt"), mf, ["a", "b"], geom, 0.0, 0)
    amr.VisMF.Write(mf, str(tmp_path / "Cell"))
    assert open(tmp_path / "Cell_D_00000", "rb").read() == open(tmp_path / "plt/Level_0/Cell_D_00000", "rb").read()
    assert open(tmp_path / "Cell_H").read() == open(tmp_path / "plt/Level_0/Cell_H").read()
    amr.VisMF.Write(mf, str(tmp_path / "other"))
    assert open(tmp_path / "other_H").read() == open(tmp_path / "Cell_H").read().replace("Cell_D", "other_D")
    # and the plotfile reader reads a checkpoint's files as a level of a plotfile
    os.replace(tmp_path / "Cell_H", tmp_path / "plt/Level_0/Cell_H")
    os.replace(tmp_path / "Cell_D_00000", tmp_path / "plt/Level_0/Cell_D_00000")
    assert_same_bits(mf, amr.PlotFileData(str(tmp_path / "plt")).get(0))


def test_overwrite_and_relative_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    a = make_mf(amr, 3, ncomp=1, ngrow=1, n=6, seed=1)
    b = make_mf(amr, 3, ncomp=1, ngrow=1, n=6, seed=2)
    amr.VisMF.Write(a, "chk")
    amr.VisMF.Write(b, "chk")
    assert sorted(os.listdir(".")) == ["chk_D_00000", "chk_H"]
    assert_same_bits(b, amr.VisMF.Read("chk"))


HEAT = textwrap.dedent("""
    import sys
    import numpy as np
    import boxfab.space2d as amr
    amr.initialize(["amrex.verbose=0"])
    mode, first, nsteps, name = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    dom = amr.Box(amr.IntVect(0, 0), amr.IntVect(31, 23))
    geom = amr.Geometry(dom, amr.RealBox([0, 0], [1, 1]), 0, [1, 1])
    ba = amr.BoxArray(dom)
    ba.max_size(8)
    dm = amr.DistributionMapping(ba)
    if mode == "restart":
        phi = amr.VisMF.Read(name)
        dm = phi.dm()
    else:
        phi = amr.MultiFab(ba, dm, 2, 1)
        for mfi in phi:
            a = phi.array(mfi).to_numpy()
            a[...] = np.random.default_rng(mfi.index).random(a.shape) - 0.5
    new = amr.MultiFab(phi.box_array(), dm, 2, 1)
    for step in range(first, first + nsteps):
        phi.fill_boundary(geom.periodicity())
        for mfi in phi:
            o, n = phi.array(mfi).to_numpy(), new.array(mfi).to_numpy()
            n[1:-1, 1:-1] = o[1:-1, 1:-1] + 0.1 * (o[2:, 1:-1] + o[:-2, 1:-1] + o[1:-1, 2:] + o[1:-1, :-2]
                                                   - 4.0 * o[1:-1, 1:-1]) * (1.0 + 1e-3 * step)
        amr.copy_mfab(phi, new, 0, 0, 2, 0)
    amr.VisMF.Write(phi, name if mode == "start" else name + "_final")
    amr.finalize()
    """)


def test_restart_continues_bit_for_bit(tmp_path):
    """Heat-equation steps: 5 steps, checkpoint, 7 more in a new process from the checkpoint == 12 in one go."""
    script = tmp_path / "heat.py"
    script.write_text(HEAT)
    run = lambda *a: subprocess.run([sys.executable, str(script), *map(str, a)], capture_output=True, text=True,
                                    timeout=300)
    r = run("start", 0, 5, tmp_path / "chk")
    assert r.returncode == 0, r.stderr
    r = run("restart", 5, 7, tmp_path / "chk")
    assert r.returncode == 0, r.stderr
    r = run("straight", 0, 12, tmp_path / "ref")
    assert r.returncode == 0, r.stderr
    restarted = amr2.VisMF.Read(str(tmp_path / "chk_final"))
    straight = amr2.VisMF.Read(str(tmp_path / "ref_final"))
    assert_same_bits(restarted, straight)
    assert open(tmp_path / "chk_final_D_00000", "rb").read() == open(tmp_path / "ref_final_D_00000", "rb").read()


def test_read_checks_what_differs(tmp_path):
    mf = make_mf(amr, 3, ncomp=2, ngrow=1, n=8)
    name = str(tmp_path / "chk")
    amr.VisMF.Write(mf, name)
    ba, dm = mf.box_array(), mf.dm()
    with pytest.raises(ValueError, match="components"):
        amr.VisMF.Read(amr.MultiFab(ba, dm, 3, 1), name)
    with pytest.raises(ValueError, match="ghost cells"):
        amr.VisMF.Read(amr.MultiFab(ba, dm, 2, 2), name)
    ba2 = amr.BoxArray(ba.minimal_box())
    ba2.max_size(3)
    with pytest.raises(ValueError, match="BoxArray"):
        amr.VisMF.Read(amr.MultiFab(ba2, amr.DistributionMapping(ba2), 2, 1), name)
    with pytest.raises(ValueError, match="2D|3D"):
        amr2.VisMF.Read(name)  # the boxes are 3D
    with pytest.raises(TypeError):
        amr.VisMF.Read(amr.iMultiFab(ba, dm, 2, 1), name)
    with pytest.raises(TypeError):
        amr.VisMF.Write(amr.iMultiFab(ba, dm, 2, 1), name)
    with pytest.raises(TypeError):
        amr.VisMF.Write(mf, 5)
    with pytest.raises(TypeError):
        amr.VisMF.Read(mf)
    with pytest.raises(RuntimeError):
        amr.VisMF.Write(amr.MultiFab(), name)
    with pytest.raises(ValueError):
        amr.VisMF.Write(mf, str(tmp_path) + "/")


def test_missing_and_unwritable_paths_name_the_path(tmp_path):
    mf = make_mf(amr, 3, ncomp=1, ngrow=0, n=4)
    missing = str(tmp_path / "nothere")
    with pytest.raises(OSError, match="nothere_H"):
        amr.VisMF.Read(missing)
    with pytest.raises(OSError, match="nothere_H"):
        amr.VisMF.Read(mf, missing)
    with pytest.raises(OSError, match="nodir"):
        amr.VisMF.Write(mf, str(tmp_path / "nodir" / "chk"))
    (tmp_path / "file").write_text("x")
    with pytest.raises(OSError, match="file"):
        amr.VisMF.Write(mf, str(tmp_path / "file" / "chk"))
    amr.VisMF.Write(mf, str(tmp_path / "chk"))
    os.remove(tmp_path / "chk_D_00000")
    with pytest.raises(OSError, match="chk_D_00000"):
        amr.VisMF.Read(str(tmp_path / "chk"))


def test_damaged_files_raise_value_error_with_file_and_line(tmp_path):
    mf = make_mf(amr, 3, ncomp=2, ngrow=1, n=8)
    name = str(tmp_path / "chk")
    amr.VisMF.Write(mf, name)
    good = open(name + "_H").read()
    lines = good.split("\n")

    def damaged(new_lines):
        with open(name + "_H", "w") as f:
            f.write("\n".join(new_lines))

    for idx, bad, line in [(0, "7", 1), (2, "x", 3), (3, "-1", 4), (5, "((0,0,0) (3,3) (0,0,0))", 6),
                           (len(lines) - 3, "1e5,", None)]:
        damaged(lines[:idx] + [bad] + lines[idx + 1:])
        with pytest.raises(ValueError, match=r"chk_H, line \d+") as e:
            amr.VisMF.Read(name)
        if line:
            assert f"line {line}:" in str(e.value)
        with pytest.raises(ValueError, match=r"chk_H, line"):
            amr.VisMF.Read(mf, name)
    damaged(lines[:7])  # truncated
    with pytest.raises(ValueError, match=r"chk_H, line"):
        amr.VisMF.Read(name)
    fod = next(i for i, ln in enumerate(lines) if ln.startswith("FabOnDisk:"))
    damaged(lines[:fod] + ["FabOnDisk: ../../etc/passwd 0"] + lines[fod + 1:])
    with pytest.raises(ValueError, match="plain name"):
        amr.VisMF.Read(name)
    # a truncated data file
    damaged(lines)
    data = open(name + "_D_00000", "rb").read()
    open(name + "_D_00000", "wb").write(data[:len(data) - 8])
    with pytest.raises(ValueError, match="truncated"):
        amr.VisMF.Read(name)
    with pytest.raises(ValueError, match="truncated"):
        amr.VisMF.Read(mf, name)
    # a header claiming ghost cells the data file does not hold: the FABs do not match
    amr.VisMF.Write(make_mf(amr, 3, ncomp=2, ngrow=0, n=8), name)
    damaged(open(name + "_H").read().split("\n")[:3] + ["1"] + open(name + "_H").read().split("\n")[4:])
    with pytest.raises(ValueError, match="does not cover"):
        amr.VisMF.Read(name)
    amr.VisMF.Write(mf, name)
    data = open(name + "_D_00000", "rb").read()
    # random bytes never crash
    rng = np.random.default_rng(3)
    for _ in range(200):
        blob = bytearray(good.encode())
        for _ in range(rng.integers(1, 6)):
            blob[rng.integers(0, len(blob))] = rng.integers(0, 256)
        open(name + "_H", "wb").write(bytes(blob))
        open(name + "_D_00000", "wb").write(data)
        try:
            amr.VisMF.Read(name)
        except (ValueError, OSError):
            pass


def test_disk_full_leaves_no_file(tmp_path):
    """A file size limit makes write() fail with EFBIG midway: OSError naming the data file, nothing left."""
    code = textwrap.dedent(f"""
        import resource, signal
        import numpy as np
        import boxfab.space3d as amr
        amr.initialize(["amrex.verbose=0"])
        ba = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(31, 31, 31)))
        mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 2, 1)
        mf.set_val(1.5)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (100000, 100000))
        amr.VisMF.Write(mf, {str(tmp_path / "chk")!r})
        """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "OSError" in r.stderr and "chk_D_00000" in r.stderr, r.stderr
    assert os.listdir(tmp_path) == []


# ---- crash safety: SIGKILL at 50 random moments ----------------------------------------------------
KILL_CHILD = textwrap.dedent("""
    import sys
    sys.path[:0] = [{here!r}, __import__("os").path.dirname({here!r})]  # the test module, and the helpers it imports
    import boxfab.space3d as amr
    amr.initialize(["amrex.verbose=0"])
    from test_vismf import kill_test_mfs
    mfs = kill_test_mfs()
    sys.stdout.write("ready\\n"); sys.stdout.flush()
    for i in range(100000):
        amr.VisMF.Write(mfs[i % 2], {name!r})
    """)


def kill_test_mfs():
    """Two checkpoints that differ in everything: BoxArray (27 vs 8 boxes), ghost width and bits, so that
    a header of one with the data of the other cannot read back as either."""
    a = make_mf(amr, 3, ncomp=2, ngrow=1, n=15, seed=21)          # max_size 5: 27 boxes
    dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(15, 15, 15))
    ba = amr.BoxArray(dom)
    ba.max_size(8)
    b = amr.MultiFab(ba, amr.DistributionMapping(ba), 2, 2)
    rng = np.random.default_rng(22)
    for mfi in b:
        x = b.array(mfi).to_numpy()
        x[...] = rng.integers(0, 2**64, size=x.shape, dtype="u8").view("f8")
    return a, b


def test_sigkill_never_leaves_a_partial_checkpoint(tmp_path):
    """A writer that rewrites one checkpoint in a loop, alternating two different MultiFabs, is killed
    with SIGKILL at 50 random moments.  Afterwards, under the final names there is either no header, or
    a header that reads back bit for bit as one of the two MultiFabs; anything else is a temporary
    sibling (a dot file)."""
    import signal
    import time
    expect = kill_test_mfs()
    name = str(tmp_path / "chk")
    code = KILL_CHILD.format(here=HERE, name=name)
    rng = np.random.default_rng(11)
    seen = {"none": 0, 0: 0, 1: 0}
    for trial in range(50):
        p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert p.stdout.readline() == b"ready\n", p.stderr.read()
        time.sleep(float(rng.uniform(0.0, 0.05)))
        p.send_signal(signal.SIGKILL)
        p.wait()
        p.stdout.close(), p.stderr.close()
        names = os.listdir(tmp_path)
        for n in names:
            assert n in ("chk_H", "chk_D_00000") or n.startswith(".bftmp."), (trial, n)
        if "chk_H" not in names:
            seen["none"] += 1
            continue
        assert "chk_D_00000" in names, trial
        got = amr.VisMF.Read(name)                # a complete one: reads without error ...
        which = 0 if got.box_array().size == expect[0].box_array().size else 1
        assert_same_bits(expect[which], got)      # ... and is one of the two, bit for bit
        seen[which] += 1
    assert seen[0] + seen[1] > 0, seen            # the test did see finished checkpoints
    # the temporary siblings are the only debris; a later write still works and cleans nothing it must not
    amr.VisMF.Write(expect[0], name)
    assert_same_bits(expect[0], amr.VisMF.Read(name))


def test_failed_data_rename_keeps_the_previous_checkpoint(tmp_path):
    """When the data cannot be put in place (here <name>_D_00000 is a directory), OSError names it and
    the previous checkpoint is untouched."""
    a = make_mf(amr, 3, ncomp=1, ngrow=1, n=6, seed=1)
    name = str(tmp_path / "chk")
    amr.VisMF.Write(a, name)
    before = {f: open(tmp_path / f, "rb").read() for f in os.listdir(tmp_path)}
    os.rename(tmp_path / "chk_D_00000", tmp_path / "keep")
    os.mkdir(tmp_path / "chk_D_00000")
    with pytest.raises(OSError, match="chk_D_00000"):
        amr.VisMF.Write(make_mf(amr, 3, ncomp=1, ngrow=1, n=6, seed=2), name)
    os.rmdir(tmp_path / "chk_D_00000")
    os.rename(tmp_path / "keep", tmp_path / "chk_D_00000")
    assert {f: open(tmp_path / f, "rb").read() for f in os.listdir(tmp_path)} == before
    assert_same_bits(a, amr.VisMF.Read(name))


def test_clear_from_another_thread_during_a_write_does_not_crash():
    """VisMF.Write / Read(mf, name) and the plotfile writers used to release the GIL while reading the
    caller's MultiFab: mf.clear() in another thread freed the data under the writer (a segfault).  In a
    child process: every write either completes (and reads back) or raises; the process exits cleanly."""
    code = textwrap.dedent("""
        import os, tempfile, threading, time
        import numpy as np
        import boxfab.space3d as amr
        amr.initialize(["amrex.verbose=0"])
        d = tempfile.mkdtemp()
        outcomes = set()
        for trial in range(12):
            ba = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(95, 95, 95)))
            ba.max_size(32)
            mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 2, 1)
            mf.set_val(float(trial))
            def work():
                try:
                    if trial % 3 == 0:
                        amr.write_single_level_plotfile(os.path.join(d, "plt"), mf, ["a", "b"],
                            amr.Geometry(ba.minimal_box(), amr.RealBox([0, 0, 0], [1, 1, 1]), 0, [0, 0, 0]), 0.0, 0)
                    elif trial % 3 == 1:
                        amr.VisMF.Write(mf, os.path.join(d, "chk"))
                        back = amr.VisMF.Read(os.path.join(d, "chk"))
                        assert back.min(0) == back.max(0) == float(trial)
                    else:
                        amr.VisMF.Read(mf, os.path.join(d, "chk"))
                    outcomes.add("done")
                except RuntimeError as e:
                    outcomes.add("RuntimeError")
            t = threading.Thread(target=work)
            t.start()
            time.sleep(0.001 * (trial % 4))
            mf.clear()
            t.join()
        print("ok", sorted(outcomes))
        amr.finalize()
        """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr[-2000:])
    assert r.stdout.startswith("ok"), r.stdout


def test_paths_that_are_not_utf8_and_nul(tmp_path):
    """Paths follow os.fsencode (as open() and the particle writers): bytes and str with surrogate escapes
    name the file they say (they raised UnicodeEncodeError); a NUL is a ValueError; nothing is written."""
    if sys.getfilesystemencoding().lower() not in ("utf-8", "utf8"):
        pytest.skip("needs a UTF-8 file system encoding")
    a = make_mf(amr, 3, ncomp=1, ngrow=1, n=6, seed=3)
    raw = os.fsencode(str(tmp_path)) + b"/chk\xff"
    amr.VisMF.Write(a, raw)
    assert os.path.exists(raw + b"_H") and os.path.exists(raw + b"_D_00000")
    assert_same_bits(a, amr.VisMF.Read(os.fsdecode(raw)))              # str with a surrogate escape
    geom = amr.Geometry(a.box_array().minimal_box(), amr.RealBox([0, 0, 0], [1, 1, 1]), 0, [0, 0, 0])
    plt = os.fsencode(str(tmp_path)) + b"/plt\xfe"
    amr.write_single_level_plotfile(os.fsdecode(plt), a, ["a"], geom, 0.0, 0)
    assert os.path.isdir(plt) and amr.PlotFileData(plt).nComp() == 1
    for bad in (str(tmp_path / "x\0y"), os.fsencode(str(tmp_path)) + b"/x\0y"):
        with pytest.raises(ValueError):
            amr.VisMF.Write(a, bad)
        with pytest.raises(ValueError):
            amr.write_single_level_plotfile(bad, a, ["a"], geom, 0.0, 0)
        with pytest.raises(ValueError):
            amr.PlotFileData(bad)
    assert sorted(os.listdir(os.fsencode(str(tmp_path)))) == sorted([b"chk\xff_H", b"chk\xff_D_00000", b"plt\xfe"])


def test_blanks_that_would_make_unreadable_files_are_refused(tmp_path):
    """The headers name data files as whitespace-separated tokens (AMReX reads them with >>): a VisMF
    name with a blank in its last component, or a levelPrefix / mfPrefix with one, wrote files that no
    reader could open.  ValueError before anything is written; blanks in directories stay fine."""
    a = make_mf(amr, 3, ncomp=1, ngrow=0, n=6, seed=4)
    geom = amr.Geometry(a.box_array().minimal_box(), amr.RealBox([0, 0, 0], [1, 1, 1]), 0, [0, 0, 0])
    for name in ("a b", "a\tb", "x\vy"):
        with pytest.raises(ValueError, match="blank"):
            amr.VisMF.Write(a, str(tmp_path / name))
    for kw in (dict(mfPrefix="C ell"), dict(levelPrefix="Lev el_"), dict(mfPrefix="C\tell")):
        with pytest.raises(ValueError, match="blank"):
            amr.write_single_level_plotfile(str(tmp_path / "plt"), a, ["a"], geom, 0.0, 0, **kw)
    assert os.listdir(tmp_path) == []
    (tmp_path / "dir with blanks").mkdir()
    amr.VisMF.Write(a, str(tmp_path / "dir with blanks" / "chk"))
    assert_same_bits(a, amr.VisMF.Read(str(tmp_path / "dir with blanks" / "chk")))
    amr.write_single_level_plotfile(str(tmp_path / "plot with blanks"), a, ["a b"], geom, 0.0, 0)
    p = amr.PlotFileData(str(tmp_path / "plot with blanks"))
    assert list(p.varNames()) == ["a b"] and p.get(0, "a b").max(0) == a.max(0)
