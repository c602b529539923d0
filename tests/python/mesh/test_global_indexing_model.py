"""Global indexing mf[...] / mf[...] = v against a brute-force model of pyAMReX's rules.

The rules are those of pyAMReX's extension src/amrex/extensions/MultiFab.py
(_process_index, _get_intersect_slice, __getitem__, __setitem__).  The model
below restates them cell by cell: every selected cell is looked up in every fab
in MFIter order and the last fab whose region holds it gives the value.  Each fab
(ghost cells included) is filled with a value that encodes the fab's index, so a
value read from the wrong fab (an internal ghost instead of a valid cell) shows.
Where pyAMReX asserts (checks that vanish under ``python -O``) or returns wrong
data, boxfab raises; those cases are tested at the end."""
import itertools
import subprocess
import sys
import textwrap

import numpy as np
import pytest


def code(idx, p, c):
    """The value stored at position p (3 spatial entries) of component c in fab idx."""
    return idx * 1.0e7 + c * 1.0e6 + (p[0] + 20) + 100.0 * (p[1] + 20) + 10000.0 * (p[2] + 20)


LAYOUTS = {
    # name: (boxes as (lo, hi) of the first dim entries, nodal, ng, ncomp)
    "covered": ([([0] * 3, [3] * 3), ([4, 0, 0], [7, 3, 3]), ([0, 4, 0], [3, 7, 3]), ([4, 4, 0], [7, 7, 3]),
                 ([0, 0, 4], [3, 3, 7]), ([4, 0, 4], [7, 3, 7]), ([0, 4, 4], [3, 7, 7]), ([4, 4, 4], [7, 7, 7])],
                False, 1, 2),
    "holes": ([([0, 0, 0], [2, 5, 5]), ([3, 0, 0], [4, 2, 5]), ([6, 0, 0], [7, 5, 5])], False, 1, 1),
    "nodal": ([([0] * 3, [3] * 3), ([4, 0, 0], [7, 3, 3]), ([0, 4, 0], [3, 7, 3]), ([4, 4, 0], [7, 7, 3])],
              True, 1, 2),
    "offset": ([([3, 2, 1], [6, 5, 4]), ([7, 2, 1], [10, 5, 4])], False, 2, 3),
}


def boxes_for(amr, name):
    dim = amr.Config.spacedim
    boxes, nodal, ng, nc = LAYOUTS[name]
    seen, out = set(), []
    for lo, hi in boxes:  # cut to the dimension, dropping boxes that become duplicates
        key = (tuple(lo[:dim]), tuple(hi[:dim]))
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out, nodal, ng, nc


def make(amr, name, cls=None):
    dim = amr.Config.spacedim
    if not amr.initialized():
        amr.initialize([])
    boxes, nodal, ng, nc = boxes_for(amr, name)
    ba = amr.BoxArray([amr.Box(amr.IntVect(list(lo)), amr.IntVect(list(hi))) for lo, hi in boxes])
    if nodal:
        ba.convert(amr.IntVect([1] * dim))
    mf = (cls or amr.MultiFab)(ba, amr.DistributionMapping(ba), nc, ng)
    for mfi in mf:
        fb = mfi.fabbox()
        a = mf.array(mfi).to_numpy()
        axes = [np.arange(fb.small_end[d], fb.big_end[d] + 1) for d in range(dim)] + [np.zeros(1, int)] * (3 - dim)
        g = np.meshgrid(*axes, indexing="ij")
        for c in range(nc):
            a[..., c] = code(mfi.index, g, c)
    return mf


class Fab:
    def __init__(self, amr, mfi):
        dim = amr.Config.spacedim
        pad = lambda v: [v[d] for d in range(dim)] + [0] * (3 - dim)  # noqa: E731
        self.idx = mfi.index
        self.vlo, self.vhi = pad(mfi.validbox().small_end), pad(mfi.validbox().big_end)
        self.flo, self.fhi = pad(mfi.fabbox().small_end), pad(mfi.fabbox().big_end)


def fabs_of(amr, mf):
    return sorted((Fab(amr, mfi) for mfi in mf), key=lambda f: f.idx)


def domain(amr, mf):
    """Valid bounds per internal axis (x, y, z, comp) and ghost widths (the model's view)."""
    dim = amr.Config.spacedim
    fabs = fabs_of(amr, mf)
    lo = [min(f.vlo[d] for f in fabs) for d in range(3)] + [0]
    hi = [max(f.vhi[d] for f in fabs) for d in range(3)] + [mf.nComp - 1]
    ng = [mf.n_grow_vect[d] if d < dim else 0 for d in range(3)] + [0]
    return lo, hi, ng


class Raises(Exception):
    pass


def model_key(amr, mf, key):
    """Key -> list of 4 ranges (x, y, z, comp); Raises(IndexError) where boxfab must raise."""
    dim = amr.Config.spacedim
    lo, hi, ng = domain(amr, mf)
    items = list(key) if isinstance(key, tuple) else ([] if key is Ellipsis else [key])
    if Ellipsis in items:
        i = items.index(Ellipsis)
        items[i:i + 1] = [slice(None)] * (dim + 2 - len(items))
    items += [slice(None)] * (dim + 1 - len(items))
    axes = list(range(dim)) + [3]
    ranges = [range(0, 1)] * 4

    def pos(v, a):
        if isinstance(v, complex):
            return lo[a] + int(v.imag) if v.imag <= 0 else hi[a] + int(v.imag)
        return v if v >= 0 else v + hi[a] - lo[a] + 1

    for a, e in zip(axes, items):
        if e == ():
            ranges[a] = range(lo[a] - ng[a], hi[a] + ng[a] + 1)
        elif isinstance(e, slice):
            s = lo[a] if e.start is None else pos(e.start, a)
            t = hi[a] + 1 if e.stop is None else pos(e.stop, a)
            if a == 3 and not (0 <= s <= mf.nComp and 0 <= t <= mf.nComp):
                raise Raises(IndexError)
            if a < 3 and s < t and (t <= lo[a] - ng[a] or s > hi[a] + ng[a]):
                raise Raises(IndexError)  # names no cell at all (issue 21; pyAMReX: zeros(0))
            ranges[a] = range(s, t)
        else:
            p = pos(e, a)
            if not lo[a] - ng[a] <= p <= hi[a] + ng[a]:
                raise Raises(IndexError)
            ranges[a] = range(p, p + 1)
    return ranges


def region(f, lo, hi, dim, internal):
    if internal:
        return f.flo, f.fhi
    rlo = [f.flo[d] if d < dim and f.vlo[d] == lo[d] else f.vlo[d] for d in range(3)]
    rhi = [f.fhi[d] if d < dim and f.vhi[d] == hi[d] else f.vhi[d] for d in range(3)]
    return rlo, rhi


def model_read(amr, mf, key, with_internal_ghosts=False):
    dim = amr.Config.spacedim
    ranges = model_key(amr, mf, key)
    lo, hi, _ = domain(amr, mf)
    fabs = fabs_of(amr, mf)
    cells = sum(np.prod([f.vhi[d] - f.vlo[d] + 1 - (1 if mf.is_nodal(d) else 0) for d in range(dim)]) for f in fabs)
    covered = cells == np.prod([hi[d] - lo[d] + 1 - (1 if mf.is_nodal(d) else 0) for d in range(dim)])
    passes = [True] if with_internal_ghosts else ([False] if covered else [True, False])
    res = np.zeros([len(r) for r in ranges])
    matched = False
    for internal in passes:
        for f in fabs:
            rlo, rhi = region(f, lo, hi, dim, internal)
            inside = [[p for p in ranges[d] if rlo[d] <= p <= rhi[d]] for d in range(3)]
            if all(inside):
                matched = True
            for p in itertools.product(*inside):
                for c in ranges[3]:
                    res[tuple(p[d] - ranges[d].start for d in range(3)) + (c - ranges[3].start,)] = code(f.idx, p, c)
    if not matched:
        return np.zeros(0)
    return res if with_internal_ghosts else res.squeeze()[()]


def random_key(rng, amr, mf):
    dim = amr.Config.spacedim
    lo, hi, ng = domain(amr, mf)

    def entry(a):
        r = rng.integers(7)
        if a == 3:  # component
            return [int(rng.integers(-mf.nComp, mf.nComp)), slice(None),
                    slice(int(rng.integers(0, mf.nComp)), None), ()][r % 4]
        n = hi[a] - lo[a] + 1
        point = lambda: [int(rng.integers(lo[a], hi[a] + 1)), -int(rng.integers(1, n + 1)),  # noqa: E731
                         complex(0, int(rng.integers(-ng[a] - 1, ng[a] + 2)))][rng.integers(3)]
        if r == 0:
            return point()
        if r == 1:
            return ()
        if r == 2:
            return slice(None)
        return slice(None if rng.random() < 0.3 else point(), None if rng.random() < 0.3 else point())

    items = [entry(a) for a in list(range(dim)) + [3]]
    n = int(rng.integers(0, dim + 2))
    items = items[:n]
    if rng.random() < 0.3:
        items.insert(int(rng.integers(0, len(items) + 1)), Ellipsis)
    if len(items) == 1 and rng.random() < 0.5:
        return items[0]
    return tuple(items) if items else Ellipsis


def same(got, expect):
    got = np.asarray(got)
    assert got.shape == np.shape(expect), (got.shape, np.shape(expect))
    assert np.array_equal(got, expect)


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_reads_match_the_model(amr, name):
    mf = make(amr, name)
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(120):
        key = random_key(rng, amr, mf)
        for wig in (False, True):
            try:
                expect = model_read(amr, mf, key, wig)
            except Raises:
                with pytest.raises(IndexError):
                    mf.__getitem__(key, with_internal_ghosts=wig)
                continue
            got = mf.__getitem__(key, with_internal_ghosts=wig)
            assert np.shape(got) == np.shape(expect), (key, wig)
            assert np.array_equal(got, expect), (key, wig)
            checked += 1
    assert checked > 150


def model_write(amr, mf, key, value4):
    """{fab index: expected fab array} after mf[key] = value (value4: the 4-D value)."""
    dim = amr.Config.spacedim
    ranges = model_key(amr, mf, key)
    out = {}
    for mfi in mf:
        f = Fab(amr, mfi)
        a = mf.array(mfi).to_numpy().copy()
        for p in itertools.product(*[range(max(r.start, f.flo[d]), min(r.stop, f.fhi[d] + 1))
                                     for d, r in enumerate(ranges[:3])]):
            for c in ranges[3]:
                a[tuple(p[d] - f.flo[d] for d in range(3)) + (c,)] = \
                    value4[tuple(p[d] - ranges[d].start for d in range(3)) + (c - ranges[3].start,)]
        out[f.idx] = a
    assert dim >= 1
    return out


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_writes_match_the_model(amr, name):
    """Arrays of the selection's shape with its length-1 axes left out (pyAMReX re-inserts
    them) and scalars; every fab cell in the range is written, ghost cells included."""
    rng = np.random.default_rng(11)
    done = 0
    for _ in range(60):
        mf = make(amr, name)
        key = random_key(rng, amr, mf)
        try:
            ranges = model_key(amr, mf, key)
        except Raises:
            with pytest.raises(IndexError):
                mf[key] = 1.0
            continue
        shape4 = tuple(len(r) for r in ranges)
        if rng.random() < 0.25:
            value, value4 = 5.5, np.full(shape4, 5.5)
        else:
            value4 = rng.random(shape4)
            value = value4.squeeze() if value4.size else value4
        expect = model_write(amr, mf, key, value4)
        mf[key] = value
        for mfi in mf:
            assert np.array_equal(mf.array(mfi).to_numpy(), expect[mfi.index]), key
        done += 1
    assert done > 30


# ---- pyAMReX's examples and shape rules --------------------------------------------------------
def test_pyamrex_manual_example(amr3):
    """pyAMReX tests/test_multifab.py::test_mfab_numpy (docs 'Compute Mfab Global'): the
    (nx,) read mf[:, 1j, 2] is written back into the (nx, 1, 1, 1) selection mf[:, -1, 2]."""
    amr = amr3
    for nc in (1, 3):
        base = make(amr, "covered")
        mf = amr.MultiFab(base.box_array(), base.dm(), nc, 1)
        mf.set_val(0.0)
        mf[-1j:2j, :, (), 0] = 42.0
        g = mf.__getitem__(((),) * 3, with_internal_ghosts=True)  # x, y, z from -1
        assert np.all(g[0:10, 1:9, :, 0] == 42.0) and np.all(g[:, 0, :, 0] == 0) and np.all(g[..., 1:] == 0)
        rng = np.random.default_rng(nc)
        mf[...] = rng.random((8, 8, 8, nc)).squeeze()
        mf[:, 1j, ()] = rng.random((8, 10, nc)).squeeze()
        mfslice = mf[:, 1j, 2]
        assert mfslice.shape == ((8,) if nc == 1 else (8, nc))
        mf[:, -1, 2] = 2 * mfslice
        same(mf[:, -1, 2], 2 * mfslice)
        same(mf[:, 7, 2], 2 * mfslice)


def test_write_inserts_missing_length_one_axes(amr3):
    """pyAMReX __setitem__: a NumPy value gets a length-1 axis wherever the selection has one."""
    amr = amr3
    amr.initialize([]) if not amr.initialized() else None
    ba = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(63, 3, 3)))
    ba.max_size(16)
    mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 2, 1)
    mf.set_val(0.0)
    v = np.arange(64.0)
    mf[:, 2, 1, 0:1] = v  # selection (64, 1, 1, 1): a length-1 *slice* also gets its axis
    same(mf[:, 2, 1, 0], v)
    mf[:, 2, 1:2, 1] = v + 100
    same(mf[:, 2, 1, 1], v + 100)
    mf[5, 1:3, 1:3, :] = np.arange(8.0).reshape(2, 2, 2)  # (2, 2, 2) -> (1, 2, 2, 2)
    same(mf[5, 1:3, 1:3, :], np.arange(8.0).reshape(2, 2, 2))
    # the whole 4-D shape (pyAMReX inserts axes into it as well and fails): NumPy's rule
    mf[:, 2, 1, 0:1] = (v + 1).reshape(64, 1, 1, 1)
    same(mf[:, 2, 1, 0], v + 1)
    with pytest.raises(ValueError, match="does not fit"):
        mf[:, 2, 1, 0] = np.arange(63.0)


def test_arrays_and_lists_follow_pyamrex(amr3):
    """pyAMReX reshapes NumPy arrays only; a list is assigned as NumPy would assign it to the
    fab slices, so [1, 2, 3] runs along the components while np.array([1, 2, 3]) runs along
    the last spatial axis of a (3, 3, 3, 3) selection."""
    amr = amr3
    if not amr.initialized():
        amr.initialize([])
    ba = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(2, 2, 2)))
    mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 3, 0)
    mf[...] = [1.0, 2.0, 3.0]
    got = mf[...]
    assert np.array_equal(got, np.broadcast_to([1.0, 2.0, 3.0], (3, 3, 3, 3)))
    mf[...] = np.array([1.0, 2.0, 3.0])  # -> shape (3, 1): broadcast as (1, 1, 3, 1)
    assert np.array_equal(mf[...], np.broadcast_to(np.array([1.0, 2.0, 3.0]).reshape(3, 1), (3, 3, 3, 3)))
    mf[0, 0, 0, :] = np.array([7.0, 8.0, 9.0])
    assert np.array_equal(mf[0, 0, 0, :], [7.0, 8.0, 9.0])


def test_slices_past_the_ghost_cells(amr):
    """pyAMReX does not clip slices: the result has the slice's length, cells that exist in
    no fab read as 0, and writes skip them."""
    dim = amr.Config.spacedim
    mf = make(amr, "covered")
    got = mf[(slice(-3j, 3j),) + (0,) * (dim - 1) + (0,)]
    # -3j:3j is lo - 3 .. hi + 2 (stop exclusive): 8 valid cells and 5 more, of which
    # ghost cells exist only at -1 and 8
    assert got.shape == (8 + 5,)
    assert got[0] == 0 and got[1] == 0 and got[-1] == 0
    assert np.all(got[2:-1] != 0)
    v = np.arange(13.0) + 1
    mf[(slice(-3j, 3j),) + (0,) * (dim - 1) + (0,)] = v
    same(mf[(slice(-1j, 2j),) + (0,) * (dim - 1) + (0,)], v[2:-1])
    # a slice wholly outside the ghost cells names no cell: pyAMReX reads zeros(0) and writes
    # nothing without a word; boxfab raises IndexError (issue 21), as for a single index there
    keys = [(slice(100, 104),) + (0,) * (dim - 1), (slice(-5j, -2j),), (slice(2j, 5j),)]
    if dim > 1:
        keys.append((slice(None), slice(-20, -10)))  # -20 + 8 .. -10 + 8: below the ghost cell -1
    for key in keys:
        with pytest.raises(IndexError, match="all outside"):
            mf[key]
        with pytest.raises(IndexError, match="all outside"):
            mf[key] = 1.0
    # empty slices select nothing, as in NumPy
    assert mf[(slice(3, 3),)].size == 0


def test_with_internal_ghosts_is_unsqueezed(amr):
    dim = amr.Config.spacedim
    mf = make(amr, "covered")
    key = (2,) * dim + (0,)
    r = mf.__getitem__(key, with_internal_ghosts=True)
    assert isinstance(r, np.ndarray) and r.shape == (1, 1, 1, 1)
    assert mf[key] == r[0, 0, 0, 0] or dim == 0
    assert np.ndim(mf[key]) == 0


# ---- values that NumPy would store as something else -----------------------------------------
def test_write_values_that_are_not_real_numbers_raise(amr):
    dim = amr.Config.spacedim
    mf = make(amr, "covered")
    before = mf[((),) * dim]
    for bad in (None, "1.5", b"1", 1 + 0j, np.complex128(2 + 1j), [1.0, None], np.array([1j, 2j]),
                np.array(["a", "b"]), {"a": 1}):
        with pytest.raises(TypeError):
            mf[...] = bad
        with pytest.raises(TypeError):
            mf[(0,) * dim + (0,)] = bad
    with pytest.raises(OverflowError):
        mf[...] = 10 ** 400
    same(mf[((),) * dim], before)
    mf[...] = np.float32(2.5)
    assert mf[(0,) * dim + (0,)] == 2.5
    mf[...] = True
    assert mf[(0,) * dim + (0,)] == 1.0


def test_imultifab_write_checks(amr):
    if not hasattr(amr, "iMultiFab"):
        pytest.skip("no iMultiFab")
    dim = amr.Config.spacedim
    if not amr.initialized():
        amr.initialize([])
    ba = amr.BoxArray(amr.Box(amr.IntVect([0] * dim), amr.IntVect([3] * dim)))
    mf = amr.iMultiFab(ba, amr.DistributionMapping(ba), 1, 0)
    mf[...] = 7.0
    assert mf[(1,) * dim] == 7
    mf[...] = np.array(-3.0)
    assert mf[(1,) * dim] == -3
    for bad, exc in ((1.5, ValueError), (float("nan"), ValueError), (float("inf"), ValueError),
                     (2 ** 40, OverflowError), (np.int64(-2 ** 40), OverflowError),
                     (np.full(4, 1.5), ValueError), (np.full(4, 2 ** 40), OverflowError),
                     ([1, 2.5, 3, 4], ValueError), (None, TypeError), (2j, TypeError)):
        with pytest.raises(exc):
            mf[(slice(None),) + (0,) * (dim - 1)] = bad
    assert np.all(mf[...] == -3)
    mf[(slice(None),) + (0,) * (dim - 1)] = np.arange(4.0)  # integral floats are fine
    assert np.array_equal(mf[(slice(None),) + (0,) * (dim - 1)], np.arange(4))


# ---- the checks hold under python -O (pyAMReX's asserts do not) --------------------------------
def test_out_of_range_raises_under_python_O():
    prog = textwrap.dedent("""
        import numpy as np
        import boxfab.space3d as amr
        assert False, "asserts must be off"
    """) + textwrap.dedent("""
        amr.initialize(["amrex.verbose=0"])
        ba = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(7, 7, 7)))
        mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 1)
        mf.set_val(3.0)
        for key in [(20, 0, 0), (0, 0, 0, 5), (2j, 0, 0), (1 + 1j,), (((1,),),)]:
            for op in ("read", "write"):
                try:
                    if op == "read":
                        mf[key]
                    else:
                        mf[key] = 9.0
                except IndexError:
                    pass
                else:
                    raise SystemExit(f"no IndexError for {op} {key!r}")
        if mf.max(0, 1) != 3.0:
            raise SystemExit("a write went through")
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-O", "-c", prog], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_every_out_of_range_key_form_raises_under_python_O():
    """Issue 21: no out-of-range selection may pass under ``python -O`` (pyAMReX's checks are
    asserts): every form of a bad entry (ints, NumPy ints, negative ints, imaginary numbers,
    NumPy complex, wholly-outside slices, component indices and slices) on every axis, among
    valid entries on the others, raises IndexError on read, read with internal ghosts and
    write, in 1D, 2D and 3D, and no write changes a cell (ghost cells included)."""
    prog = textwrap.dedent("""
        import importlib, random
        import numpy as np
        assert False, "asserts must be off"
    """) + textwrap.dedent("""
        rng = random.Random(21)
        for dim in (1, 2, 3):
            amr = importlib.import_module(f"boxfab.space{dim}d")
            if not amr.initialized():
                amr.initialize(["amrex.verbose=0"])
            ng = [1, 2, 0][:dim]
            ba = amr.BoxArray(amr.Box(amr.IntVect([2] * dim), amr.IntVect([9] * dim)))
            ba.max_size(4)
            mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 2, amr.IntVect(ng))
            mf.set_val(3.0)
            lo, hi, g = [2] * dim + [0], [9] * dim + [1], ng + [0]
            def bad(ax):
                glo, ghi, n = lo[ax] - g[ax], hi[ax] + g[ax], hi[ax] - lo[ax] + 1
                forms = [ghi + 1, glo - 1 if glo - 1 >= 0 else ghi + 7, np.int64(ghi + 3), np.int32(10**6),
                         -(n + g[ax] + 1), np.int64(-(n + g[ax] + 2)), complex(0, g[ax] + 1),
                         complex(0, -g[ax] - 1), np.complex64(complex(0, g[ax] + 2)), 10**30, -10**30]
                if ax == dim:  # the component: its slices must stay in [0, n_comp]
                    forms += [slice(0, 3), slice(-1j, None), slice(None, 5j)]
                else:  # a spatial slice wholly outside the ghost-extended range
                    forms += [slice(ghi + 1, ghi + 4), slice(0, glo) if glo > 0 else slice(ghi + 2, ghi + 3), slice(complex(0, g[ax] + 1), complex(0, g[ax] + 3)),
                              slice(complex(0, -g[ax] - 3), complex(0, -g[ax])), slice(np.int64(100), np.int64(200))]
                return rng.choice(forms)
            def good(ax):
                return rng.choice([lo[ax], hi[ax], slice(None), (), complex(0, -g[ax]), -1, slice(lo[ax], hi[ax])])
            for _ in range(400):
                ax = rng.randrange(dim + 1)
                key = tuple(bad(a) if a == ax else good(a) for a in range(dim + 1))
                key = key[:rng.randint(ax + 1, dim + 1)]  # trailing entries may be left out
                if len(key) == 1 and rng.random() < 0.5:
                    key = key[0]
                for op in ("read", "internal", "write"):
                    try:
                        if op == "read":
                            mf[key]
                        elif op == "internal":
                            mf.__getitem__(key, with_internal_ghosts=True)
                        else:
                            mf[key] = 9.0
                    except IndexError:
                        pass
                    else:
                        raise SystemExit(f"{dim}D: no IndexError for {op} {key!r}")
            for mfi in mf:
                if not np.all(mf.array(mfi).to_numpy() == 3.0):
                    raise SystemExit(f"{dim}D: a refused write changed a cell")
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-O", "-c", prog], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().endswith("ok")
