"""Names and paths of the file writers (issue 21): plotfile variable names that could not read back are
refused before anything is written, every name the file system takes as a final name can be written
(the temporaries are short), missing parent folders are made as AMReX makes them, and odd paths
(trailing slashes, '.', '..', symlinks, blanks, unicode, a file in the way, a long name) either work
or fail with a clear exception and leave nothing behind.

References: the Header's text read with Python (the names one per line), NumPy arrays of the values
written, os.listdir of the folders, and yt's reader where it is installed."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import boxfab.space3d as amr

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module", autouse=True)
def runtime():
    amr.initialize(["amrex.verbose=0"])
    yield
    amr.finalize()


N = 8  # an 8^3 domain in boxes of 4


def geometry():
    dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(N - 1, N - 1, N - 1))
    return amr.Geometry(dom, amr.RealBox([0.0] * 3, [1.0] * 3), 0, [0] * 3)


def make_mf(ncomp=2, seed=0, ngrow=0):
    dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(N - 1, N - 1, N - 1))
    ba = amr.BoxArray(dom)
    ba.max_size(4)
    mf = amr.MultiFab(ba, amr.DistributionMapping(ba), ncomp, ngrow)
    mf.set_val(0.0)
    ref = np.random.default_rng(seed).random((N, N, N, ncomp))
    for mfi in mf:
        bx = mfi.validbox()
        lo, hi = bx.small_end, bx.big_end
        a = mf.array(mfi).to_numpy()
        g = ngrow
        a[g:a.shape[0] - g, g:a.shape[1] - g, g:a.shape[2] - g, :] = \
            ref[lo[0]:hi[0] + 1, lo[1]:hi[1] + 1, lo[2]:hi[2] + 1, :]
    return mf, ref


def dense(mf):
    """The valid cells of mf as one (N, N, N, ncomp) NumPy array."""
    out = np.full((N, N, N, mf.n_comp), np.nan)
    for mfi in mf:
        bx = mfi.validbox()
        lo, hi = bx.small_end, bx.big_end
        out[lo[0]:hi[0] + 1, lo[1]:hi[1] + 1, lo[2]:hi[2] + 1, :] = mf.array(mfi).to_numpy()
    return out


def header_names(path):
    """The variable names of a plotfile Header, read with Python: the lines after the count."""
    lines = open(os.path.join(path, "Header"), "rb").read().split(b"\n")
    n = int(lines[1])
    return [x.decode("utf-8") for x in lines[2:2 + n]]


def tree(root):
    """Every path under root (files and folders, relative), sorted."""
    out = []
    for d, dirs, files in os.walk(root):
        for x in dirs + files:
            out.append(os.path.relpath(os.path.join(d, x), root))
    return sorted(out)


def name_max(path):
    try:
        return os.pathconf(path, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def make_pc(real_names=None):
    geom = geometry()
    dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(N - 1, N - 1, N - 1))
    ba = amr.BoxArray(dom)
    ba.max_size(4)
    dm = amr.DistributionMapping(ba)
    pc = amr.ParticleContainer(geom, dm, ba, real_names=real_names or ["w"])
    return pc, geom, dm, ba


# ---- 1. variable names ------------------------------------------------------------------------------
EDGE_BLANK_NAMES = [" a", "a ", "\ta", "a\t", "\x0ba", "a\x0c", "\x1fa", "a\x1c", "\u00a0a", "a\u00a0",
                    "\u2003a", "a\u3000", "\u2028a", "a\u0085", "\u1680a", "a\u202f", "  ", "\t"]


@pytest.mark.parametrize("bad", EDGE_BLANK_NAMES)
def test_varname_with_a_blank_at_either_end_is_refused_before_writing(tmp_path, bad):
    """AMReX's PlotFileData trims " \\t" from each name line, yt strip()s it (every Unicode blank):
    such a name came back without its blanks.  Now ValueError, and nothing is written."""
    mf, _ = make_mf()
    out = tmp_path / "sub" / "plt"
    with pytest.raises(ValueError, match="blank"):
        amr.write_single_level_plotfile(str(out), mf, ["ok", bad], geometry(), 0.0, 0)
    with pytest.raises(ValueError, match="blank"):
        amr.write_multi_level_plotfile(str(out), 1, [mf], [bad, "ok"], [geometry()], 0.0, [0], [])
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("bad,exc", [("", ValueError), ("a\nb", ValueError), ("a\rb", ValueError),
                                     ("a\0b", ValueError), ("\ud800", UnicodeEncodeError)])
def test_varname_that_cannot_be_one_line_is_refused(tmp_path, bad, exc):
    mf, _ = make_mf()
    with pytest.raises(exc):
        amr.write_single_level_plotfile(str(tmp_path / "plt"), mf, ["ok", bad], geometry(), 0.0, 0)
    assert os.listdir(tmp_path) == []


ROUND_TRIP_NAMES = ["a b", "a\tb", "x  y", "\u03c1", "\u540d\u524d", "x\u00a0y", "a\x0bb", "#", "a=b", "Header",
                    "Level_0", "\u200ba", "a\u200b", "e\u0301", "\U0001f600", "w" * 3000, "-1", "a/b", "."]


def test_varnames_round_trip_exactly(tmp_path):
    """Names with blanks inside, unicode, a 3000-byte name: the Header holds them as given, PlotFileData
    returns them, get(level, name) finds each one's data (NumPy reference), yt lists them."""
    names = ROUND_TRIP_NAMES
    mf, ref = make_mf(ncomp=len(names), seed=3)
    out = str(tmp_path / "plt")
    amr.write_single_level_plotfile(out, mf, names, geometry(), 0.0, 0)
    assert header_names(out) == names
    p = amr.PlotFileData(out)
    assert list(p.varNames()) == names
    for n, name in enumerate(names):
        np.testing.assert_array_equal(dense(p.get(0, name))[..., 0], ref[..., n])
    try:
        import yt
    except ImportError:
        return
    yt.set_log_level(50)
    ds = yt.load(out)
    got = [f for t, f in ds.field_list if t == "boxlib"]
    assert sorted(got) == sorted(names), got


@pytest.mark.parametrize("bad", ["", "a b", " V", "V\t", "V\u00a0"])
def test_versionname_that_is_not_one_token_is_refused(tmp_path, bad):
    """The Header's first line is read as one token (AMReX: >>): an empty versionName or one with a
    blank made a Header no reader could parse."""
    mf, _ = make_mf()
    with pytest.raises(ValueError, match="versionName"):
        amr.write_single_level_plotfile(str(tmp_path / "plt"), mf, ["a", "b"], geometry(), 0.0, 0, bad)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("bad", ["\u00a0w", "w\u3000", "a\x0bb", "w\x0c", "\x1fw"])
def test_particle_component_name_that_cannot_read_back_is_refused(tmp_path, bad):
    """Particle Header names are read as tokens (AMReX) or strip()ped lines (yt): vertical tab, form
    feed and Unicode blanks at either end are refused like spaces were, nothing written."""
    with pytest.raises(ValueError):
        pc, *_ = make_pc(real_names=["ok", bad])
        pc.add_particles(np.full((3, 3), 0.25), {"ok": np.ones(3), bad: np.ones(3)})
        pc.write_plotfile(str(tmp_path / "d"), "parts")
    assert os.listdir(tmp_path) == []


# ---- 2. long names ----------------------------------------------------------------------------------
def test_every_legal_name_length_writes_and_reads(tmp_path):
    """Final names of NAME_MAX-15 .. NAME_MAX bytes: plotfiles (written twice: the previous one is moved
    aside under a name the file system takes), VisMF checkpoints (the names <base>_H and <base>_D_00000
    must both fit: longer bases fail with OSError, nothing left) and particle files, each read back and
    compared with the values written.  The temporaries were "<dir>/.<base>.tmp.<unique>", 14 bytes
    longer than the name: names of 242 bytes and more failed."""
    nm = name_max(str(tmp_path))
    mf, ref = make_mf(seed=5)
    geom = geometry()
    pc, *_ = make_pc()
    pos = np.random.default_rng(1).random((40, 3))
    pc.add_particles(pos, {"w": np.arange(40.0)})
    for n in range(nm - 15, nm + 1):
        d = tmp_path / f"n{n}"
        d.mkdir()
        name = str(d / ("p" * n))
        amr.write_single_level_plotfile(name, mf, ["a", "b"], geom, 0.0, 0)
        amr.write_multi_level_plotfile(name, 1, [mf], ["a", "b"], [geom], 1.0, [3], [])
        p = amr.PlotFileData(name)
        assert p.time() == 1.0
        np.testing.assert_array_equal(dense(p.get(0)), ref)
        listing = os.listdir(d)
        assert len(listing) == 2 and "p" * n in listing and all(len(x) <= nm for x in listing), listing
        old = next(x for x in listing if x != "p" * n)
        assert ".old." in old and amr.PlotFileData(str(d / old)).time() == 0.0
        # VisMF: two final names
        v = str(d / ("v" * n))
        if n + len("_D_00000") <= nm:
            amr.VisMF.Write(mf, v)
            amr.VisMF.Write(mf, v)
            np.testing.assert_array_equal(dense(amr.VisMF.Read(v)), ref)
        else:
            before = sorted(os.listdir(d))
            with pytest.raises(OSError, match="too long"):
                amr.VisMF.Write(mf, v)
            assert sorted(os.listdir(d)) == before
        # particles: dir/name with name of n bytes
        pd = d / "parts"
        pc.write_plotfile(str(pd), "q" * n)
        pc.checkpoint(str(pd), "c" * n)
        pc.checkpoint(str(pd), "c" * n)
        for nmx in ("q" * n, "c" * n):
            back, *_ = make_pc()
            back.restart(str(pd), nmx)
            assert back.total_number_of_particles() == 40
        assert sorted(os.listdir(pd)) == sorted(["q" * n, "c" * n])
    assert not [x for x in tree(tmp_path) if "bftmp" in x or ".tmp." in x]


def test_a_name_one_byte_too_long_fails_cleanly(tmp_path):
    """NAME_MAX + 1 bytes: OSError ("too long") from every writer, before anything is written; parent
    folders made for it are removed again."""
    nm = name_max(str(tmp_path))
    mf, _ = make_mf()
    geom = geometry()
    pc, *_ = make_pc()
    pc.add_particles(np.full((2, 3), 0.5), {"w": np.ones(2)})
    long = "x" * (nm + 1)
    for where in (tmp_path, tmp_path / "new" / "sub"):
        with pytest.raises(OSError, match="too long"):
            amr.write_single_level_plotfile(str(where / long), mf, ["a", "b"], geom, 0.0, 0)
        with pytest.raises(OSError, match="too long"):
            amr.write_multi_level_plotfile(str(where / long), 1, [mf], ["a", "b"], [geom], 0.0, [0], [])
        with pytest.raises(OSError, match="too long"):
            pc.write_plotfile(str(where), long)
        with pytest.raises(OSError, match="too long"):
            pc.checkpoint(str(where), long)
        assert os.listdir(tmp_path) == []
    with pytest.raises(OSError, match="too long"):
        amr.VisMF.Write(mf, str(tmp_path / long))
    assert os.listdir(tmp_path) == []


def test_long_unicode_name_moved_aside_at_a_character_boundary(tmp_path):
    """A 254-byte name of 2-byte characters written twice: the previous plotfile's .old name is cut to
    fit, never inside a character (it stays valid UTF-8)."""
    nm = name_max(str(tmp_path))
    mf, _ = make_mf()
    name = "\u00e9" * (nm // 2)
    out = os.path.join(str(tmp_path), name)
    amr.write_single_level_plotfile(out, mf, ["a", "b"], geometry(), 0.0, 0)
    amr.write_single_level_plotfile(out, mf, ["a", "b"], geometry(), 0.0, 0)
    listing = os.listdir(str(tmp_path).encode())
    assert len(listing) == 2
    for x in listing:
        assert len(x) <= nm
        x.decode("utf-8")   # a cut inside a character would raise here


# ---- 3. parent folders -------------------------------------------------------------------------------
def test_missing_parent_folders_are_made_with_mode_0755_less_umask(tmp_path):
    """diags/run1/plt00010: AMReX's PreBuildDirectorHierarchy makes the folders (mkdir -p, 0755 less the
    umask); boxfab raised OSError.  Particle files make theirs too (AMReX's UtilCreateDirectory)."""
    mf, ref = make_mf(seed=2)
    geom = geometry()
    old = os.umask(0o027)
    try:
        amr.write_single_level_plotfile(str(tmp_path / "diags/run1/plt00010"), mf, ["a", "b"], geom, 0.0, 10)
        amr.write_multi_level_plotfile(str(tmp_path / "ml/x/plt"), 1, [mf], ["a", "b"], [geom], 0.0, [0], [])
        pc, *_ = make_pc()
        pc.add_particles(np.full((5, 3), 0.5), {"w": np.ones(5)})
        pc.write_plotfile(str(tmp_path / "pdir/a/b"), "parts")
    finally:
        os.umask(old)
    for d in ("diags", "diags/run1", "ml", "ml/x", "pdir", "pdir/a", "pdir/a/b"):
        assert os.stat(tmp_path / d).st_mode & 0o777 == 0o750, d
    np.testing.assert_array_equal(dense(amr.PlotFileData(str(tmp_path / "diags/run1/plt00010")).get(0)), ref)
    assert os.listdir(tmp_path / "pdir/a/b") == ["parts"]
    assert sorted(os.listdir(tmp_path)) == ["diags", "ml", "pdir"]


def test_vismf_does_not_make_folders(tmp_path):
    """AMReX's VisMF::Write does not make the folder of its name: OSError, nothing made."""
    mf, _ = make_mf()
    with pytest.raises(OSError, match="nofolder"):
        amr.VisMF.Write(mf, str(tmp_path / "nofolder" / "chk"))
    assert os.listdir(tmp_path) == []


def test_a_parent_that_is_a_file_is_a_clear_error(tmp_path):
    mf, _ = make_mf()
    geom = geometry()
    f = tmp_path / "afile"
    f.write_text("keep me")
    pc, *_ = make_pc()
    pc.add_particles(np.full((2, 3), 0.5), {"w": np.ones(2)})
    for path in (f / "plt", f / "sub" / "plt", tmp_path / "new" / "afile2" / "x"):
        if path.parent.name == "afile2":
            (tmp_path / "new").mkdir()
            (tmp_path / "new" / "afile2").write_text("")
        with pytest.raises(OSError, match="afile"):
            amr.write_single_level_plotfile(str(path), mf, ["a", "b"], geom, 0.0, 0)
        with pytest.raises(OSError, match="afile"):
            pc.write_plotfile(str(path), "parts")
    with pytest.raises(OSError, match="afile"):
        amr.VisMF.Write(mf, str(f / "chk"))
    assert f.read_text() == "keep me"
    assert tree(tmp_path) == ["afile", "new", "new/afile2"]


@pytest.mark.parametrize("bad", [".", "..", "/", "plt/.", "plt/..", "plt/./", "a/..//"])
def test_a_name_that_names_no_new_folder_is_refused(tmp_path, bad):
    """A plotfile name ending in '.' or '..' (or the root): AMReX tries to rename the folder it names (and
    aborts); boxfab raised OSError only after writing a temporary.  Now ValueError, nothing written."""
    mf, _ = make_mf()
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        (tmp_path / "plt").mkdir()
        with pytest.raises(ValueError, match="names no new folder"):
            amr.write_single_level_plotfile(bad, mf, ["a", "b"], geometry(), 0.0, 0)
    finally:
        os.chdir(cwd)
    assert tree(tmp_path) == ["plt"]


# ---- 4. odd paths --------------------------------------------------------------------------------------
ODD = ["with space/plt 1", "\u00fcn\u00efc\u00f6d\u00e9/\u03c0", "plt///", "./dot/plt", "a/../up", "tab\there/p",
       "-dash", "semi;colon/$x", "new\nline/plt", "quote'\"/p"]


@pytest.mark.parametrize("path", ODD)
def test_odd_paths_write_and_read_back(tmp_path, path):
    """Blanks, unicode, trailing slashes, '.', '..' inside, shell characters, a newline in a folder name:
    each writes where the file system says and reads back (the path is in no file).  A newline in the
    plotfile's own name stays refused (ValueError)."""
    mf, ref = make_mf(seed=9)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        if "\n" in path:
            with pytest.raises(ValueError, match="line break"):
                amr.write_single_level_plotfile(path, mf, ["a", "b"], geometry(), 0.0, 0)
            assert os.listdir(".") == []
            return
        amr.write_single_level_plotfile(path, mf, ["a", "b"], geometry(), 0.0, 0)
        np.testing.assert_array_equal(dense(amr.PlotFileData(path).get(0)), ref)
        assert os.path.isfile(os.path.join(path, "Header"))
        chk = path.rstrip("/") + "_chk"
        if " " in os.path.basename(chk) or "\t" in os.path.basename(chk):   # the header names the data file
            with pytest.raises(ValueError, match="blank"):
                amr.VisMF.Write(mf, chk)
            assert not os.path.exists(chk + "_H")
        else:
            amr.VisMF.Write(mf, chk)
            np.testing.assert_array_equal(dense(amr.VisMF.Read(chk)), ref)
            assert os.path.isfile(chk + "_H") and os.path.isfile(chk + "_D_00000")
        assert not [x for x in tree(".") if "bftmp" in x]
    finally:
        os.chdir(cwd)


def test_symlinks(tmp_path):
    """A symlink to a folder as a parent: written through it.  A symlink as the plotfile's own name: it is
    moved aside (as AMReX renames an existing name) and the folder it pointed to is untouched.  A dangling
    symlink in the parents: OSError, nothing made."""
    mf, ref = make_mf(seed=4)
    geom = geometry()
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    amr.write_single_level_plotfile(str(tmp_path / "link/deep/plt"), mf, ["a", "b"], geom, 0.0, 0)
    np.testing.assert_array_equal(dense(amr.PlotFileData(str(real / "deep/plt")).get(0)), ref)
    target = tmp_path / "target"
    target.mkdir()
    (target / "mine").write_text("x")
    (tmp_path / "asname").symlink_to(target)
    amr.write_single_level_plotfile(str(tmp_path / "asname"), mf, ["a", "b"], geom, 0.0, 0)
    assert os.path.isdir(tmp_path / "asname") and not os.path.islink(tmp_path / "asname")
    assert os.listdir(target) == ["mine"]
    olds = [x for x in os.listdir(tmp_path) if x.startswith("asname.old.")]
    assert len(olds) == 1 and os.path.islink(tmp_path / olds[0])
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    before = tree(tmp_path)
    with pytest.raises(OSError, match="dangling"):
        amr.write_single_level_plotfile(str(tmp_path / "dangling/sub/plt"), mf, ["a", "b"], geom, 0.0, 0)
    assert tree(tmp_path) == before


def test_a_path_that_is_an_existing_file(tmp_path):
    """The plotfile's name is a regular file: it is moved aside (AMReX renames whatever has the name) and
    the plotfile written; the file's content is kept under the .old name.  A particle directory name that
    is a file: OSError, file untouched."""
    mf, ref = make_mf()
    f = tmp_path / "plt"
    f.write_text("not a plotfile")
    amr.write_single_level_plotfile(str(f), mf, ["a", "b"], geometry(), 0.0, 0)
    np.testing.assert_array_equal(dense(amr.PlotFileData(str(f)).get(0)), ref)
    olds = [x for x in os.listdir(tmp_path) if x.startswith("plt.old.")]
    assert len(olds) == 1 and (tmp_path / olds[0]).read_text() == "not a plotfile"
    pc, *_ = make_pc()
    (tmp_path / "pfile").write_text("p")
    with pytest.raises(OSError, match="pfile"):
        pc.write_plotfile(str(tmp_path), "pfile")
    assert (tmp_path / "pfile").read_text() == "p"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_folder(tmp_path):
    mf, _ = make_mf()
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        with pytest.raises(OSError, match="ro"):
            amr.write_single_level_plotfile(str(ro / "a/b/plt"), mf, ["a", "b"], geometry(), 0.0, 0)
        assert os.listdir(ro) == []
    finally:
        ro.chmod(0o755)


def test_rewriting_a_plotfile_a_reader_holds(tmp_path):
    """PlotFileData parses the headers when opened and reads the data by path in get(): after another
    write to the same name (other data, the variables in another order, the same boxes) get() returned
    the new file's values under the old names.  Now OSError says the plotfile was replaced; a new
    PlotFileData reads the new one, the old one is readable under its .old name."""
    mf1, ref1 = make_mf(seed=1)
    mf2, ref2 = make_mf(seed=2)
    out = str(tmp_path / "plt")
    amr.write_single_level_plotfile(out, mf1, ["a", "b"], geometry(), 1.0, 1)
    p = amr.PlotFileData(out)
    np.testing.assert_array_equal(dense(p.get(0, "a"))[..., 0], ref1[..., 0])
    amr.write_single_level_plotfile(out, mf2, ["b", "a"], geometry(), 2.0, 2)
    with pytest.raises(OSError, match="replaced"):
        p.get(0, "a")
    with pytest.raises(OSError, match="replaced"):
        p.get(0)
    q = amr.PlotFileData(out)
    np.testing.assert_array_equal(dense(q.get(0, "a"))[..., 0], ref2[..., 1])
    old = next(x for x in os.listdir(tmp_path) if x.startswith("plt.old."))
    np.testing.assert_array_equal(dense(amr.PlotFileData(str(tmp_path / old)).get(0)), ref1)


def test_plotfile_rewritten_in_the_same_directory_or_inode(tmp_path):
    """PlotFileData told a plotfile written again by the inode number of its directory alone.  Files
    copied over it in place (cp -r, shutil.copytree) keep the directory, and ext4 hands a deleted
    directory's number to the next one made (the moved-aside plotfile deleted, the name written again):
    get() then read the new files under the old headers, and the variables, in another order there,
    came back under each other's names without an error.  Its Header is compared too now."""
    import shutil
    mf1, ref1 = make_mf(seed=1)
    mf2, ref2 = make_mf(seed=2)
    out, other = str(tmp_path / "plt"), str(tmp_path / "other")
    amr.write_single_level_plotfile(out, mf1, ["a", "b"], geometry(), 1.0, 1)
    amr.write_single_level_plotfile(other, mf2, ["b", "a"], geometry(), 2.0, 2)
    p = amr.PlotFileData(out)
    ino = os.stat(out).st_ino
    shutil.copytree(other, out, dirs_exist_ok=True)          # the same directory, other files
    assert os.stat(out).st_ino == ino
    with pytest.raises(OSError, match="replaced"):
        p.get(0, "a")
    np.testing.assert_array_equal(dense(amr.PlotFileData(out).get(0, "a"))[..., 0], ref2[..., 1])
    # the name written again until its new directory gets the number of the one PlotFileData opened
    amr.write_single_level_plotfile(out, mf1, ["a", "b"], geometry(), 1.0, 1)
    p, ino, reused = amr.PlotFileData(out), os.stat(out).st_ino, False
    for _ in range(30):
        for x in os.listdir(tmp_path):
            if x.startswith("plt.old."):
                shutil.rmtree(tmp_path / x)
        amr.write_single_level_plotfile(out, mf2, ["b", "a"], geometry(), 2.0, 2)
        if os.stat(out).st_ino == ino:
            reused = True
            with pytest.raises(OSError, match="replaced"):
                p.get(0, "a")
            break
    if not reused:
        with pytest.raises(OSError, match="replaced"):
            p.get(0, "a")


def test_empty_and_many_variables(tmp_path):
    """2000 variables (names v0..v1999) round trip; an empty name list for a MultiFab with components is a
    ValueError; 1001 levels are refused."""
    mf, ref = make_mf(ncomp=2000, seed=8)
    out = str(tmp_path / "many")
    names = [f"v{i}" for i in range(2000)]
    amr.write_single_level_plotfile(out, mf, names, geometry(), 0.0, 0)
    p = amr.PlotFileData(out)
    assert list(p.varNames()) == names and header_names(out) == names
    np.testing.assert_array_equal(dense(p.get(0, "v1234"))[..., 0], ref[..., 1234])
    small, _ = make_mf()
    with pytest.raises(ValueError, match="components"):
        amr.write_single_level_plotfile(str(tmp_path / "none"), small, [], geometry(), 0.0, 0)
    with pytest.raises(ValueError, match="nlevels"):
        amr.write_multi_level_plotfile(str(tmp_path / "lv"), 1001, [small] * 1001, ["a", "b"],
                                       [geometry()] * 1001, 0.0, [0] * 1001, [amr.IntVect(2, 2, 2)] * 1000)
    assert sorted(os.listdir(tmp_path)) == ["many"]


THREADS = textwrap.dedent("""
    import os, sys, threading
    import numpy as np
    sys.path[:0] = [{here!r}, __import__("os").path.dirname({here!r})]  # the test module, and the helpers it imports
    import boxfab.space3d as amr
    amr.initialize(["amrex.verbose=0"])
    from test_plotfile_paths import make_mf, dense, geometry, make_pc
    os.chdir({root!r})
    mfs = [make_mf(seed=s) for s in range(4)]
    errors = []
    def work(t):
        try:
            mf, ref = mfs[t]
            pc, *_ = make_pc()
            pc.add_particles(np.full((t + 1, 3), 0.5), {{"w": np.ones(t + 1)}})
            for i in range(6):
                amr.write_single_level_plotfile("deep/plt", mf, ["a", "b"], geometry(), float(t), i)
                amr.VisMF.Write(mf, "chk")
                pc.checkpoint("pdir", "parts")
                p = amr.PlotFileData("deep/plt")
                try:
                    got = dense(p.get(0))
                    assert any(np.array_equal(got, r) for _, r in mfs)
                except OSError as e:            # replaced meanwhile by another thread: said so
                    assert "replaced" in str(e), e
        except BaseException as e:
            errors.append(repr(e))
    ts = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    print("errors", errors)
    got = dense(amr.PlotFileData("deep/plt").get(0))
    print("plt", [np.array_equal(got, r) for _, r in mfs].count(True))
    got = dense(amr.VisMF.Read("chk"))
    print("chk", [np.array_equal(got, r) for _, r in mfs].count(True))
    back, *_ = make_pc()
    back.restart("pdir", "parts")
    print("parts", back.total_number_of_particles() in (1, 2, 3, 4))
    print("olds", sum(1 for x in os.listdir("deep") if x.startswith("plt.old.")))
    print("left", [x for d, _, fs in os.walk(".") for x in fs + [d] if "bftmp" in x])
    """)


def test_threads_writing_the_same_paths(tmp_path):
    """Four threads write the same plotfile, checkpoint and particle directory six times each and read the
    plotfile back in between: no error, the final files are each one thread's complete data, every
    previous plotfile is kept as .old, no temporary is left (in a subprocess: a crash fails the test)."""
    code = THREADS.format(here=HERE, root=str(tmp_path))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    out = dict(line.split(" ", 1) for line in r.stdout.strip().split("\n"))
    assert out == {"errors": "[]", "plt": "1", "chk": "1", "parts": "True", "olds": "23", "left": "[]"}, r.stdout


@pytest.mark.parametrize("opt", [{"levelPrefix": "Lev\u00a0"}, {"mfPrefix": "Ce\u2003ll"}, {"mfPrefix": "\u3000C"},
                                 {"levelPrefix": "L\x0b"}])
def test_prefix_with_any_blank_is_refused(tmp_path, opt):
    """levelPrefix / mfPrefix are one token of the Header and of each FabOnDisk line: yt split()s those lines
    at every Unicode blank (U+00A0 too), so such a prefix made a plotfile yt could not read."""
    mf, _ = make_mf()
    with pytest.raises(ValueError, match="blank"):
        amr.write_single_level_plotfile(str(tmp_path / "plt"), mf, ["a", "b"], geometry(), 0.0, 0, **opt)
    assert os.listdir(tmp_path) == []


def test_bytes_paths_that_are_not_utf8(tmp_path):
    """A path given as bytes that are not UTF-8 (os.listdir(bytes) gives such names) names its file; an error
    about it is an OSError whose message shows the bytes (it was a UnicodeDecodeError)."""
    mf, ref = make_mf(seed=6)
    base = os.fsencode(str(tmp_path))
    out = base + b"/\xff\xfe dir/plt"
    amr.write_single_level_plotfile(out, mf, ["a", "b"], geometry(), 0.0, 0)
    np.testing.assert_array_equal(dense(amr.PlotFileData(out).get(0)), ref)
    (tmp_path / "f").write_text("")
    with pytest.raises(OSError, match=r"\\xff"):
        amr.write_single_level_plotfile(base + b"/f/\xff/plt", mf, ["a", "b"], geometry(), 0.0, 0)
    with pytest.raises(OSError, match=r"\\xff"):
        amr.PlotFileData(base + b"/\xff/none")
    with pytest.raises(OSError, match=r"\\xfe"):
        amr.VisMF.Write(mf, base + b"/f/\xfe")


def can_exchange(where):
    """Whether renameat2(RENAME_EXCHANGE) works in the folder `where` (Linux, most file systems)."""
    import ctypes
    try:
        f = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    a, b = os.path.join(where, "xa"), os.path.join(where, "xb")
    os.mkdir(a), os.mkdir(b)
    try:
        return f(-100, a.encode(), -100, b.encode(), 2) == 0   # AT_FDCWD, RENAME_EXCHANGE
    finally:
        os.rmdir(a), os.rmdir(b)


REWRITER = textwrap.dedent("""
    import os, sys
    import numpy as np
    sys.path[:0] = [{here!r}, __import__("os").path.dirname({here!r})]  # the test module, and the helpers it imports
    import boxfab.space3d as amr
    amr.initialize(["amrex.verbose=0"])
    import test_plotfile_paths as T
    T.N = {n}
    os.chdir({root!r})
    mfs = [T.make_mf(seed=s)[0] for s in range(2)]
    pcs = []
    for s in range(2):
        pc, *_ = T.make_pc()
        pc.add_particles(np.random.default_rng(s).random((3000, 3)), {{"w": np.full(3000, float(s))}})
        pcs.append(pc)
    for i in range(2):
        amr.VisMF.Write(mfs[i], "chk"); amr.write_single_level_plotfile("plt", mfs[i], ["a", "b"], T.geometry(), 0.0, 0)
        pcs[i].checkpoint(".", "parts")
    sys.stdout.write("ready\\n"); sys.stdout.flush()
    i = 0
    while not os.path.exists("stop"):
        amr.VisMF.Write(mfs[i % 2], "chk")
        amr.write_single_level_plotfile("plt", mfs[i % 2], ["a", "b"], T.geometry(), float(i), i)
        pcs[i % 2].checkpoint(".", "parts")
        for x in os.listdir("."):
            if x.startswith("plt.old."):
                import shutil; shutil.rmtree(x)
        i += 1
    """)


def test_reading_while_another_process_rewrites(tmp_path):
    """Another process rewrites a VisMF checkpoint, a plotfile and a particle checkpoint of the same names in a
    loop, alternating two different data sets, while this one reads them: every read either raises a clear
    OSError / ValueError or returns one of the two data sets whole.  VisMF.Read mixed the FABs of two
    checkpoints (each FAB opened its data file anew) and failed with ENOENT while the previous data file was
    moved aside; a plotfile or particle directory replaced while read gave the new files' bytes under the old
    headers."""
    global N
    n_saved, N = N, 16
    try:
        refs = [make_mf(seed=s)[1] for s in range(2)]
        p = subprocess.Popen([sys.executable, "-c", REWRITER.format(here=HERE, n=16, root=str(tmp_path))],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert p.stdout.readline() == "ready\n", p.stderr.read()
            seen = {"vismf": 0, "plt": 0, "parts": 0, "errors": 0}
            for _ in range(150):
                for what in ("vismf", "plt", "parts"):
                    try:
                        if what == "vismf":
                            got = dense(amr.VisMF.Read(str(tmp_path / "chk")))
                            assert any(np.array_equal(got, r) for r in refs), "a mix of two checkpoints"
                        elif what == "plt":
                            got = dense(amr.PlotFileData(str(tmp_path / "plt")).get(0))
                            assert any(np.array_equal(got, r) for r in refs), "a mix of two plotfiles"
                        else:
                            pc, *_ = make_pc()
                            pc.restart(str(tmp_path), "parts")
                            w = set()
                            iw = pc.real_comp_names.index("w")
                            for pti in pc.iterator(pc, level=0):
                                w |= set(np.unique(pti.soa().get_real_data(iw).to_numpy()).tolist())
                            assert pc.total_number_of_particles() == 3000 and len(w) == 1, (w, "a mix")
                        seen[what] += 1
                    except (OSError, ValueError) as e:
                        assert str(e), what
                        seen["errors"] += 1
                        if what != "vismf" and "No such file" in str(e):
                            seen["missing"] = seen.get("missing", 0) + 1
        finally:
            (tmp_path / "stop").write_text("")
            p.wait(timeout=120)
        assert p.returncode == 0, p.stderr.read()[-2000:]
        assert seen["vismf"] > 0 and seen["plt"] > 0 and seen["parts"] > 0, seen
        # a plotfile or particle directory is swapped with the previous one in one step (renameat2's exchange)
        # where the file system can: its name never stops naming one (two renames left a moment without)
        if can_exchange(str(tmp_path)):
            assert "missing" not in seen, seen
    finally:
        N = n_saved
