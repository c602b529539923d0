"""Lifetime scenarios of mesh data (issue 3, item 6), each in a fresh interpreter that must exit cleanly."""
import pytest

from conftest import run_python

PRELUDE = """
import gc, sys
import numpy as np
import boxfab.space3d as amr
amr.initialize([])
dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(15, 15, 15))
ba = amr.BoxArray(dom); ba.max_size(8)
dm = amr.DistributionMapping(ba)
def make():
    mf = amr.MultiFab(ba, dm, 2, 1)
    for mfi in mf:
        mf.array(mfi).to_numpy()[...] = mfi.index + 0.5
    return mf
"""


def check(code):
    r = run_python(PRELUDE + code)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "OK" in r.stdout, r.stdout + r.stderr


def test_views_survive_del():
    check("""
mf = make()
a4 = [mf.array(m) for m in mf]
views = [mf.array(m).to_numpy() for m in mf]
caps = [mf.array(m).__dlpack__() for m in mf]
del mf; gc.collect()
junk = [np.ones(10**5) for _ in range(50)]   # reuse freed memory if any was freed
for i, (a, v) in enumerate(zip(a4, views)):
    assert (v == i + 0.5).all() and (a.to_numpy() == i + 0.5).all()
arrs = [np.from_dlpack(type("C", (), {"__dlpack__": lambda s, c=c, **k: c,
                                      "__dlpack_device__": lambda s: (1, 0)})()) for c in caps]
for i, x in enumerate(arrs):
    assert (x == i + 0.5).all()
del a4, caps; gc.collect()
assert (views[3] == 3.5).all()
print("OK")
""")


def test_clear_with_live_view():
    check("""
mf = make()
views = [mf.array(m).to_numpy() for m in mf]
mf.clear(); gc.collect()
assert not mf.ok()
junk = [np.ones(10**5) for _ in range(50)]
for i, v in enumerate(views):
    assert (v == i + 0.5).all()
    v[...] = -1   # writing is safe too
try:
    for m in mf:
        mf.array(m)
    raise SystemExit("no error")
except RuntimeError:
    pass
print("OK")
""")


def test_use_after_finalize_raises():
    check("""
mf = make()
imf = amr.iMultiFab(ba, dm, 1, 0)
it = amr.MFIter(mf)
view = mf.array(it).to_numpy()
amr.finalize()
calls = [lambda: mf.n_comp, lambda: mf.nComp, lambda: mf.size, lambda: mf.box_array(), lambda: mf.dm(),
         lambda: mf.sum(), lambda: mf.min(), lambda: mf.set_val(1.0), lambda: mf.fill_boundary(),
         lambda: mf.copy(), lambda: mf.clear(), lambda: mf.ok(), lambda: list(mf), lambda: amr.MFIter(mf),
         lambda: mf.array(it), lambda: it.tilebox(), lambda: it.is_valid, lambda: next(it),
         lambda: amr.MultiFab.add(mf, mf, 0, 0, 1, 0), lambda: amr.copy_mfab(mf, mf, 0, 0, 1, 0),
         lambda: mf.n_grow_vect, lambda: mf.parallel_copy(mf), lambda: imf.sum(), lambda: imf.n_comp,
         lambda: mf.norm2(0), lambda: mf.plus(1.0)]
for i, c in enumerate(calls):
    try:
        c()
    except RuntimeError as e:
        assert "finalize" in str(e), (i, e)
    else:
        raise SystemExit(f"call {i} did not raise")
assert (view == 0.5).all()
repr(mf); repr(it)
del mf, it, imf; gc.collect()
print("OK")
""")


def test_mfiter_break_then_finalize():
    check("""
mf = make()
for mfi in mf:
    v = mf.array(mfi).to_numpy()
    break
mfi.finalize()
amr.finalize()
del mf, mfi; gc.collect()
assert (v == 0.5).all()
print("OK")
""")


def test_new_runtime_after_finalize():
    check("""
mf = make()
amr.finalize()
amr.initialize([])
mf2 = amr.MultiFab(ba, dm, 1, 0)
mf2.set_val(2.0)
assert mf2.sum(0) == 2.0 * 16 ** 3
try:
    mf.sum(0)
    raise SystemExit("no error")
except RuntimeError:
    pass
print("OK")
""")
