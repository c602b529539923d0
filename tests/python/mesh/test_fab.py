"""BaseFab_Real and FArrayBox (API.md 2.3): constructors, queries, views, exchange, lifetimes."""
import numpy as np
import pytest

from conftest import run_python


def box(amr, lo, hi):
    d = amr.Config.spacedim
    return amr.Box(amr.IntVect(list(lo)[:d]), amr.IntVect(list(hi)[:d]))


def test_empty_constructors(amr):
    for cls in (amr.BaseFab_Real, amr.FArrayBox):
        f = cls()
        assert not f.is_allocated() and f.n_bytes() == 0 and f.n_bytes_owned() == 0
        g = cls(amr.The_Pinned_Arena())
        assert not g.is_allocated()
        with pytest.raises(RuntimeError, match="no data"):
            f.array()
    assert issubclass(amr.FArrayBox, amr.BaseFab_Real)


def test_default_fab_box_is_amrex_default_box(amr):
    """AMReX_BaseFab.H: BaseFab() = default leaves `Box domain` default-constructed, and
    AMReX_Box.H BoxND() is smallend(1), bigend(0), cell-centred; nvar = 0.  loVect() /
    hiVect() point to that box's corners."""
    dim = amr.Config.spacedim
    one, zero = amr.IntVect([1] * dim), amr.IntVect([0] * dim)
    for f in (amr.FArrayBox(), amr.BaseFab_Real(), amr.FArrayBox(amr.The_Pinned_Arena())):
        b = f.box()
        assert b.small_end == one and b.big_end == zero and b.ix_type == amr.IndexType()
        assert f.small_end() == one and f.big_end() == zero
        assert f.lo_vect() == one and f.hi_vect() == zero
        assert f.length() == zero  # Box::length(): big - small + 1
        assert f.num_pts() == 0 and f.size() == 0 and f.n_comp() == 0
        assert b.numPts() == 0 and not b.ok
    h = amr.FArrayBox().to_host()
    assert h.box().small_end == one and h.box().big_end == zero


def test_clear_keeps_box_and_ncomp(amr):
    """AMReX_BaseFab.H BaseFab::clear() frees the data only (domain and nvar stay)."""
    b = box(amr, (1, 2, 3), (4, 6, 8))
    f = amr.FArrayBox(b, 3, amr.The_Arena())
    f.clear()
    assert not f.is_allocated() and f.box() == b and f.n_comp() == 3
    assert f.lo_vect() == b.small_end and f.hi_vect() == b.big_end


def test_allocating_constructor_and_queries(amr):
    dim = amr.Config.spacedim
    b = box(amr, (1, 2, 3), (4, 6, 8))
    f = amr.FArrayBox(b, 3, amr.The_Arena())
    lens = [4, 5, 6][:dim]
    npts = int(np.prod(lens))
    assert f.is_allocated()
    assert f.n_comp() == 3 and f.num_pts() == npts and f.size() == 3 * npts
    assert f.n_bytes() == 8 * 3 * npts and f.n_bytes_owned() == 8 * 3 * npts
    assert f.box() == b
    assert f.length() == amr.IntVect(lens)
    assert f.small_end() == amr.IntVect([1, 2, 3][:dim]) and f.big_end() == amr.IntVect([4, 6, 8][:dim])
    # boxfab returns the whole corner (pyAMReX returns only its first entry)
    assert f.lo_vect() == f.small_end() and f.hi_vect() == f.big_end()
    sub = box(amr, (1, 2, 3), (2, 2, 3))
    assert f.n_bytes(sub, 2) == 8 * 2 * [2, 2, 2][dim - 1]
    # arena None = default; ncomp and arena optional
    assert amr.BaseFab_Real(b, 1, None).n_comp() == 1
    assert amr.BaseFab_Real(b).n_comp() == 1


def test_constructor_errors(amr):
    b = box(amr, (0, 0, 0), (3, 3, 3))
    with pytest.raises(ValueError, match="ncomp"):
        amr.FArrayBox(b, 0, None)
    with pytest.raises(TypeError, match="incompatible|supported"):
        amr.FArrayBox("box", 1)
    with pytest.raises(TypeError):
        amr.FArrayBox(b, 1.5)
    with pytest.raises(OverflowError):
        amr.FArrayBox(b, 1 << 40)
    with pytest.raises(TypeError):
        amr.FArrayBox(b, 1, "arena")
    with pytest.raises(TypeError):
        amr.FArrayBox(b, ncomp=1)
    other = 2 if amr.Config.spacedim != 2 else 3
    import importlib
    o = importlib.import_module(f"boxfab.space{other}d")
    with pytest.raises(TypeError, match="dimension"):
        amr.FArrayBox(o.Box(o.IntVect(0), o.IntVect(1)), 1)
    with pytest.raises(TypeError, match="dimension"):
        amr.FArrayBox(b, 1, o.The_Arena())
    # the 5-argument form exists on FArrayBox only
    with pytest.raises(TypeError):
        amr.BaseFab_Real(b, 1, True, False, None)


def test_farraybox_five_argument_form(amr):
    b = box(amr, (0, 0, 0), (3, 3, 3))
    f = amr.FArrayBox(b, 2, True, False, amr.The_Arena())
    assert f.is_allocated() and f.n_comp() == 2
    g = amr.FArrayBox(b, 2, False, True)
    assert not g.is_allocated() and g.box() == b and g.n_comp() == 2
    with pytest.raises(TypeError):
        amr.FArrayBox(b, 2, 1, 0)


def test_array_views_layout_and_zero_copy(amr):
    dim = amr.Config.spacedim
    b = box(amr, (1, 2, 3), (4, 6, 8))
    f = amr.FArrayBox(b, 2)
    a = f.array()
    assert isinstance(a, amr.Array4_double)
    assert isinstance(f.const_array(), amr.Array4_double_const)
    x = a.to_numpy()  # [x, y, z, comp]
    shape = [4, 5, 6][:dim] + [1] * (3 - dim) + [2]
    assert x.shape == tuple(shape)
    x[...] = np.arange(x.size).reshape(x.shape, order="F")
    lo = [1, 2, 3][:dim] + [0] * (3 - dim)
    for (i, j, k, n) in [(0, 0, 0, 0), (3, 0, 0, 1), (1, 1, 0, 0)]:
        ii, jj, kk = i + lo[0], (j + lo[1]) if dim > 1 else 0, (k + lo[2]) if dim > 2 else 0
        if dim == 1:
            j = 0
        if dim <= 2:
            k = 0
        assert a[ii, jj, kk, n] == x[i, j, k, n]
    y = np.asarray(f)  # buffer protocol: (ncomp, nz, ny, nx)
    assert y.shape == tuple(reversed(shape)) or y.shape == (2,) + tuple(reversed(shape[:3]))
    assert np.shares_memory(x, y)
    assert np.array_equal(y, x.T)


def test_array_interface_matches_array4(amr):
    f = amr.FArrayBox(box(amr, (0, 0, 0), (2, 3, 4)), 2)
    d = f.__array_interface__
    e = f.array().__array_interface__
    assert d == e and d["version"] == 3 and d["typestr"] == "<f8"
    with pytest.raises(AttributeError, match="host"):
        f.__cuda_array_interface__
    assert not hasattr(f, "__cuda_array_interface__")
    assert not hasattr(amr.FArrayBox(), "__array_interface__")


def test_dlpack(amr):
    f = amr.FArrayBox(box(amr, (0, 0, 0), (2, 3, 4)), 2)
    f.array().to_numpy()[...] = 7.5
    assert f.__dlpack_device__() == (1, 0)
    x = np.from_dlpack(f)
    assert np.shares_memory(x, np.asarray(f)) and np.all(x == 7.5)
    cap = f.__dlpack__()
    assert "dltensor" in repr(cap)
    with pytest.raises(BufferError):
        amr.FArrayBox().__dlpack__()


def test_views_keep_data_alive_after_clear_and_del(amr):
    f = amr.FArrayBox(box(amr, (0, 0, 0), (7, 7, 7)), 1)
    a = f.array()
    x = a.to_numpy()
    y = np.asarray(f)
    z = np.from_dlpack(f)
    x[...] = 4.0
    f.clear()
    assert not f.is_allocated()
    del f
    import gc
    gc.collect()
    assert np.all(y == 4.0) and np.all(z == 4.0) and a[0, 0, 0] == 4.0
    # allocations in between must not overwrite memory the views still hold
    junk = [amr.FArrayBox(box(amr, (0, 0, 0), (7, 7, 7)), 1) for _ in range(4)]
    for j in junk:
        j.array().to_numpy()[...] = -1
    assert np.all(x == 4.0)


def test_resize_and_clear(amr):
    f = amr.FArrayBox(box(amr, (0, 0, 0), (3, 3, 3)), 1)
    old = f.array().to_numpy()
    old[...] = 2.0
    b2 = box(amr, (1, 1, 1), (2, 2, 2))
    assert f.resize(b2, 3, amr.The_Cpu_Arena()) is None
    assert f.box() == b2 and f.n_comp() == 3 and f.is_allocated()
    assert np.all(old == 2.0)
    f.resize(b2)
    assert f.n_comp() == 1
    with pytest.raises(ValueError):
        f.resize(b2, 0)
    with pytest.raises(TypeError):
        f.resize("b")
    assert f.clear() is None and not f.is_allocated()
    assert f.n_bytes() == 0


def test_alias_of_array4_keeps_it_alive(amr):
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)  # (n, z, y, x)
    dim = amr.Config.spacedim
    if dim < 3:
        x = x[:, :1]
    if dim < 2:
        x = x[:, :, :1]
    a = amr.Array4_double(x)
    f = amr.FArrayBox(a)
    assert f.n_comp() == 2 and f.n_bytes_owned() == 0
    assert f.box().small_end == amr.IntVect([0] * dim)
    assert np.shares_memory(np.asarray(f), x)
    f.array()[1, 0, 0, 1] = -3.0
    assert x[1, 0, 0, 1] == -3.0
    g = amr.BaseFab_Real(amr.Array4_double_const(x), amr.IndexType())
    assert g.n_comp() == 2
    del a, x
    import gc
    gc.collect()
    assert f.array()[1, 0, 0, 1] == -3.0  # the fab keeps the Array4 (and the NumPy array) alive


def test_alias_errors(amr):
    with pytest.raises(TypeError, match="double"):
        amr.FArrayBox(amr.Array4_int(np.zeros((2, 1, 1), dtype=np.int32)))
    ro = np.zeros((1, 1, 3))
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        amr.FArrayBox(amr.Array4_double_const(ro))
    with pytest.raises(ValueError, match="empty"):
        amr.FArrayBox(amr.Array4_double())
    with pytest.raises(ValueError, match="stride"):
        amr.FArrayBox(amr.Array4_double(np.zeros((1, 1, 6))[:, :, ::2]))
    if amr.Config.spacedim < 3:
        with pytest.raises(ValueError, match="length 1"):
            amr.FArrayBox(amr.Array4_double(np.zeros((2, 2, 2))))


def test_to_host_is_an_independent_copy(amr):
    f = amr.FArrayBox(box(amr, (0, 0, 0), (3, 2, 1)), 2)
    x = f.array().to_numpy()
    x[...] = np.random.default_rng(0).random(x.shape)
    h = f.to_host()
    assert isinstance(h, amr.BaseFab_Real) and type(h) is amr.FArrayBox
    assert h.box() == f.box() and h.n_comp() == 2
    y = h.array().to_numpy()
    assert np.array_equal(x, y) and not np.shares_memory(x, y)
    x[...] = 0
    assert not np.all(y == 0)
    e = amr.BaseFab_Real().to_host()
    assert not e.is_allocated()


def test_lifetime_scenarios_exit_cleanly():
    r = run_python("""
        import gc, numpy as np
        import boxfab.space3d as amr
        f = amr.FArrayBox(amr.Box(amr.IntVect(0), amr.IntVect(15)), 2)
        views = [f.array(), f.array().to_numpy(), np.asarray(f), np.from_dlpack(f), f.__dlpack__()]
        views[1][...] = 1.0
        f.clear(); del f; gc.collect()
        assert views[2].sum() == 2 * 16**3
        x = np.ones((1, 4, 4, 4)); g = amr.FArrayBox(amr.Array4_double(x)); del x; gc.collect()
        v = np.asarray(g); del g; gc.collect(); assert v.sum() == 64
        print("ok")
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"
