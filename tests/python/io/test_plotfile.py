"""Mesh plotfiles (issue 11): write_single_level_plotfile / write_multi_level_plotfile write the same
bytes as AMReX 24.10 (compared with the fixture AMReX wrote itself, rebuilt from its formulas),
atomically (a temporary sibling renamed into place; an existing directory moved to .old.*), and
fail with OSError naming the path."""
import filecmp
import os
import shutil
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import boxfab.space1d as amr1
import boxfab.space2d as amr2
import boxfab.space3d as amr
from amrex_fixture import MESH as FIXTURE, needs_fixture

HERE = os.path.dirname(os.path.abspath(__file__))




@pytest.fixture(scope="module", autouse=True)
def runtime():
    amr.initialize(["amrex.verbose=0"])
    yield
    amr.finalize()


def fixture_mf():
    """The fixture's data, from the formulas of made_by.py (NumPy over global indices)."""
    dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(31, 31, 31))
    ba = amr.BoxArray(dom)
    ba.max_size(16)
    dm = amr.DistributionMapping(ba)
    geom = amr.Geometry(dom, amr.RealBox([-1.0, 0.0, 0.0], [1.0, 2.0, 0.5]), 0, [1, 1, 0])
    mf = amr.MultiFab(ba, dm, 2, 1)
    mf.set_val(-7.0)
    for mfi in mf:
        bx = mfi.validbox()
        a = mf.array(mfi).to_numpy()
        lo, n = bx.small_end, bx.length()
        i, j, k = np.meshgrid(*[np.arange(n[d]) + lo[d] for d in range(3)], indexing="ij")
        a[1:-1, 1:-1, 1:-1, 0] = i + 100.0 * j + 10000.0 * k
        a[1:-1, 1:-1, 1:-1, 1] = np.sin(0.1 * i) * np.cos(0.2 * j) + 0.001 * k
    return mf, geom


def listing(path):
    out = []
    for root, dirs, files in os.walk(path):
        for f in files:
            out.append(os.path.relpath(os.path.join(root, f), path))
    return sorted(out)


# ---- the same bytes as AMReX ---------------------------------------------------------------------
@needs_fixture
@pytest.mark.parametrize("varnames", [lambda: amr.Vector_string(["rho", "temp"]), lambda: ["rho", "temp"]])
def test_single_level_same_bytes_as_amrex(tmp_path, varnames):
    mf, geom = fixture_mf()
    out = str(tmp_path / "plt_mesh")
    assert amr.write_single_level_plotfile(out, mf, varnames(), geom, 1.5, 7) is None
    for f in ["Header", "Level_0/Cell_H", "Level_0/Cell_D_00000"]:
        assert filecmp.cmp(os.path.join(FIXTURE, f), os.path.join(out, f), shallow=False), f
    assert listing(out) == ["Header", "Level_0/Cell_D_00000", "Level_0/Cell_H", "job_info"]
    with open(os.path.join(out, "job_info")) as f:
        assert "amrex" in f.read()       # yt's AMReX frontend looks for it
    # nothing else beside it (no temporary directory left)
    assert sorted(os.listdir(tmp_path)) == ["plt_mesh"]


def read_fabs(path, ncomp, dtype="<f8"):
    """Independent reader of a Cell_D file: (box text, array[comp, z, y, x]) per FAB."""
    data = open(path, "rb").read()
    pos, out = 0, []
    while pos < len(data):
        nl = data.index(b"\n", pos)
        line = data[pos:nl].decode()
        pos = nl + 1
        box = line[line.index(")))") + 3:].rsplit(" ", 1)[0]
        nums = [list(map(int, t.split(","))) for t in box.strip("()").replace(") (", "|").split("|")[:2]]
        shape = [h - l + 1 for l, h in zip(*nums)]
        n = int(np.prod(shape)) * ncomp
        arr = np.frombuffer(data, dtype=dtype, count=n, offset=pos).reshape([ncomp] + shape[::-1])
        pos += n * np.dtype(dtype).itemsize
        out.append((line, arr))
    return out


@needs_fixture
def test_float32_data_and_descriptor(tmp_path):
    mf, geom = fixture_mf()
    pp = amr.ParmParse("fab")
    pp.add("format", "NATIVE_32")
    try:
        amr.write_single_level_plotfile(str(tmp_path / "p32"), mf, ["rho", "temp"], geom, 1.5, 7)
    finally:
        pp.add("format", "NATIVE")
    fabs = read_fabs(str(tmp_path / "p32/Level_0/Cell_D_00000"), 2, "<f4")
    assert len(fabs) == 8
    for (line, arr), mfi in zip(fabs, mf):
        assert line.startswith("FAB ((8, (32 8 23 0 1 9 0 127)),(4, (4 3 2 1)))((")
        ref = mf.array(mfi).to_numpy()[1:-1, 1:-1, 1:-1, :]           # x, y, z, comp
        np.testing.assert_array_equal(arr, ref.transpose(3, 2, 1, 0).astype(np.float32))
    # the min/max in Cell_H are those of the float64 data, as AMReX writes them; offsets of 4-byte data
    ours = open(tmp_path / "p32/Level_0/Cell_H").read().split("\n")
    ref = open(os.path.join(FIXTURE, "Level_0/Cell_H")).read().split("\n")
    assert [x for x in ours if "FabOnDisk" not in x] == [x for x in ref if "FabOnDisk" not in x]
    offs = [int(x.split()[-1]) for x in ours if x.startswith("FabOnDisk")]
    assert offs == [sum(len(line) + 1 + 4 * 2 * 16 ** 3 for line, _ in fabs[:i]) for i in range(8)]
    pp.add("format", "BAD")
    try:
        with pytest.raises(ValueError, match="fab.format"):
            amr.write_single_level_plotfile(str(tmp_path / "pbad"), mf, ["rho", "temp"], geom, 1.5, 7)
    finally:
        pp.add("format", "NATIVE")
    assert not os.path.exists(tmp_path / "pbad")


@pytest.mark.parametrize("mod", [amr1, amr2, amr])
def test_each_dimension_data_and_header(tmp_path, mod):
    D = {amr1: 1, amr2: 2, amr: 3}[mod]
    n = [12, 10, 6][:D]
    dom = mod.Box(mod.IntVect(*([0] * D)) if D > 1 else mod.IntVect(0),
                  mod.IntVect(*[x - 1 for x in n]) if D > 1 else mod.IntVect(n[0] - 1))
    ba = mod.BoxArray(dom)
    ba.max_size(5)
    mf = mod.MultiFab(ba, mod.DistributionMapping(ba), 3, 2)
    mf.set_val(0.0)
    for mfi in mf:
        a = mf.array(mfi).to_numpy()
        a[...] = np.random.default_rng(mfi.index).standard_normal(a.shape)
    geom = mod.Geometry(dom, mod.RealBox([0.0] * D, [1.5] * D), 0, [0] * D)
    out = str(tmp_path / f"plt{D}d")
    mod.write_single_level_plotfile(out, mf, ["a", "b", "c"], geom, 0.25, 3)
    lines = open(os.path.join(out, "Header")).read().split("\n")
    assert lines[:8] == ["HyperCLaw-V1.1", "3", "a", "b", "c", str(D), "0.25", "0"]
    fabs = read_fabs(os.path.join(out, "Level_0/Cell_D_00000"), 3)
    assert len(fabs) == ba.size
    for (line, arr), mfi in zip(fabs, mf):
        full = mf.array(mfi).to_numpy()
        assert full.ndim == 4      # x, y, z, comp (unused directions of length 1)
        ref = full[tuple(slice(2, -2) if d < D else slice(None) for d in range(3))]
        np.testing.assert_array_equal(arr, ref.transpose(3, 2, 1, 0).reshape(arr.shape))


def test_multi_level_header(tmp_path):
    mf0, geom0 = fixture_mf()
    fine = amr.Box(amr.IntVect(16, 16, 16), amr.IntVect(47, 47, 31))
    ba1 = amr.BoxArray(fine)
    mf1 = amr.MultiFab(ba1, amr.DistributionMapping(ba1), 2, 0)
    mf1.set_val(3.0)
    geom1 = amr.Geometry(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(63, 63, 63)),
                         amr.RealBox([-1.0, 0.0, 0.0], [1.0, 2.0, 0.5]), 0, [1, 1, 0])
    out = str(tmp_path / "ml")
    amr.write_multi_level_plotfile(out, 2, [mf0, mf1], ["rho", "temp"], [geom0, geom1], 1.5, [7, 14],
                                   [amr.IntVect(2, 2, 2)])
    h = open(os.path.join(out, "Header")).read().split("\n")
    assert h[6] == "1"                                      # finest level
    assert h[9] == "2 "                                     # ref ratio
    assert h[10] == "((0,0,0) (31,31,31) (0,0,0)) ((0,0,0) (63,63,63) (0,0,0)) "
    assert h[11] == "7 14 "
    assert h[13] == "0.03125 0.03125 0.0078125 "
    i = h.index("1 1 1.5")
    assert h[i + 1:i + 6] == ["14", "-0.5 0.5", "0.5 1.5", "0.125 0.25", "Level_1/Cell"]
    assert listing(out) == ["Header", "Level_0/Cell_D_00000", "Level_0/Cell_H", "Level_1/Cell_D_00000",
                            "Level_1/Cell_H", "job_info"]
    (line, arr), = read_fabs(os.path.join(out, "Level_1/Cell_D_00000"), 2)
    assert (arr == 3.0).all() and "((16,16,16) (47,47,31) (0,0,0)) 2" in line
    with pytest.raises(ValueError, match="levels need"):
        amr.write_multi_level_plotfile(str(tmp_path / "bad"), 2, [mf0], ["rho", "temp"], [geom0], 1.5, [7], [])
    assert not os.path.exists(tmp_path / "bad")


def test_nodal_data_written_as_amrex(tmp_path):
    """AMReX writes nodal MultiFabs as they are (nodal boxes in Cell_H and the FAB headers)."""
    dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(7, 7, 7))
    ba = amr.BoxArray(dom)
    ba.convert(amr.IndexType(amr.IndexType.NODE, amr.IndexType.NODE, amr.IndexType.NODE)) \
        if hasattr(ba, "convert") else None
    nba = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(8, 8, 8), amr.IntVect(1, 1, 1)))
    mf = amr.MultiFab(nba, amr.DistributionMapping(nba), 1, 0)
    mf.set_val(2.0)
    geom = amr.Geometry(dom, amr.RealBox([0.0] * 3, [1.0] * 3), 0, [0] * 3)
    amr.write_single_level_plotfile(str(tmp_path / "nd"), mf, ["phi"], geom, 0.0, 0)
    (line, arr), = read_fabs(str(tmp_path / "nd/Level_0/Cell_D_00000"), 1)
    assert line.endswith("((0,0,0) (8,8,8) (1,1,1)) 1") and arr.shape == (1, 9, 9, 9) and (arr == 2.0).all()
    assert "((0,0,0) (8,8,8) (1,1,1))" in open(tmp_path / "nd/Level_0/Cell_H").read()
    # and read back: nodal boxes sharing their faces, each with its own data
    nba.max_size(4)
    mf = amr.MultiFab(nba, amr.DistributionMapping(nba), 1, 1)
    for mfi in mf:
        a = mf.array(mfi).to_numpy()
        a[...] = np.random.default_rng(mfi.index).standard_normal(a.shape)
    amr.write_single_level_plotfile(str(tmp_path / "nd2"), mf, ["phi"], geom, 0.0, 0)
    p = amr.PlotFileData(str(tmp_path / "nd2"))
    assert p.boxArray(0)[0].type == amr.IntVect(1, 1, 1)
    back = p.get(0)
    assert back.is_all_nodal
    for mfi in back:
        np.testing.assert_array_equal(back.array(mfi).to_numpy(), mf.array(mfi).to_numpy()[1:-1, 1:-1, 1:-1])


# ---- argument errors ------------------------------------------------------------------------------
def test_argument_errors(tmp_path):
    mf, geom = fixture_mf()
    w = amr.write_single_level_plotfile
    p = str(tmp_path / "e")
    with pytest.raises(ValueError, match="2 components but 1 variable"):
        w(p, mf, ["rho"], geom, 1.5, 7)
    with pytest.raises(ValueError, match="line break"):
        w(p, mf, ["rho", "te\nmp"], geom, 1.5, 7)
    with pytest.raises(TypeError, match="str"):
        w(p, mf, ["rho", 3], geom, 1.5, 7)
    with pytest.raises(TypeError):
        w(p, mf, "rho", geom, 1.5, 7)
    with pytest.raises(ValueError, match="'/'"):
        w(p, mf, ["rho", "temp"], geom, 1.5, 7, levelPrefix="../x")
    with pytest.raises(ValueError, match="extra directory"):
        w(p, mf, ["rho", "temp"], geom, 1.5, 7, extra_dirs=[".."])
    with pytest.raises(TypeError):
        w(p, amr2.MultiFab(), ["rho", "temp"], geom, 1.5, 7)
    with pytest.raises(TypeError):
        w(p, mf, ["rho", "temp"], geom, "t", 7)
    with pytest.raises(ValueError, match="empty"):
        w("", mf, ["rho", "temp"], geom, 1.5, 7)
    with pytest.raises(RuntimeError):
        w(p, amr.MultiFab(), ["rho", "temp"], geom, 1.5, 7)
    assert os.listdir(tmp_path) == []


def test_options_and_extra_dirs(tmp_path):
    mf, geom = fixture_mf()
    out = str(tmp_path / "o")
    amr.write_single_level_plotfile(out, mf, amr.Vector_string(["rho", "temp"]), geom, 1.5, 7, "MyVersion",
                                    "Lev_", "Data", amr.Vector_string(["particles", "extra"]))
    assert listing(out) == ["Header", "Lev_0/Data_D_00000", "Lev_0/Data_H", "job_info"]
    assert sorted(os.listdir(out)) == ["Header", "Lev_0", "extra", "job_info", "particles"]
    assert os.listdir(os.path.join(out, "particles")) == ["Lev_0"]
    h = open(os.path.join(out, "Header")).read()
    assert h.startswith("MyVersion\n") and h.endswith("Lev_0/Data\n")


# ---- crash safety and I/O errors ----------------------------------------------------------------
def test_existing_directory_is_moved_aside(tmp_path):
    mf, geom = fixture_mf()
    out = tmp_path / "plt"
    out.mkdir()
    (out / "mine").write_text("old data")
    amr.write_single_level_plotfile(str(out), mf, ["rho", "temp"], geom, 1.5, 7)
    olds = [n for n in os.listdir(tmp_path) if n.startswith("plt.old.")]
    assert len(olds) == 1 and (tmp_path / olds[0] / "mine").read_text() == "old data"
    assert "Header" in os.listdir(out)
    amr.write_single_level_plotfile(str(out) + "/", mf, ["rho", "temp"], geom, 1.5, 7)   # trailing slash
    assert len([n for n in os.listdir(tmp_path) if n.startswith("plt.old.")]) == 2


def test_io_errors_name_the_path(tmp_path):
    mf, geom = fixture_mf()
    regular = tmp_path / "file"
    regular.write_text("x")
    with pytest.raises(OSError, match=str(regular)):
        amr.write_single_level_plotfile(str(regular / "plt"), mf, ["rho", "temp"], geom, 1.5, 7)
    # missing parent folders are made, as AMReX's PreBuildDirectorHierarchy does (test_plotfile_paths.py)
    amr.write_single_level_plotfile(str(tmp_path / "nonexistent/plt"), mf, ["rho", "temp"], geom, 1.5, 7)
    assert os.listdir(tmp_path / "nonexistent") == ["plt"]
    shutil.rmtree(tmp_path / "nonexistent")
    if os.geteuid() != 0:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        with pytest.raises(OSError, match="ro/plt"):
            amr.write_single_level_plotfile(str(ro / "plt"), mf, ["rho", "temp"], geom, 1.5, 7)
        assert os.listdir(ro) == []
    assert sorted(os.listdir(tmp_path)) == ["file"]


def child_script(out, extra=""):
    return textwrap.dedent(f"""
        import os, resource, signal, sys
        sys.path[:0] = [{HERE!r}, __import__("os").path.dirname({HERE!r})]  # the test module, and the helpers it imports
        import boxfab.space3d as amr
        amr.initialize(["amrex.verbose=0"])
        from test_plotfile import fixture_mf
        mf, geom = fixture_mf()
        {extra}
        sys.stdout.write("ready\\n"); sys.stdout.flush()
        for i in range(1000):
            amr.write_single_level_plotfile({out!r}, mf, ["rho", "temp"], geom, 1.5, 7)
        """)


def test_disk_full_leaves_nothing(tmp_path):
    """A file size limit makes write() fail with EFBIG midway: OSError, no directory under the name."""
    out = str(tmp_path / "full")
    code = child_script(out, "signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
                             "resource.setrlimit(resource.RLIMIT_FSIZE, (100000, 100000))")
    code = code.replace("for i in range(1000):", "for i in range(1):")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "OSError" in r.stderr and "Cell_D_00000" in r.stderr, r.stderr
    assert os.listdir(tmp_path) == []


def complete(path):
    """A complete plotfile: every file there, Cell_D of the full size."""
    return (listing(path) == ["Header", "Level_0/Cell_D_00000", "Level_0/Cell_H", "job_info"]
            and os.path.getsize(os.path.join(path, "Level_0/Cell_D_00000")) == 525012
            and filecmp.cmp(os.path.join(FIXTURE, "Level_0/Cell_H"), os.path.join(path, "Level_0/Cell_H"),
                            shallow=False))


@needs_fixture
def test_sigkill_never_leaves_a_partial_plotfile(tmp_path):
    rng = np.random.default_rng(11)
    out = str(tmp_path / "plt")
    for trial in range(50):
        p = subprocess.Popen([sys.executable, "-c", child_script(out)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        assert p.stdout.readline() == b"ready\n"
        import time
        time.sleep(float(rng.uniform(0.0, 0.05)))
        p.send_signal(signal.SIGKILL)
        p.wait()
        for name in os.listdir(tmp_path):
            full = os.path.join(tmp_path, name)
            if name == "plt" or name.startswith("plt.old."):
                assert complete(full), (trial, name, listing(full))
            else:
                assert name.startswith(".bftmp."), name    # an abandoned temporary: not the plotfile


# ---- PlotFileData ---------------------------------------------------------------------------------
@needs_fixture
def test_plotfiledata_reads_the_amrex_fixture():
    p = amr.PlotFileData(FIXTURE)
    assert (p.spaceDim(), p.time(), p.finestLevel(), p.refRatio(0), p.levelStep(0), p.coordSys()) == (3, 1.5, 0, 0, 7, 0)
    assert p.probLo() == [-1.0, 0.0, 0.0] and p.probHi() == [1.0, 2.0, 0.5] and p.probSize() == [2.0, 2.0, 0.5]
    assert p.cellSize(0) == [0.0625, 0.0625, 0.015625]
    assert list(p.varNames()) == ["rho", "temp"] and p.nComp() == 2
    assert p.nGrowVect(0) == amr.IntVect(0, 0, 0)
    dom = p.probDomain(0)
    assert dom.small_end == amr.IntVect(0, 0, 0) and dom.big_end == amr.IntVect(31, 31, 31)
    ba = p.boxArray(0)
    assert ba.size == 8 and ba[1].small_end == amr.IntVect(16, 0, 0)
    assert p.DistributionMap(0).size == 8
    ref, _ = fixture_mf()
    for mf in (p.get(0), p.get(0, "temp")):
        n = 0
        for mfi in mf:
            got = mf.array(mfi).to_numpy()
            want = ref.array(mfi).to_numpy()[1:-1, 1:-1, 1:-1, :]
            np.testing.assert_array_equal(got, want if mf.n_comp == 2 else want[..., 1:])
            n += 1
        assert n == 8
    with pytest.raises(IndexError):
        p.get(1)
    with pytest.raises(IndexError):
        p.refRatio(-1)
    with pytest.raises(ValueError, match="no variable named 'nope'"):
        p.get(0, "nope")
    with pytest.raises(ValueError, match="3D"):
        amr2.PlotFileData(FIXTURE)


@pytest.mark.parametrize("mod", [amr1, amr2, amr])
def test_round_trip_each_dimension_and_float32(tmp_path, mod):
    D = {amr1: 1, amr2: 2, amr: 3}[mod]
    n = [12, 10, 6][:D]
    lo = mod.IntVect(*([0] * D)) if D > 1 else mod.IntVect(0)
    hi = mod.IntVect(*[x - 1 for x in n]) if D > 1 else mod.IntVect(n[0] - 1)
    dom = mod.Box(lo, hi)
    ba = mod.BoxArray(dom)
    ba.max_size(4)
    mf = mod.MultiFab(ba, mod.DistributionMapping(ba), 2, 1)
    mf.set_val(0.0)
    for mfi in mf:
        a = mf.array(mfi).to_numpy()
        a[...] = np.random.default_rng(mfi.index + 1).standard_normal(a.shape)
    geom = mod.Geometry(dom, mod.RealBox([-0.5] * D, [1.5] * D), 1 if D == 2 else 0, [0] * D)
    for fmt in ("NATIVE", "NATIVE_32"):
        pp = mod.ParmParse("fab")
        pp.add("format", fmt)
        out = str(tmp_path / f"p{D}{fmt}")
        try:
            mod.write_single_level_plotfile(out, mf, ["u", "v"], geom, 2.0, 9)
        finally:
            pp.add("format", "NATIVE")
        p = mod.PlotFileData(out)
        assert p.spaceDim() == D and p.coordSys() == (1 if D == 2 else 0) and p.levelStep(0) == 9
        assert p.probLo() == [-0.5] * D and p.cellSize(0) == [2.0 / x for x in n]
        back = p.get(0)
        assert back.n_grow_vect == mod.IntVect(*([0] * D)) if D > 1 else True
        for mfi in back:
            got = back.array(mfi).to_numpy()
            want = mf.array(mfi).to_numpy()[tuple(slice(1, -1) if d < D else slice(None) for d in range(3))]
            if fmt == "NATIVE_32":
                want = want.astype(np.float32).astype(np.float64)
            np.testing.assert_array_equal(got, want)


def test_round_trip_multi_level(tmp_path):
    mf0, geom0 = fixture_mf()
    ba1 = amr.BoxArray(amr.Box(amr.IntVect(16, 16, 16), amr.IntVect(47, 47, 31)))
    ba1.max_size(16)
    mf1 = amr.MultiFab(ba1, amr.DistributionMapping(ba1), 2, 0)
    for mfi in mf1:
        a = mf1.array(mfi).to_numpy()
        a[...] = np.arange(a.size).reshape(a.shape) + mfi.index
    geom1 = amr.Geometry(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(63, 63, 63)),
                         amr.RealBox([-1.0, 0.0, 0.0], [1.0, 2.0, 0.5]), 0, [1, 1, 0])
    out = str(tmp_path / "ml")
    amr.write_multi_level_plotfile(out, 2, [mf0, mf1], ["rho", "temp"], [geom0, geom1], 1.5, [7, 14],
                                   [amr.IntVect(2, 2, 2)])
    p = amr.PlotFileData(out)
    assert p.finestLevel() == 1 and p.refRatio(0) == 2 and p.refRatio(1) == 0 and p.levelStep(1) == 14
    assert p.probDomain(1).big_end == amr.IntVect(63, 63, 63) and p.cellSize(1) == [0.03125, 0.03125, 0.0078125]
    assert p.boxArray(1).size == ba1.size
    back = p.get(1, "temp")
    for mfi in back:
        np.testing.assert_array_equal(back.array(mfi).to_numpy()[..., 0], mf1.array(mfi).to_numpy()[..., 1])
    q = amr.PlotFileData(out)
    q.syncDistributionMap(p)
    q.syncDistributionMap(1, p)
    with pytest.raises(TypeError):
        q.syncDistributionMap("x")


def copy_plotfile(src, dst):
    import shutil
    shutil.copytree(src, dst)
    for root, dirs, files in os.walk(dst):
        os.chmod(root, 0o755)
        for f in files:
            os.chmod(os.path.join(root, f), 0o644)


@needs_fixture
def test_malformed_files_name_the_file_and_line(tmp_path):
    bad = str(tmp_path / "bad")
    copy_plotfile(FIXTURE, bad)
    header = open(os.path.join(bad, "Header")).read().split("\n")

    def with_header(lines):
        open(os.path.join(bad, "Header"), "w").write("\n".join(lines))

    cases = [
        (5, "x", "line 6: expected the time"),
        (1, "-3", "line 2"),
        (4, "7", "line 5: the space dimension 7"),
        (6, "5000", "line 7: the finest level"),
        (10, "((0,0,0) (31,31) (0,0,0)) ", "line 11"),
        (len(header) - 2, "../../etc/passwd", "leaves the plotfile"),
    ]
    for i, text, msg in cases:
        lines = list(header)
        lines[i] = text
        with_header(lines)
        with pytest.raises(ValueError, match=msg.replace("(", r"\(")) as e:
            amr.PlotFileData(bad)
        assert "Header" in str(e.value)
    with_header(header[:9])
    with pytest.raises(ValueError, match="end of file"):
        amr.PlotFileData(bad)
    with_header(header)
    # Cell_H: an escaping FAB name, a count past the content
    cellh = open(os.path.join(bad, "Level_0/Cell_H")).read()
    open(os.path.join(bad, "Level_0/Cell_H"), "w").write(cellh.replace("Cell_D_00000 65625", "../Header 0"))
    with pytest.raises(ValueError, match=r"Cell_H, line 17: FAB file name"):
        amr.PlotFileData(bad)
    open(os.path.join(bad, "Level_0/Cell_H"), "w").write(cellh.replace("(8 0", "(800000000 0"))
    with pytest.raises(ValueError, match="Cell_H, line 5"):
        amr.PlotFileData(bad)
    open(os.path.join(bad, "Level_0/Cell_H"), "w").write(cellh)
    # truncated data: the header opens, get() says which file
    with open(os.path.join(bad, "Level_0/Cell_D_00000"), "r+b") as f:
        f.truncate(300000)
    p = amr.PlotFileData(bad)
    with pytest.raises(ValueError, match="Cell_D_00000.*truncated|Cell_D_00000.*past the end"):
        p.get(0)
    with pytest.raises(OSError, match="nowhere/Header"):
        amr.PlotFileData(str(tmp_path / "nowhere"))
    with pytest.raises(TypeError):
        amr.PlotFileData(3)


def test_random_bytes_never_crash(tmp_path):
    rng = np.random.default_rng(5)
    d = tmp_path / "rnd"
    (d / "Level_0").mkdir(parents=True)
    for trial in range(200):
        blob = rng.integers(0, 256, size=int(rng.integers(0, 400)), dtype=np.uint8).tobytes()
        (d / "Header").write_bytes(blob)
        with pytest.raises((ValueError, OSError)):
            amr.PlotFileData(str(d))
    # a valid Header over random Cell_H / Cell_D bytes
    mf, geom = fixture_mf()
    good = str(tmp_path / "good")
    amr.write_single_level_plotfile(good, mf, ["rho", "temp"], geom, 1.5, 7)
    cellh = open(os.path.join(good, "Level_0/Cell_H"), "rb").read()
    for trial in range(100):
        n = int(rng.integers(0, len(cellh)))
        junk = rng.integers(0, 256, size=int(rng.integers(1, 30)), dtype=np.uint8).tobytes()
        open(os.path.join(good, "Level_0/Cell_H"), "wb").write(cellh[:n] + junk + cellh[n + len(junk):])
        try:
            amr.PlotFileData(good).get(0)
        except (ValueError, OSError):
            pass
    open(os.path.join(good, "Level_0/Cell_H"), "wb").write(cellh)
    cd = os.path.join(good, "Level_0/Cell_D_00000")
    data = bytearray(open(cd, "rb").read())
    for off in (0, 5, 40, 85, 65625 + 10):
        bad = bytearray(data)
        bad[off:off + 8] = rng.integers(0, 256, size=8, dtype=np.uint8).tobytes()
        open(cd, "wb").write(bytes(bad))
        with pytest.raises(ValueError, match="Cell_D_00000"):
            amr.PlotFileData(good).get(0)


# ---- the fixture is part of the repository ------------------------------------------------------
def test_amrex_fixture_is_in_the_repository():
    """CI runs a clean clone: the AMReX-written files must be there, not on this machine only."""
    import amrex_fixture
    repo_copy = os.path.join(os.path.dirname(os.path.dirname(HERE)), "fixtures", "amrex-plotfiles")
    for f in amrex_fixture.FILES:
        assert os.path.isfile(os.path.join(repo_copy, f)), f
    assert os.path.getsize(os.path.join(repo_copy, "plt_mesh/Level_0/Cell_D_00000")) == 525012
    assert "AMReX 24.10" in open(os.path.join(repo_copy, "PROVENANCE.md")).read()


def test_tests_fail_not_skip_without_the_fixture(tmp_path):
    """Pointed at an empty folder, the fixture tests fail (naming the missing files) rather than skip."""
    env = dict(os.environ, BOXFAB_AMREX_FIXTURES=str(tmp_path / "nowhere"))
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
                        os.path.join(HERE, "test_plotfile.py") + "::test_plotfiledata_reads_the_amrex_fixture",
                        os.path.join(os.path.dirname(HERE), "particles", "test_particle_io.py") + "::test_restart_amrex_pure_soa"],
                       capture_output=True, text=True, timeout=300, env=env, cwd=str(tmp_path))
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    summary = [line for line in r.stdout.splitlines() if line.strip()][-1]
    assert summary.startswith("2 failed in"), out          # no skip, no setup error
    assert "the AMReX fixture is incomplete" in out and "nowhere" in out, out
