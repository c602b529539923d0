"""MFInfo, MFItInfo, FabFactory_FArrayBox (API.md 2.4)."""
import numpy as np
import pytest


def test_mfinfo_defaults(amr):
    i = amr.MFInfo()
    assert i.alloc is True
    assert i.arena is None  # None: the default arena
    assert isinstance(i.tags, amr.Vector_string) and len(i.tags) == 0


def test_mfinfo_setters_change_self_and_return_self(amr):
    """AMReX_FabArray.H: MFInfo& SetAlloc(bool) / SetArena(Arena*) / SetTag(...) change the
    object and `return *this;` (pyAMReX binds SetAlloc/SetArena directly)."""
    i = amr.MFInfo()
    p = amr.The_Pinned_Arena()
    j = i.set_arena(p)
    assert j is i and i.arena == p
    k = i.set_alloc(False)
    assert k is i and i.alloc is False and i.arena == p
    chained = amr.MFInfo().set_arena(amr.The_Cpu_Arena()).set_alloc(False)
    assert chained.arena == amr.The_Cpu_Arena() and chained.alloc is False
    # a failed setter leaves the object as it was
    with pytest.raises(TypeError):
        i.set_alloc("yes")
    with pytest.raises(TypeError):
        i.set_arena(None)
    assert i.alloc is False and i.arena == p


def test_mfinfo_set_tag_appends_in_place(amr):
    """C++ SetTag appends and returns *this (pyAMReX's binding returns None; boxfab returns
    the object as C++ so that it chains)."""
    i = amr.MFInfo()
    assert i.set_tag("a") is i
    i.set_tag("b").set_tag("c")
    assert list(i.tags) == ["a", "b", "c"]
    c = i.__copy__()  # copies keep the tags but do not share them
    c.set_tag("d")
    assert list(i.tags) == ["a", "b", "c"] and list(c.tags) == ["a", "b", "c", "d"]
    i.tags.append("e")  # tags is the object itself
    assert list(i.tags) == ["a", "b", "c", "e"]


def test_mfinfo_made_in_place_is_used_by_multifab(amr):
    dim = amr.Config.spacedim
    if not amr.initialized():
        amr.initialize([])
    ba = amr.BoxArray(amr.Box(amr.IntVect([0] * dim), amr.IntVect([3] * dim)))
    info = amr.MFInfo()
    info.set_alloc(False)  # the result is dropped: info itself must say alloc=False
    mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 0, info)
    assert mf.ok() is False  # no data
    with pytest.raises(RuntimeError, match="alloc=False"):
        for mfi in mf:
            mf.array(mfi)
    info2 = amr.MFInfo()
    info2.set_arena(amr.The_Pinned_Arena())
    mf2 = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 0, info2)
    assert mf2.arena == amr.The_Pinned_Arena()


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
    """AMReX_MFIter.H MFItInfo(): do_tiling{false}, dynamic{false}, tilesize zero,
    device_sync(!Gpu::inNoSyncRegion()), num_streams(Gpu::numGpuStreams()).  Without a GPU
    (AMReX_GpuControl.H: inNoSyncRegion() is constexpr true; AMReX_GpuDevice.cpp:
    max_gpu_streams = 1) that is device_sync False and one stream; with a GPU device_sync
    True and amrex.max_gpu_streams, 4 by default."""
    it = amr.MFItInfo()
    dim = amr.Config.spacedim
    assert it.do_tiling is False and it.dynamic is False
    assert it.device_sync is amr.Config.have_gpu
    assert it.num_streams == (4 if amr.Config.have_gpu else 1)
    assert it.tilesize == amr.IntVect([0] * dim)


def test_mfitinfo_defaults_without_gpu(amr):
    # the suite's CPU half runs with BOXFAB_DEVICE=cpu (conftest.py)
    if amr.Config.have_gpu:
        pytest.skip("a GPU is in use")
    it = amr.MFItInfo()
    assert it.device_sync is False and it.num_streams == 1


def test_mfitinfo_enable_tiling(amr):
    """C++ EnableTiling(ts = FabArrayBase::mfiter_tile_size) sets do_tiling and tilesize on
    the object and returns *this."""
    dim = amr.Config.spacedim
    it = amr.MFItInfo()
    t = it.enable_tiling(amr.IntVect([4] * dim))
    assert t is it and it.do_tiling
    assert it.tilesize == amr.IntVect([4] * dim)
    assert it.enable_tiling(ts=[2] * dim) is it and it.tilesize == amr.IntVect([2] * dim)
    # no argument: AMReX's default tile size (1024000, 8, 8) cut to the dimension
    d = amr.MFItInfo()
    d.enable_tiling()
    assert d.do_tiling and d.tilesize == amr.IntVect([1024000, 8, 8][:dim])
    for bad, exc in (([0] * dim, ValueError), ([1] * (dim + 1), (TypeError, ValueError)), ("4", TypeError)):
        e = amr.MFItInfo()
        with pytest.raises(exc):
            e.enable_tiling(bad)
        assert e.do_tiling is False and e.tilesize == amr.IntVect([0] * dim)  # unchanged


def test_enable_tiling_in_place_tiles_the_mfiter(amr):
    """The brief's case: `info.enable_tiling(ts)` alone must tile MFIter(mf, info)."""
    dim = amr.Config.spacedim
    if not amr.initialized():
        amr.initialize([])
    ba = amr.BoxArray(amr.Box(amr.IntVect([0] * dim), amr.IntVect([7] * dim)))
    mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 0)
    info = amr.MFItInfo()
    info.enable_tiling(amr.IntVect([4] * dim))
    n = 0
    mfi = amr.MFIter(mf, info)
    while mfi.is_valid:
        n += 1
        mfi._incr()
    mfi.finalize()
    assert n == 2 ** dim  # 8 cells per direction cut into tiles of 4
    info.tilesize[0] = 2  # the attribute is the object: the change reads through
    mfi = amr.MFIter(mf, info)
    assert mfi.length == 2 ** dim * 2
    mfi.finalize()


def test_mfitinfo_setters_change_self(amr):
    """AMReX_MFIter.H: SetDynamic / DisableDeviceSync / SetDeviceSync / SetNumStreams /
    UseDefaultStream change the object and return *this."""
    it = amr.MFItInfo()
    assert it.set_dynamic(True) is it and it.dynamic is True
    assert it.set_dynamic(f=False) is it and it.dynamic is False
    assert it.set_device_sync(True) is it and it.device_sync is True
    assert it.disable_device_sync() is it and it.device_sync is False
    assert it.set_device_sync(f=True).device_sync is True
    assert it.set_num_streams(4) is it and it.num_streams == 4
    assert it.use_default_stream() is it and it.num_streams == 1
    chained = amr.MFItInfo().enable_tiling().set_dynamic(True).set_num_streams(n=2)
    assert chained.do_tiling and chained.dynamic and chained.num_streams == 2
    c = chained.__copy__()
    assert c is not chained and c.num_streams == 2 and c.tilesize == chained.tilesize
    c.tilesize[0] = 3
    assert c.tilesize != chained.tilesize  # a copy has its own tilesize
    with pytest.raises(ValueError):
        it.set_num_streams(0)
    with pytest.raises(TypeError):
        it.set_dynamic(1)
    with pytest.raises(OverflowError):
        it.set_num_streams(1 << 40)
    assert it.num_streams == 1 and it.dynamic is False  # failed setters changed nothing


def test_mfitinfo_tilesize_reads_through(amr):
    """pyAMReX: def_readwrite("tilesize", &MFItInfo::tilesize) returns a reference to the
    member, and assignment copies the value in."""
    dim = amr.Config.spacedim
    it = amr.MFItInfo()
    t = it.tilesize
    assert t is it.tilesize
    t[0] = 6
    assert it.tilesize[0] == 6
    src = amr.IntVect([5] * dim)
    it.tilesize = src
    assert it.tilesize == amr.IntVect([5] * dim) and t == amr.IntVect([5] * dim)  # old handle sees it
    src[0] = 9
    assert it.tilesize[0] == 5  # the assigned object stays separate
    it.enable_tiling([3] * dim)
    assert t == amr.IntVect([3] * dim)
    del it
    assert t == amr.IntVect([3] * dim)  # the handle outlives the MFItInfo


def test_mfitinfo_tilesize_set_negative_through_the_handle(amr):
    """A negative tile size written through the handle bypasses the setter's check; the
    MFIter refuses it (ValueError) instead of cutting boxes into nonsense."""
    dim = amr.Config.spacedim
    if not amr.initialized():
        amr.initialize([])
    ba = amr.BoxArray(amr.Box(amr.IntVect([0] * dim), amr.IntVect([7] * dim)))
    mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 0)
    info = amr.MFItInfo().enable_tiling([4] * dim)
    info.tilesize[0] = -2
    with pytest.raises(ValueError):
        amr.MFIter(mf, info)


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
