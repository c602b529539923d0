"""MFIter (API.md 2.5): iteration protocol, tiling, boxes, finalize, early exits."""
import gc
import sys

import numpy as np
import pytest

from mfhelp import dim_of, make_mf, ensure_init


def ncells(b):
    return int(np.prod(list(b.length())))


def test_iteration_visits_every_box_once(amr):
    mf, _ = make_mf(amr)
    idx = [mfi.index for mfi in mf]
    assert idx == list(range(mf.size))
    it = iter(mf)
    assert type(it) is amr.MFIter
    # pyAMReX 26: an MFIter is its own iterator (`for mfi in amr.MFIter(mf, info):`)
    assert iter(it) is it


def test_next_protocol(amr):
    mf, _ = make_mf(amr)
    it = amr.MFIter(mf)
    assert it.first_or_done and it.is_valid and it.length == mf.size
    assert next(it) is it and it.index == 0 and not it.first_or_done
    assert next(it).index == 1
    rest = [m.index for m in iter(lambda: next(it, None), None)]
    assert rest == list(range(2, mf.size))
    assert not it.is_valid
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(RuntimeError, match="finalized"):
        it.tilebox()
    with pytest.raises(RuntimeError):
        it.index
    with pytest.raises(RuntimeError):
        mf.array(it)


def test_manual_loop_and_finalize(amr):
    mf, _ = make_mf(amr)
    mfi = amr.MFIter(mf)
    seen = []
    while mfi.is_valid:
        seen.append(mfi.index)
        mfi._incr()
    with pytest.raises(RuntimeError, match="past its last tile"):
        mfi.validbox()
    mfi.finalize()
    mfi.finalize()
    assert seen == list(range(mf.size))
    with pytest.raises(RuntimeError):
        mfi._incr()
    with pytest.raises(RuntimeError):
        mfi.length


def test_boxes(amr):
    d = dim_of(amr)
    mf, _ = make_mf(amr, ngrow=2)
    ba = mf.box_array()
    for mfi in mf:
        vb = mfi.validbox()
        assert vb == ba[mfi.index]
        assert mfi.tilebox() == vb
        assert list(mfi.fabbox().small_end) == [x - 2 for x in vb.small_end]
        assert mfi.growntilebox() == mfi.fabbox()
        assert mfi.growntilebox(-1000000) == mfi.fabbox()
        assert list(mfi.growntilebox(1).small_end) == [x - 1 for x in vb.small_end]
        assert list(mfi.growntilebox(amr.IntVect(*([1] * d))).big_end) == [x + 1 for x in vb.big_end]
        nb = mfi.nodaltilebox()
        assert list(nb.big_end) == [x + 1 for x in vb.big_end] and nb.ix_type.node_centered()
        nb0 = mfi.nodaltilebox(0)
        assert list(nb0.big_end)[0] == list(vb.big_end)[0] + 1
        assert list(nb0.big_end)[1:] == list(vb.big_end)[1:]
        assert mfi.grownnodaltilebox() == mfi.nodaltilebox().grow(2)
        g = mfi.grownnodaltilebox(int=0, ng=1)
        assert list(g.small_end) == [x - 1 for x in vb.small_end]
        assert mfi.grownnodaltilebox(0, amr.IntVect(*([1] * d))) == g
        t = mfi.tilebox(amr.IntVect(*([1] * d)))
        assert t == mfi.nodaltilebox(-1)
        t = mfi.tilebox(amr.IntVect(*([0] * d)), amr.IntVect(*([1] * d)))
        assert t == mfi.growntilebox(1)
        with pytest.raises(IndexError):
            mfi.nodaltilebox(d)


@pytest.mark.parametrize("tiling", [False, True])
def test_tiles_partition_boxes(amr, tiling):
    d = dim_of(amr)
    mf, _ = make_mf(amr, n=32, max_size=16)
    counts = {}
    ntiles = 0
    it = amr.MFIter(mf, tiling)
    for mfi in iter(lambda: next(it, None), None):
        tb = mfi.tilebox()
        vb = mfi.validbox()
        assert all(vb.small_end[k] <= tb.small_end[k] <= tb.big_end[k] <= vb.big_end[k] for k in range(d))
        counts[mfi.index] = counts.get(mfi.index, 0) + ncells(tb)
        ntiles += 1
    assert all(c == 16 ** d for c in counts.values()) and len(counts) == mf.size
    if tiling and d > 1:
        # AMReX's default tile size (1024000, 8, 8): 16 -> 2 tiles in y (and z)
        assert ntiles == mf.size * 2 ** (d - 1)
    else:
        assert ntiles == mf.size


def test_tiling_with_mfitinfo_if_available(amr):
    if not hasattr(amr, "MFItInfo"):
        pytest.skip("MFItInfo comes with the fab family")
    d = dim_of(amr)
    mf, _ = make_mf(amr, n=16, max_size=16)
    info = amr.MFItInfo().enable_tiling(amr.IntVect(*([4] * d)))
    tiles = [ncells(m.tilebox()) for m in iter(lambda it=amr.MFIter(mf, info): next(it, None), None)]
    assert len(tiles) == 4 ** d and sum(tiles) == 16 ** d


def test_early_break_and_exception_leak_nothing(amr):
    mf, _ = make_mf(amr)
    base = sys.getrefcount(mf)
    for _ in range(3):
        for mfi in mf:
            mf.array(mfi).to_numpy()
            break
    del mfi
    assert sys.getrefcount(mf) == base

    def boom():
        for mfi in mf:
            raise KeyError("x")
    with pytest.raises(KeyError):
        boom()
    gc.collect()
    assert sys.getrefcount(mf) == base
    assert [m.index for m in mf] == list(range(mf.size))
    assert sys.getrefcount(mf) == base


def test_keeps_multifab_alive(amr):
    mf, _ = make_mf(amr)
    it = amr.MFIter(mf)
    del mf
    gc.collect()
    assert it.is_valid and it.validbox() is not None


def test_dynamic_attributes_and_cycles(amr):
    mf, _ = make_mf(amr)
    it = amr.MFIter(mf)
    it.foo = 3
    it.me = it
    assert it.__dict__["foo"] == 3
    import weakref
    r = weakref.ref(mf)
    del it, mf
    gc.collect()
    assert r() is None


def test_array_with_iterator_of_another_multifab(amr):
    a, _ = make_mf(amr, ncomp=1, ngrow=1)
    b, _ = make_mf(amr, ncomp=2, ngrow=0)
    for mfi in a:
        va = a.array(mfi).to_numpy()
        vb = b.array(mfi).to_numpy()
        assert va.shape[-1] == 1 and vb.shape[-1] == 2
    _, ba2 = __import__("mfhelp").make_ba(amr, n=16, max_size=4)
    c = amr.MultiFab(ba2, amr.DistributionMapping(ba2), 1, 0)
    with pytest.raises(ValueError, match="different BoxArray"):
        for mfi in a:
            c.array(mfi)


def test_bad_constructor_args(amr):
    mf, _ = make_mf(amr)
    with pytest.raises(TypeError):
        amr.MFIter()
    with pytest.raises(TypeError):
        amr.MFIter(3)
    with pytest.raises(TypeError):
        amr.MFIter(mf, 3)
    with pytest.raises(TypeError):
        amr.MFIter(mf, True, 3)
    with pytest.raises(TypeError):
        mf.array(3)
