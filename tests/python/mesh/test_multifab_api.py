"""Every member of API.md 2.5-2.9 exists with its kind (method / prop / static), names of keywords, hiding rule."""
import inspect
import weakref

import pytest

from mfhelp import make_mf

MEMBERS = {
    "MFIter": {"_incr": "method", "finalize": "method", "is_valid": "prop", "index": "prop", "length": "prop",
               "tilebox": "method", "validbox": "method", "fabbox": "method", "nodaltilebox": "method",
               "growntilebox": "method", "grownnodaltilebox": "method", "__next__": "method"},
    "FabArrayBase": {"__iter__": "method", "is_all_cell_centered": "prop", "is_all_nodal": "prop",
                     "is_nodal": "method", "nComp": "prop", "num_comp": "prop", "size": "prop",
                     "n_grow_vect": "prop"},
    "FabArray_FArrayBox": {"clear": "method", "ok": "method", "arena": "prop", "factory": "prop",
                           "has_EB_fab_factory": "prop", "array": "method", "const_array": "method",
                           "set_val": "method", "abs": "method", "sum": "method", "saxpy": "static",
                           "xpay": "static", "lin_comb": "static", "fill_boundary": "method",
                           "sum_boundary": "method", "override_sync": "method"},
    "MultiFab": {"__iter__": "method", "box_array": "method", "dm": "method", "n_comp": "prop",
                 "n_grow_vect": "prop", "min": "method", "max": "method", "minIndex": "method",
                 "maxIndex": "method", "sum": "method", "sum_unique": "method", "norm0": "method",
                 "norminf": "method", "norm1": "method", "norm2": "method", "plus": "method", "minus": "method",
                 "divi": "method", "mult": "method", "invert": "method", "negate": "method",
                 "contains_nan": "method", "contains_inf": "method", "average_sync": "method",
                 "weighted_sync": "method", "add": "static", "subtract": "static", "multiply": "static",
                 "divide": "static", "swap": "static", "saxpy": "static", "xpay": "static", "lin_comb": "static",
                 "add_product": "static", "dot": "static", "initialize": "static", "finalize": "static",
                 "copy": "method", "parallel_copy": "method", "nComp": "prop", "num_comp": "prop",
                 "size": "prop", "clear": "method", "array": "method", "set_val": "method",
                 "fill_boundary": "method"},
}


def kind_ok(cls, name, kind):
    raw = inspect.getattr_static(cls, name)
    if kind == "prop":
        return inspect.isdatadescriptor(raw) and not callable(raw)
    if kind == "static":
        # AMReX's statics (MultiFab.add(dst, src, ...)) are also bound on an instance (pyAMReX 26:
        # dst.add(src, ...)); test_static_and_bound_forms checks that both spellings work
        return isinstance(raw, staticmethod) or type(raw).__name__ == "_hybridmethod"
    return callable(raw) and not isinstance(raw, (staticmethod, classmethod))


@pytest.mark.parametrize("cls_name", list(MEMBERS))
def test_kinds(amr, cls_name):
    cls = getattr(amr, cls_name)
    for name, kind in MEMBERS[cls_name].items():
        assert hasattr(cls, name), f"{cls_name}.{name} missing"
        assert kind_ok(cls, name, kind), f"{cls_name}.{name} should be a {kind}"
    for f in ("copy_mfab", "dtoh_memcpy", "htod_memcpy"):
        assert callable(getattr(amr, f))


def test_hiding_rule(amr):
    """MultiFab.sum/saxpy/xpay/lin_comb hide FabArray's overloads."""
    d = int(amr.__name__[-2])
    mf, _ = make_mf(amr, ncomp=1, ngrow=1)
    mf.set_val(1.0)
    with pytest.raises(TypeError):
        mf.sum(0, amr.IntVect(*([1] * d)), False)      # FabArray's signature is hidden
    assert amr.FabArray_FArrayBox.sum(mf, 0, amr.IntVect(*([1] * d)), False) == 2 ** d * 10.0 ** d  # each fab grown by 1
    assert mf.sum(0) == 16.0 ** d
    assert amr.MultiFab.lin_comb is not amr.FabArray_FArrayBox.lin_comb


def test_grownnodaltilebox_keyword_is_int(amr):
    mf, _ = make_mf(amr, ncomp=1, ngrow=1)
    for mfi in mf:
        assert mfi.grownnodaltilebox(int=-1, ng=0) == mfi.nodaltilebox(-1)
        with pytest.raises(TypeError):
            mfi.grownnodaltilebox(dir=0)
        break


def test_weakref_and_repr(amr):
    mf, _ = make_mf(amr, ncomp=2, ngrow=1)
    r = weakref.ref(mf)
    assert r() is mf
    assert "MultiFab" in repr(mf) and "2 components" in repr(mf)
    assert "undefined" in repr(amr.MultiFab())
    it = amr.MFIter(mf)
    assert "MFIter" in repr(it)


def test_arena_and_factory(amr):
    mf, _ = make_mf(amr)
    if hasattr(amr, "Arena"):
        assert isinstance(mf.arena, amr.Arena)
    else:
        assert mf.arena is None
    f = mf.factory
    if hasattr(amr, "FabFactory_FArrayBox"):
        assert isinstance(f, amr.FabFactory_FArrayBox)
        mf2 = amr.MultiFab(mf.box_array(), mf.dm(), 1, 0, amr.MFInfo(), f)
        assert mf2.ok()
    with pytest.raises(TypeError):
        amr.MultiFab(mf.box_array(), mf.dm(), 1, 0, 3)
    with pytest.raises(TypeError, match="incompatible"):
        amr.MultiFab(mf.box_array(), mf.dm(), 1)
    with pytest.raises(TypeError, match="incompatible"):
        amr.MultiFab(3)
    with pytest.raises(ValueError):
        amr.MultiFab(mf.box_array(), mf.dm(), 0, 0)
    with pytest.raises(ValueError):
        amr.MultiFab(mf.box_array(), mf.dm(), 1, -1)
    with pytest.raises(ValueError):
        amr.MultiFab(mf.box_array(), amr.DistributionMapping(), 1, 0)
