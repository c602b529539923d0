"""MFInfo, MFItInfo, FabFactory_FArrayBox (API.md 2.4)."""
import numpy as np
import pytest


def test_mfinfo_defaults(amr):
    i = amr.MFInfo()
    assert i.alloc is True
    assert i.arena is None  # None: the default arena
    assert isinstance(i.tags, amr.Vector_string) and len(i.tags) == 0


def test_mfinfo_setters_return_modified_copies(amr):
    i = amr.MFInfo()
    p = amr.The_Pinned_Arena()
    j = i.set_arena(p)
    assert isinstance(j, amr.MFInfo) and j is not i
    assert j.arena == p and i.arena is None
    k = j.set_alloc(False)
    assert k.alloc is False and j.alloc is True and k.arena == p
    chained = amr.MFInfo().set_arena(amr.The_Cpu_Arena()).set_alloc(False)
    assert chained.arena == amr.The_Cpu_Arena() and chained.alloc is False


def test_mfinfo_set_tag_appends_in_place(amr):
    i = amr.MFInfo()
    assert i.set_tag("a") is None
    i.set_tag("b")
    assert list(i.tags) == ["a", "b"]
    c = i.set_alloc(True)  # copies keep the tags but do not share them
    c.set_tag("c")
    assert list(i.tags) == ["a", "b"] and list(c.tags) == ["a", "b", "c"]
    i.tags.append("d")  # tags is the object itself
    assert list(i.tags) == ["a", "b", "d"]


def test_mfinfo_attributes_are_writable_and_checked(amr):
    i = amr.MFInfo()
    i.alloc = False
    assert i.alloc is False
    i.arena = amr.The_Managed_Arena()
    assert i.arena == amr.The_Managed_Arena()
    i.arena = None
    assert i.arena is None
    i.tags = ["x", "y"]
    assert list(i.tags) == ["x", "y"]
    with pytest.raises(TypeError):
        i.alloc = 1
    with pytest.raises(TypeError):
        i.arena = "The_Arena"
    with pytest.raises(TypeError):
        i.tags = "abc"
    with pytest.raises(TypeError):
        i.set_arena(None)
    with pytest.raises(TypeError):
        i.set_alloc("yes")
    with pytest.raises(TypeError):
        i.set_tag(3)
    with pytest.raises(TypeError):
        amr.MFInfo(True)
    i.alloc = np.bool_(True)
    assert i.alloc is True


def test_mfitinfo_defaults(amr):
    it = amr.MFItInfo()
    dim = amr.Config.spacedim
    assert it.do_tiling is False and it.dynamic is False and it.device_sync is True
    assert it.num_streams == 1
    assert it.tilesize == amr.IntVect([0] * dim)


def test_mfitinfo_enable_tiling(amr):
    dim = amr.Config.spacedim
    it = amr.MFItInfo()
    t = it.enable_tiling(amr.IntVect([4] * dim))
    assert t is not it and t.do_tiling and not it.do_tiling
    assert t.tilesize == amr.IntVect([4] * dim)
    t2 = it.enable_tiling(ts=[2] * dim)
    assert t2.tilesize == amr.IntVect([2] * dim)
    # no argument: AMReX's default tile size (1024000, 8, 8) cut to the dimension
    d = it.enable_tiling()
    assert d.do_tiling and d.tilesize == amr.IntVect([1024000, 8, 8][:dim])
    with pytest.raises(ValueError):
        it.enable_tiling([0] * dim)
    with pytest.raises((TypeError, ValueError)):
        it.enable_tiling([1] * (dim + 1))
    with pytest.raises(TypeError):
        it.enable_tiling("4")


def test_mfitinfo_setters_return_copies(amr):
    it = amr.MFItInfo()
    assert it.set_dynamic(True).dynamic is True and it.dynamic is False
    assert it.set_dynamic(f=False).dynamic is False
    assert it.set_device_sync(False).device_sync is False and it.device_sync is True
    assert it.disable_device_sync().device_sync is False and it.device_sync is True
    s = it.set_num_streams(4)
    assert s.num_streams == 4 and it.num_streams == 1
    assert s.use_default_stream().num_streams == 1 and s.num_streams == 4
    chained = amr.MFItInfo().enable_tiling().set_dynamic(True).set_num_streams(n=2)
    assert chained.do_tiling and chained.dynamic and chained.num_streams == 2
    with pytest.raises(ValueError):
        it.set_num_streams(0)
    with pytest.raises(TypeError):
        it.set_dynamic(1)
    with pytest.raises(OverflowError):
        it.set_num_streams(1 << 40)


def test_mfitinfo_attributes_writable(amr):
    dim = amr.Config.spacedim
    it = amr.MFItInfo()
    it.do_tiling = True
    it.dynamic = True
    it.device_sync = False
    it.num_streams = 3
    it.tilesize = amr.IntVect([5] * dim)
    assert (it.do_tiling, it.dynamic, it.device_sync, it.num_streams) == (True, True, False, 3)
    assert it.tilesize == amr.IntVect([5] * dim)
    with pytest.raises(TypeError):
        it.do_tiling = "no"
    with pytest.raises(ValueError):
        it.num_streams = 0


def test_fab_factory_is_opaque(amr):
    f = amr.FabFactory_FArrayBox()
    assert "FabFactory" in repr(f)
    with pytest.raises(TypeError):
        amr.FabFactory_FArrayBox(1)
