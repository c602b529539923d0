"""IntVect-like arguments (issue 21): wherever boxfab takes an IntVect it takes any sequence of
ints as well (tuple, list, range, NumPy arrays of any integer dtype, a user's Sequence), and
where it takes an int too, NumPy integers and 0-d integer arrays; each form gives exactly the
result of the IntVect, in 1D, 2D and 3D.

pyAMReX's pybind11 bindings decide what a sequence may be: std::array<int, N> is read from any
sequence (not str/bytes) of exactly N items that convert to int (Python ints and bools, NumPy
integer scalars through __index__; never a float, and np.bool_ has no __index__). A real
pyAMReX script (a signed-distance package's tests) builds boxes as
``amr.Box(np.array([0, 0, 0]), np.array([15, 15, 15]))``, which raised TypeError here.

The table ENTRIES lists every entry point with an IntVect parameter; test_every_intvect_entry_point_is_in_the_table
finds them in the docstrings of the module and fails when one is added without a row here."""
import collections.abc
import importlib
import re

import numpy as np
import pytest


def dim_of(amr):
    return amr.Config.spacedim


def ensure_runtime(amr):
    if not amr.initialized():
        amr.initialize(["amrex.verbose=0"])


# ---- the forms of an IntVect-like value ------------------------------------------------------
class Seq(collections.abc.Sequence):
    """A user's own sequence type."""

    def __init__(self, v):
        self.v = list(v)

    def __len__(self):
        return len(self.v)

    def __getitem__(self, i):
        return self.v[i]


def sequence_forms(vals):
    """name -> an object holding the ints `vals` in another sequence form than an IntVect."""
    ro = np.array(vals, dtype=np.int64)
    ro.setflags(write=False)
    out = {
        "tuple": tuple(vals), "list": list(vals), "np.int64 array": np.array(vals, dtype=np.int64),
        "np.int32 array": np.array(vals, dtype=np.int32), "object array": np.array(vals, dtype=object), "tuple of np.int64": tuple(np.int64(x) for x in vals),
        "list of np.int32": [np.int32(x) for x in vals], "strided array": np.repeat(np.array(vals), 2)[::2],
        "read-only array": ro, "Sequence subclass": Seq(vals),
        "big-endian array": np.array(vals, dtype=">i8"),
    }
    if all(-(2**15) <= x < 2**15 for x in vals):
        out["np.int16 array"] = np.array(vals, dtype=np.int16)
    if all(0 <= x < 256 for x in vals):
        out["np.uint8 array"] = np.array(vals, dtype=np.uint8)
    steps = {b - a for a, b in zip(vals, vals[1:])}
    if len(vals) == 1:
        out["range"] = range(vals[0], vals[0] + 1)
    elif len(steps) == 1 and 0 not in steps:
        (s,) = steps
        out["range"] = range(vals[0], vals[-1] + s, s)
    return out


def scalar_forms(k):
    return {"np.int64": np.int64(k), "np.int32": np.int32(k), "np.uint16": np.uint16(k) if k >= 0 else np.int16(k),
            "0-d array": np.array(k), "0-d int8 array": np.array(k, dtype=np.int8)}


# ---- normal forms of results -----------------------------------------------------------------
def norm(x):
    name = type(x).__name__
    if name == "Box":
        return ("Box", str(x))
    if name.startswith("BoxArray"):
        return ("BoxArray", [str(b) for b in x])
    if name.startswith("IntVect"):
        return ("IntVect", tuple(x))
    if name.startswith("Periodicity"):
        return ("Periodicity", repr(x))
    if isinstance(x, np.ndarray):
        return ("array", x.shape, x.tolist())
    if isinstance(x, (list, tuple)):
        return [norm(e) for e in x]
    return x


# ---- fixtures of the calls ------------------------------------------------------------------
def box(amr, lo=0, hi=15):
    n = dim_of(amr)
    return amr.Box([lo] * n, [hi] * n)


def boxarray(amr):
    ba = amr.BoxArray(box(amr))
    ba.max_size(8)
    return ba


def geometry(amr):
    n = dim_of(amr)
    return amr.Geometry(box(amr), amr.RealBox([0.0] * n, [1.0] * n), 0, [1, 0, 1][:n])


def patterned(amr, cls=None, ncomp=2, ng=2):
    """A MultiFab (or iMultiFab) whose every cell, ghost cells included, holds a distinct value."""
    ensure_runtime(amr)
    ba = amr.BoxArray(box(amr, 0, 7))
    ba.max_size(4)
    mf = (cls or amr.MultiFab)(ba, amr.DistributionMapping(ba), ncomp, ng)
    for mfi in mf:
        a = mf.array(mfi).to_numpy()
        a[...] = (np.arange(a.size).reshape(a.shape) % 97 - 40 + 3 * mfi.index).astype(a.dtype)
    return mf


def contents(mf):
    return [mf.array(mfi).to_numpy().tolist() for mfi in mf]


def mf_op(cls_name, op):
    """A call of a FabArray operation taking nghost last, returning the data of its target."""
    def call(amr, n, v):
        cls = getattr(amr, cls_name)
        dst, src = patterned(amr, cls), patterned(amr, cls)
        if cls_name == "MultiFab" and op in ("divide",):
            for mfi in src:  # no zeros to divide by
                a = src.array(mfi).to_numpy()
                a[a == 0] = 7
        if op == "add_product":
            cls.add_product(dst, src, 0, src, 1, 0, 1, v)
        elif op == "abs":
            dst.abs(0, 2, v)
        else:
            getattr(cls, op)(dst, src, 0, 1, 1, v)
        return contents(dst) + contents(src)
    return call


def tiles(method, *before):
    def call(amr, n, v):
        ensure_runtime(amr)
        mf = patterned(amr, ng=1)
        return [norm(getattr(mfi, method)(*before, v)) for mfi in mf]
    return call


def set_attr(attr):
    def call(amr, n, v):
        b = box(amr, 0, 9)
        setattr(b, attr, v)
        return norm(b)
    return call


def pc_sorted(amr, n, v):
    pytest.importorskip("pandas")
    ensure_runtime(amr)
    g = amr.Geometry(box(amr), amr.RealBox([0.0] * n, [1.0] * n), 0, [0] * n)
    ba = amr.BoxArray(box(amr))
    pc = amr.ParticleContainer(g, amr.DistributionMapping(ba), ba)
    pc.add_particles(np.random.default_rng(7).random((64, n)))
    pc.sort_particles_by_bin(v)
    return pc.to_df()[["x", "y", "z"][:n]].values.tolist()


def plotfile(tmp_path):
    def call(amr, n, v):
        ensure_runtime(amr)
        g0 = geometry(amr)
        g1 = geometry(amr)
        g1.refine(amr.IntVect([2] * n))
        ba0 = boxarray(amr)
        ba1 = amr.BoxArray(box(amr, 8, 23))
        mfs = [amr.MultiFab(b, amr.DistributionMapping(b), 1, 0) for b in (ba0, ba1)]
        for m in mfs:
            m.set_val(1.0)
        path = tmp_path / f"plt{len(list(tmp_path.iterdir()))}"
        amr.write_multi_level_plotfile(str(path), 2, mfs, amr.Vector_string(["a"]), [g0, g1], 0.0, [0, 0], [v])
        return (path / "Header").read_text()
    return call


# (owner, name, parameter) -> (base values of an n-D call (lists of n ints), scalar values or None,
# call(amr, n, v) -> a comparable result).  Owner "" is the module; name "__init__" the constructor.
def entries(tmp_path):
    ba = boxarray
    E = {
        ("IntVect", "__init__", "values"): (lambda n: [[3, 4, 5][:n], [-7, 0, 2**31 - 1][:n]], [0, -3],
                                             lambda amr, n, v: norm(amr.IntVect(v))),
        ("Box", "__init__", "small"): (lambda n: [[0, 1, 2][:n], [-5, -3, -1][:n]], None,
                                       lambda amr, n, v: norm(amr.Box(v, [7] * n))),
        ("Box", "__init__", "big"): (lambda n: [[5, 6, 7][:n], [9, 7, 5][:n]], None,
                                     lambda amr, n, v: norm(amr.Box([0] * n, v))),
        ("Box", "__init__", "typ"): (lambda n: [[1, 0, 1][:n], [0, 1, 0][:n]], None,
                                     lambda amr, n, v: norm(amr.Box([0] * n, [7] * n, v))),
        ("Box", "small_end", "<set>"): (lambda n: [[1, 2, 3][:n]], None, set_attr("small_end")),
        ("Box", "lo_vect", "<set>"): (lambda n: [[1, 2, 3][:n]], None, set_attr("lo_vect")),
        ("Box", "big_end", "<set>"): (lambda n: [[11, 12, 13][:n]], None, set_attr("big_end")),
        ("Box", "hi_vect", "<set>"): (lambda n: [[11, 12, 13][:n]], None, set_attr("hi_vect")),
        ("Box", "type", "<set>"): (lambda n: [[1, 0, 1][:n]], None, set_attr("type")),
        ("Box", "contains", "p"): (lambda n: [[1, 2, 3][:n], [15, 16, 0][:n], [-1, 0, 0][:n]], None,
                                   lambda amr, n, v: box(amr).contains(v)),
        ("Box", "strictly_contains", "p"): (lambda n: [[1, 2, 3][:n], [0, 1, 2][:n]], None,
                                            lambda amr, n, v: box(amr).strictly_contains(v)),
        ("Box", "convert", "typ"): (lambda n: [[1, 0, 1][:n], [0, 1, 1][:n]], None,
                                    lambda amr, n, v: norm(box(amr).convert(v))),
        ("Box", "grow", "n_cells"): (lambda n: [[1, 2, 3][:n], [-2, 0, 2][:n]], [2, -1],
                                     lambda amr, n, v: norm(box(amr).grow(v))),
        ("Box", "shift", "iv"): (lambda n: [[1, 2, 3][:n], [-4, -2, 0][:n]], None,
                                 lambda amr, n, v: norm(box(amr).shift(v))),
        ("Box", "refine", "ratio"): (lambda n: [[1, 2, 3][:n]], [2], lambda amr, n, v: norm(box(amr).refine(v))),
        ("Box", "coarsen", "ratio"): (lambda n: [[1, 2, 3][:n]], [4], lambda amr, n, v: norm(box(amr).coarsen(v))),
        ("BoxArray", "coarsen", "ratio"): (lambda n: [[1, 2, 4][:n]], [2],
                                           lambda amr, n, v: norm(ba(amr).coarsen(v))),
        ("BoxArray", "refine", "ratio"): (lambda n: [[1, 2, 3][:n]], [3], lambda amr, n, v: norm(ba(amr).refine(v))),
        ("BoxArray", "coarsenable", "ratio"): (lambda n: [[2, 4, 8][:n], [1, 3, 5][:n]], [2, 16],
                                               lambda amr, n, v: ba(amr).coarsenable(v)),
        ("BoxArray", "coarsenable", "min_width"): (lambda n: [[0, 1, 2][:n], [4, 5, 6][:n]], [1, 5],
                                                   lambda amr, n, v: ba(amr).coarsenable(2, v)),
        ("BoxArray", "contains", "p"): (lambda n: [[1, 2, 3][:n], [16, 0, 0][:n]], None,
                                        lambda amr, n, v: ba(amr).contains(v)),
        ("BoxArray", "convert", "typ"): (lambda n: [[1, 0, 1][:n]], None, lambda amr, n, v: norm(ba(amr).convert(v))),
        ("BoxArray", "grow", "n"): (lambda n: [[1, 2, 3][:n]], [1, -2], lambda amr, n, v: norm(ba(amr).grow(v))),
        ("BoxArray", "max_size", "n"): (lambda n: [[4, 5, 6][:n], [3, 8, 13][:n]], [3, 5],
                                        lambda amr, n, v: norm(ba(amr).max_size(v))),
        ("BoxArray", "shift", "iv"): (lambda n: [[1, 2, 3][:n]], None, lambda amr, n, v: norm(ba(amr).shift(v))),
        ("", "coarsen", "ratio"): (lambda n: [[2, 3, 4][:n]], [2],
                                   lambda amr, n, v: norm(amr.coarsen(amr.IntVect([-7, 9, 13][:n]), v))),
        ("Periodicity", "__init__", "period"): (lambda n: [[16, 0, 8][:n], [0, 0, 0][:n]], None,
                                                lambda amr, n, v: norm(amr.Periodicity(v))),
        ("Geometry", "CellCenter", "point"): (lambda n: [[1, 2, 3][:n], [-1, 0, 16][:n]], None,
                                              lambda amr, n, v: geometry(amr).CellCenter(v)),
        ("Geometry", "LoEdge", "point"): (lambda n: [[1, 2, 3][:n]], None,
                                          lambda amr, n, v: geometry(amr).LoEdge(v, n - 1)),
        ("Geometry", "HiEdge", "point"): (lambda n: [[1, 2, 3][:n]], None,
                                          lambda amr, n, v: geometry(amr).HiEdge(v, 0)),
        ("Geometry", "refine", "rr"): (lambda n: [[1, 2, 3][:n]], [2],
                                       lambda amr, n, v: (lambda g: (g.refine(v), norm(g.Domain()),
                                                                     g.CellSize()))(geometry(amr))),
        ("Geometry", "coarsen", "rr"): (lambda n: [[1, 2, 4][:n]], [2],
                                        lambda amr, n, v: (lambda g: (g.coarsen(v), norm(g.Domain()),
                                                                      g.CellSize()))(geometry(amr))),
        ("Geometry", "growNonPeriodicDomain", "ngrow"): (lambda n: [[1, 2, 3][:n]], [2],
                                                         lambda amr, n, v: norm(geometry(amr).growNonPeriodicDomain(v))),
        ("Geometry", "growPeriodicDomain", "ngrow"): (lambda n: [[1, 2, 3][:n]], [2],
                                                      lambda amr, n, v: norm(geometry(amr).growPeriodicDomain(v))),
        ("MultiFab", "__init__", "ngrow"): (lambda n: [[1, 2, 0][:n]], [1],
                                            lambda amr, n, v: (ensure_runtime(amr), norm(amr.MultiFab(
                                                ba(amr), amr.DistributionMapping(ba(amr)), 1, v).n_grow_vect))),
        ("", "copy_mfab", "nghost"): (lambda n: [[1, 0, 2][:n]], [1],
                                      lambda amr, n, v: (lambda d, s: (amr.copy_mfab(d, s, 0, 1, 1, v),
                                                                       contents(d)))(patterned(amr), patterned(amr))),
        ("MultiFab", "fill_boundary", "nghost"): (lambda n: [[1, 0, 2][:n]], None,
                                                  lambda amr, n, v: (lambda m: (m.fill_boundary(
                                                      v, geometry(amr).periodicity()), contents(m)))(patterned(amr))),
        ("iMultiFab", "fill_boundary", "nghost"): (lambda n: [[1, 0, 2][:n]], None,
                                                   lambda amr, n, v: (lambda m: (m.fill_boundary(
                                                       v, geometry(amr).periodicity()), contents(m)))(
                                                       patterned(amr, amr.iMultiFab))),
        ("FabArray_FArrayBox", "sum", "nghost"): (lambda n: [[1, 0, 2][:n]], None,
                                                  lambda amr, n, v: amr.FabArray_FArrayBox.sum(patterned(amr), 1, v,
                                                                                               False)),
        ("FabArray_FArrayBox", "lin_comb", "nghost"): (
            lambda n: [[1, 0, 2][:n]], None,
            lambda amr, n, v: (lambda d, x, y: (amr.MultiFab.lin_comb(d, 2.0, x, 0, -1.0, y, 1, 0, 1, v),
                                                contents(d)))(patterned(amr), patterned(amr), patterned(amr))),
        ("FabArray_FArrayBox", "saxpy", "nghost"): (
            lambda n: [[1, 0, 2][:n]], None,
            lambda amr, n, v: (lambda y, x: (amr.MultiFab.saxpy(y, 0.5, x, 0, 1, 1, v), contents(y)))(
                patterned(amr), patterned(amr))),
        ("FabArray_FArrayBox", "xpay", "nghost"): (
            lambda n: [[1, 0, 2][:n]], None,
            lambda amr, n, v: (lambda y, x: (amr.MultiFab.xpay(y, 0.5, x, 0, 1, 1, v), contents(y)))(
                patterned(amr), patterned(amr))),
        ("MFItInfo", "enable_tiling", "ts"): (lambda n: [[8, 16, 32][:n], [1, 2, 3][:n]], None,
                                              lambda amr, n, v: norm(amr.MFItInfo().enable_tiling(v).tilesize)),
        ("MFIter", "tilebox", "nodal"): (lambda n: [[1, 0, 1][:n], [0, 0, 0][:n]], None, tiles("tilebox")),
        ("MFIter", "tilebox", "ngrow"): (lambda n: [[1, 0, 2][:n]], [1],
                                         lambda amr, n, v: tiles("tilebox", amr.IntVect([0, 1, 0][:n]))(amr, n, v)),
        ("MFIter", "growntilebox", "ng"): (lambda n: [[1, 0, 2][:n]], [1], tiles("growntilebox")),
        ("MFIter", "grownnodaltilebox", "ng"): (lambda n: [[1, 0, 2][:n]], [1], tiles("grownnodaltilebox", -1)),
        ("ParticleContainer", "sort_particles_by_bin", "bin_size"): (lambda n: [[4, 2, 8][:n], [1, 2, 3][:n]],
                                                                     None, pc_sorted),
        ("", "write_multi_level_plotfile", "ref_ratio"): (lambda n: [[2, 2, 2][:n]], [2], plotfile(tmp_path)),
        ("AmrInfo", "refine_grid_layout_dims", "<set>"): (lambda n: [[1, 0, 1][:n]], None,
                                                          lambda amr, n, v: (lambda a: (setattr(
                                                              a, "refine_grid_layout_dims", v),
                                                              norm(a.refine_grid_layout_dims)))(amr.AmrInfo())),
        ("AmrMesh", "__init__", "ref_ratios"): (
            lambda n: [[2, 4, 2][:n]], [2],
            lambda amr, n, v: (lambda m: [norm(m.ref_ratio(lev)) for lev in range(2)])(
                amr.AmrMesh(amr.RealBox([0.0] * n, [1.0] * n), 2, [16] * n, 0, [v, v], [0] * n))),
        ("Vector_IntVect", "__init__", "iterable"): (lambda n: [[1, 2, 3][:n]], None,
                                                     lambda amr, n, v: [norm(e) for e in amr.Vector_IntVect([v, v])]),
        ("MultiFab", "abs", "nghost"): (lambda n: [[1, 0, 2][:n]], [1], mf_op("MultiFab", "abs")),
        ("iMultiFab", "abs", "nghost"): (lambda n: [[1, 0, 2][:n]], [1], mf_op("iMultiFab", "abs")),
        ("MultiFab", "add_product", "nghost"): (lambda n: [[1, 0, 2][:n]], [1], mf_op("MultiFab", "add_product")),
    }
    for cls in ("MultiFab", "iMultiFab"):
        for op in ("add", "subtract", "multiply", "divide", "swap"):
            if cls == "iMultiFab" and op == "divide":
                continue  # integer division by the pattern's zeros: covered by MultiFab.divide (same C code)
            E[(cls, op, "nghost")] = (lambda n: [[1, 0, 2][:n]], [1], mf_op(cls, op))
    return E


# Entry points with an IntVect parameter that take no sequence, each with its reason.
WAIVED = {
    ("", "coarsen", "iv"): "coarsen(iv: IntVectKD, ...) takes an IntVect of any dimension K (its type says K "
                           "and picks the Dim3 overload from the IntVect one)",
    ("", "refine", "ratio"): "the ratio of a Dim3 is an IntVect of any dimension, missing components 1: the "
                             "dimension says which components it gives, a list's length would not",
    ("iMultiFab", "divide", "nghost"): "the same C function as MultiFab.divide (see ENTRIES)",
}


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    return entries(tmp_path_factory.mktemp("plotfiles"))


# ---- every entry point, every form, every dimension ------------------------------------------
ENTRY_KEYS = sorted(entries(None).keys())


@pytest.mark.parametrize("key", ENTRY_KEYS, ids=lambda k: ".".join(p for p in k if p))
def test_every_sequence_form_gives_the_intvect_result(amr, table, key):
    ensure_runtime(amr)
    n = dim_of(amr)
    values, scalars, call = table[key]
    for vals in values(n):
        ref = call(amr, n, amr.IntVect(vals))
        for name, form in sequence_forms(vals).items():
            assert call(amr, n, form) == ref, (key, name, vals)
    for k in scalars or []:
        ref = call(amr, n, amr.IntVect([k] * n))
        assert call(amr, n, k) == ref, (key, "int", k)
        for name, form in scalar_forms(k).items():
            assert call(amr, n, form) == ref, (key, name, k)


def test_the_signed_distance_scripts_box(amr):
    """The failing line of the pyAMReX scripts of the issue."""
    n = dim_of(amr)
    b = amr.Box(np.array([0] * n), np.array([15] * n))
    assert str(b) == str(amr.Box(amr.IntVect([0] * n), amr.IntVect([15] * n)))
    assert b.numPts() == 16**n
    ba = amr.BoxArray(b)
    ba.max_size(np.array([8] * n))
    assert len(ba) == 2**n


# ---- the table covers every IntVect parameter the docstrings name ----------------------------
_PARAM = re.compile(r"(\w+)\s*:\s*([\w\s|/\[\].]*IntVect\w*)")
_FAMILY = re.compile(r"^(ParticleContainer|ParIterBase|ParIter|ParConstIterBase|ParConstIter)_\w+$")


def _family(name):
    name = name.lstrip("_")  # _ParticleContainer: the common base of the ParticleContainer_* classes
    m = _FAMILY.match(name)
    return m.group(1) if m else name


def _defining_class(cls, name):
    for c in cls.__mro__:
        if name in c.__dict__:
            return _family(c.__name__)
    return _family(cls.__name__)


def discovered_intvect_parameters(amr):
    """(owner, name, parameter) for every parameter annotated IntVect in a docstring of the module."""
    found = set()

    def params(doc):
        return [p for p, t in _PARAM.findall(doc or "") if "Vector_IntVect" not in t]

    for attr in dir(amr):
        obj = getattr(amr, attr)
        if isinstance(obj, type):
            for p in params(obj.__doc__):
                found.add((_family(attr), "__init__", p))
            for name in dir(obj):
                if name.startswith("__"):
                    continue
                meth = getattr(obj, name, None)
                if callable(meth):
                    for p in params(getattr(meth, "__doc__", "")):
                        found.add((_defining_class(obj, name), name, p))
        elif callable(obj):
            for p in params(obj.__doc__):
                found.add(("", attr, p))
    return found


def test_every_intvect_entry_point_is_in_the_table():
    amr = importlib.import_module("boxfab.space3d")
    covered = set(ENTRY_KEYS) | set(WAIVED)

    def is_covered(key):
        # a member defined on a base class is covered by a row of a class that inherits it
        owner, name, param = key
        base = getattr(amr, owner, None)
        return key in covered or any(
            n == name and p == param and isinstance(base, type) and issubclass(getattr(amr, o, object), base)
            for o, n, p in covered)

    missing = {k for k in discovered_intvect_parameters(amr) if not is_covered(k)}
    assert not missing, f"IntVect parameters without a row in ENTRIES (or WAIVED): {sorted(missing)}"
    assert len(covered) >= 60  # the discovery itself works


# ---- refusals: what pybind11 refuses, with a clear message -----------------------------------
def bad_forms(n):
    """(form, exception, message gist) that no IntVect-taking argument accepts."""
    class IndexRaises:
        def __index__(self):
            raise ZeroDivisionError("from __index__")

    class LyingLen(Seq):
        def __len__(self):
            return n  # says n, holds n + 1

    class NoLen:
        def __getitem__(self, i):
            if i > n:
                raise IndexError
            return 1

    gen = (i for i in range(n))
    return [
        ([1.5] * n, TypeError, "int"), ([1.0] * n, TypeError, "int"), (np.array([1.0] * n), TypeError, "int"),
        (np.array([1.5] * n, dtype=np.float32), TypeError, "int"), (np.array([1 + 0j] * n), TypeError, "int"),
        (np.array([True] * n), TypeError, "int"), ([np.bool_(True)] * n, TypeError, "int"),
        ([1] * (n + 1), ValueError, f"exactly {n}"), ([1] * (n - 1), ValueError, f"exactly {n}") if n > 1 else
        ([], ValueError, "exactly 1"), (np.zeros((n, 1), dtype=int), TypeError, "numpy.ndarray of 1 item"),
        (np.zeros((1, n), dtype=int), ValueError, f"exactly {n}") if n > 1 else (np.zeros((1, 1), int), TypeError,
                                                                                "not a numpy.ndarray of 1 item"), (np.array(["1"] * n), TypeError, "int"),
        ("1" * n, TypeError, None), (b"\x01" * n, TypeError, None), (bytearray(n), TypeError, None),
        ({i: 1 for i in range(n)}, TypeError, None), ({1}, TypeError, None), (gen, TypeError, None),
        (object(), TypeError, None), (None, TypeError, None), ([IndexRaises()] * n, ZeroDivisionError, "from __index__"),
        (LyingLen([1] * (n + 1)), ValueError, None), (NoLen(), ValueError, None),
        ([2**31] + [0] * (n - 1), OverflowError, "C int"), ([-(2**31) - 1] * n, OverflowError, "C int"),
        ([10**100] * n, OverflowError, None), (np.array([2**40] * n), OverflowError, "C int"),
        (np.array([2**63 - 1] * n, dtype=np.uint64) + np.uint64(1), OverflowError, None),
        (np.array(3), TypeError, None),  # an int where only an IntVect is taken (overloads name it their way)
    ]


REFUSING = [
    ("Box(small)", lambda amr, n, v: amr.Box(v, [7] * n)),
    ("Box.shift", lambda amr, n, v: box(amr).shift(v)),
    ("Box.contains", lambda amr, n, v: box(amr).contains(v)),
    ("BoxArray.contains", lambda amr, n, v: boxarray(amr).contains(v)),
    ("Periodicity", lambda amr, n, v: amr.Periodicity(v)),
    ("Geometry.CellCenter", lambda amr, n, v: geometry(amr).CellCenter(v)),
    ("MFIter.tilebox", lambda amr, n, v: [mfi.tilebox(v) for mfi in patterned(amr)]),
]


@pytest.mark.parametrize("name,call", REFUSING, ids=[r[0] for r in REFUSING])
def test_hostile_intvect_likes_are_refused_clearly(amr, name, call):
    ensure_runtime(amr)
    n = dim_of(amr)
    for form, exc, gist in bad_forms(n):
        with pytest.raises(exc, match=gist):
            call(amr, n, form)


def test_scalar_positions_refuse_floats_and_wide_ints(amr):
    """Where an int is taken too (grow, refine, max_size, ngrow...), a float is refused, never
    truncated, and a 1-d array is a sequence (it took the int overload and failed)."""
    ensure_runtime(amr)
    n = dim_of(amr)
    b = box(amr)
    for bad, exc in ((1.5, TypeError), (np.float64(2.0), TypeError), (np.float32(2), TypeError),
                     (np.array(2.0), TypeError), (np.complex64(1), TypeError), (np.bool_(True), TypeError),
                     (2**31, OverflowError), (np.int64(-(2**31) - 1), OverflowError), ("2", TypeError)):
        for call in (lambda: b.grow(bad), lambda: b.refine(bad), lambda: boxarray(amr).max_size(bad),
                     lambda: geometry(amr).growPeriodicDomain(bad)):
            with pytest.raises(exc):
                call()
    assert str(b) == str(box(amr))  # nothing changed
    assert str(box(amr).grow(np.array([1] * n))) == str(box(amr).grow(1))


def test_python_bools_are_ints_as_in_pybind11(amr):
    """pybind11's int caster takes Python bools (an int subclass); NumPy bools have no __index__."""
    n = dim_of(amr)
    assert tuple(amr.IntVect([True] * n)) == (1,) * n
    assert str(amr.Box([False] * n, [True] * n)) == str(amr.Box([0] * n, [1] * n))
    with pytest.raises(TypeError):
        amr.IntVect(np.ones(n, dtype=bool))


def test_intvect_operators_keep_pyamrex_rules(amr):
    """IntVect's operators take IntVects and ints (pyAMReX binds those overloads only): a tuple
    operand is NotImplemented (TypeError, == is False), a NumPy array operand is NumPy's."""
    n = dim_of(amr)
    iv = amr.IntVect(list(range(1, n + 1)))
    with pytest.raises(TypeError):
        iv + tuple(range(n))
    assert (iv == tuple(range(1, n + 1))) is False
    assert np.array_equal(iv + np.arange(n), np.arange(1, n + 1) + np.arange(n))
    # a NumPy integer or a 0-d array is an int there
    assert tuple(iv + np.int64(2)) == tuple(range(3, n + 3))
    assert tuple(iv * np.array(2)) == tuple(2 * i for i in range(1, n + 1))
    assert (amr.IntVect([4] * n) == np.array(4)) is True


# ---- Array4 indices: pyAMReX binds std::array<int, 3> and <int, 4> ---------------------------
def test_array4_indices_of_any_sequence(amr):
    ensure_runtime(amr)
    n = dim_of(amr)
    mf = patterned(amr, ncomp=2, ng=1)
    for mfi in mf:
        a = mf.array(mfi)
        ref = mf.array(mfi).to_numpy()  # (x, y, z, comp) F-ordered view with ghost cells
        lo = [mfi.fabbox().small_end[d] for d in range(n)] + [0] * (3 - n)
        for ijk in ([lo[0] + 1] + lo[1:], [lo[0] + 2, lo[1], lo[2]]):
            for comp in (0, 1):
                want = ref[tuple(ijk[d] - lo[d] for d in range(3)) + (comp,)]
                for name, key in sequence_forms(ijk + [comp]).items():
                    assert a[key] == want, name
                    a[key] = want  # writes take the same keys
                if comp == 0:
                    for name, key in sequence_forms(ijk).items():
                        assert a[key] == want, name
            assert a.contains(np.array(ijk[:n] if n == 3 else ijk[:n])) if n == 3 else True
        for bad, exc in ((np.array([1, 2]), IndexError), (np.array([1, 2, 3, 4, 5]), IndexError),
                         (np.array([1.0, 2.0, 3.0]), TypeError), (range(7), IndexError), ((i for i in range(3)), TypeError),
                         (np.array(3), IndexError), ("abc", TypeError)):
            with pytest.raises(exc):
                a[bad]
        break


# ---- real vectors: NumPy arrays of floats ------------------------------------------------------
def test_realvect_and_realbox_from_float_arrays(amr):
    n = dim_of(amr)
    lo, hi = [0.25, -1.0, 2.0][:n], [1.5, 3.0, 4.0][:n]
    for conv in (np.array, lambda v: np.array(v, dtype=np.float32), tuple, lambda v: [np.float64(x) for x in v],
                 lambda v: np.array(v, dtype=object)):
        assert tuple(amr.RealVect(conv(lo))) == tuple(amr.RealVect(lo))
        rb = amr.RealBox(conv(lo), conv(hi))
        assert (tuple(rb.lo()), tuple(rb.hi())) == (tuple(lo), tuple(hi))
        assert rb.contains(conv([1.0, 0.0, 3.0][:n]))
    assert tuple(amr.RealVect(np.array([1, 2, 3][:n]))) == tuple(float(x) for x in [1, 2, 3][:n])
    assert tuple(amr.RealVect(np.array(2.5))) == (2.5,) * n  # a 0-d array is a number
    for bad in (np.array([1 + 2j] * n), [np.complex64(1)] * n, [1j] * n, np.array(["1.0"] * n), [None] * n):
        with pytest.raises(TypeError):
            amr.RealVect(bad)
        with pytest.raises(TypeError):
            amr.RealBox(bad, hi)
    with pytest.raises(ValueError):
        amr.RealVect(np.zeros(n + 1))
