"""MultiFab / iMultiFab construction, properties, array(mfi) views (API.md 2.6-2.8)."""
import gc
import sys

import numpy as np
import pytest

from mfhelp import ensure_init, dim_of, make_ba, make_mf, fabs, gather, fill_random, valid_part


def test_construct_and_properties(amr):
    mf, dom = make_mf(amr, ncomp=3, ngrow=2)
    d = dim_of(amr)
    assert mf.n_comp == 3 and mf.nComp == 3 and mf.num_comp == 3
    assert list(mf.n_grow_vect) == [2] * d
    assert mf.size == 2 ** d
    assert mf.is_all_cell_centered and not mf.is_all_nodal
    assert all(not mf.is_nodal(k) for k in range(d))
    assert mf.ok()
    assert mf.has_EB_fab_factory is False
    assert mf.box_array().size == 2 ** d
    assert len(mf.dm()) == 2 ** d


def test_ngrow_intvect(amr):
    ensure_init(amr)
    d = dim_of(amr)
    _, ba = make_ba(amr)
    ng = amr.IntVect(*range(1, d + 1))
    mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, ng)
    assert list(mf.n_grow_vect) == list(range(1, d + 1))
    mf2 = amr.MultiFab(bxs=ba, dm=amr.DistributionMapping(ba), ncomp=1, ngrow=0)
    assert list(mf2.n_grow_vect) == [0] * d


def test_undefined(amr):
    mf = amr.MultiFab()
    assert not mf.ok() and mf.size == 0 and mf.n_comp == 0
    with pytest.raises(RuntimeError, match="undefined"):
        mf.array(None)
    with pytest.raises(RuntimeError, match="undefined"):
        iter(mf)


def test_array_views_cover_fabbox(amr):
    mf, dom = make_mf(amr, ncomp=2, ngrow=1)
    d = dim_of(amr)
    n = 0
    for mfi in mf:
        a = mf.array(mfi)
        fb = mfi.fabbox()
        lb, ub = amr.lbound(a), amr.ubound(a)
        assert [lb.x, lb.y, lb.z][:d] == list(fb.small_end)
        assert [ub.x, ub.y, ub.z][:d] == list(fb.big_end)
        v = a.to_numpy()
        assert v.shape == tuple([fb.length()[k] if k < d else 1 for k in range(3)] + [2])
        ca = mf.const_array(mfi)
        assert type(ca).__name__ == "Array4_double_const"
        n += 1
    assert n == mf.size


def test_zero_copy_shares_memory(amr):
    mf, _ = make_mf(amr)
    for mfi in mf:
        a = mf.array(mfi).to_numpy()
        b = mf.array(mfi).to_numpy()
        assert np.shares_memory(a, b)
        a[...] = 7.0
        assert (b == 7.0).all()


def test_views_outlive_clear_and_del(amr):
    mf, dom = make_mf(amr)
    views = [mf.array(m).to_numpy() for m in mf]
    for i, v in enumerate(views):
        v[...] = i
    mf.clear()
    assert not mf.ok()
    gc.collect()
    assert all((v == i).all() for i, v in enumerate(views))
    with pytest.raises(RuntimeError, match="no data"):
        for m in mf:
            mf.array(m)
    del mf
    gc.collect()
    assert all((v == i).all() for i, v in enumerate(views))


def test_copy(amr):
    rng = np.random.default_rng(0)
    mf, dom = make_mf(amr, ncomp=2, ngrow=1)
    fill_random(mf, rng)
    c = mf.copy()
    assert type(c) is type(mf) and c.n_comp == 2 and list(c.n_grow_vect) == list(mf.n_grow_vect)
    for (_, _, _, _, a), (_, _, _, _, b) in zip(fabs(mf), fabs(c)):
        np.testing.assert_array_equal(a, b)
        assert not np.shares_memory(a, b)


def test_imultifab(amr):
    imf, dom = make_mf(amr, ncomp=1, ngrow=1, cls=amr.iMultiFab)
    for mfi in imf:
        a = imf.array(mfi)
        assert type(a).__name__ == "Array4_int"
        assert a.to_numpy().dtype == np.int32
    assert isinstance(imf, amr.FabArrayBase) and not isinstance(imf, amr.FabArray_FArrayBox)


def test_class_hierarchy(amr):
    assert issubclass(amr.MultiFab, amr.FabArray_FArrayBox)
    assert issubclass(amr.FabArray_FArrayBox, amr.FabArrayBase)
    with pytest.raises(TypeError, match="No constructor"):
        amr.FabArrayBase()
    with pytest.raises(TypeError, match="No constructor"):
        amr.FabArray_FArrayBox()


def test_iter_refcount_back_to_baseline(amr):
    mf, _ = make_mf(amr)
    base = sys.getrefcount(mf)
    for mfi in mf:
        mf.array(mfi)
    assert sys.getrefcount(mf) == base
    for mfi in mf:
        break
    del mfi
    assert sys.getrefcount(mf) == base
    with pytest.raises(ZeroDivisionError):
        for mfi in mf:
            1 / 0
    del mfi
    assert sys.getrefcount(mf) == base
    assert sum(1 for _ in mf) == mf.size
