"""pyAMReX 26's PODVector copies in: from_array / from_numpy / from_xp, copy_from (+ _numpy /
_podvector), to_device, the GpuContainers.H aliases, keep-alive of exports; against NumPy on the
same data, between every pair of allocators (and, marked gpu, CuPy device arrays)."""
import sys

import numpy as np
import pytest

import boxfab.space1d as amr1
import boxfab.space3d as amr

DT = {"real": np.float64, "int": np.int32, "uint64": np.uint64}
ALLOCS = ("pinned", "arena", "std", "device", "managed", "async", "polymorphic")


def host(v):
    return v.to_host().to_numpy(copy=True) if v.size() else np.empty(0, DT[type(v).__name__.split("_")[1]])


@pytest.mark.parametrize("src_alloc", ALLOCS)
@pytest.mark.parametrize("dst_alloc", ALLOCS)
def test_from_array_between_allocators(src_alloc, dst_alloc):
    vals = np.array([3, -1, 7, 2**20, 0], dtype=np.int32)
    src = getattr(amr, f"PODVector_int_{src_alloc}").from_numpy(vals)
    for kind in ("int", "real", "uint64"):
        cls = getattr(amr, f"PODVector_{kind}_{dst_alloc}")
        if kind == "uint64":
            src_u = getattr(amr, f"PODVector_uint64_{src_alloc}").from_numpy(vals.astype(np.uint64))
            dst = cls.from_array(src_u)
            assert np.array_equal(host(dst), vals.astype(np.uint64))
            continue
        dst = cls.from_array(src)
        assert type(dst) is cls
        assert np.array_equal(host(dst), vals.astype(DT[kind]))
        src[0] = 99  # independent of the source
        assert host(dst)[0] == 3
        src[0] = 3


def test_from_array_sources_and_casts():
    d = amr.DeviceVector_real  # PODVector_real_std without a GPU
    assert d is amr.PODVector_real_std and amr.HostVector_real is amr.PODVector_real_std
    assert amr.PODVector_int_default is amr.PODVector_int_std
    a = np.array([1.5, -2.0, 3.25])
    assert np.array_equal(host(d.from_array(a)), a)
    assert np.array_equal(host(d.from_array([1, 2])), [1.0, 2.0])
    assert np.array_equal(host(d.from_array((4.0,))), [4.0])
    assert np.array_equal(host(d.from_array(range(3))), [0.0, 1.0, 2.0])
    assert np.array_equal(host(d.from_array(np.arange(10)[::3])), [0.0, 3.0, 6.0, 9.0])
    assert np.array_equal(host(amr.PODVector_int_std.from_array(np.array([2.0, -3.0]))), [2, -3])  # exact casts
    assert np.array_equal(host(d.from_array(amr.Vector_Real([1.0, 2.0]))), [1.0, 2.0])
    assert d.from_array([]).size() == 0
    big = np.array([0, 2**63 + 5, 2**64 - 1], dtype=np.uint64)
    assert np.array_equal(host(amr.PODVector_uint64_pinned.from_array(big)), big)

    class DLPackOnly:
        def __init__(self, x):
            self.x = x

        def __dlpack__(self, **kw):
            return self.x.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.x.__dlpack_device__()

    assert np.array_equal(host(d.from_array(DLPackOnly(a))), a)

    class Vulkan(DLPackOnly):
        def __dlpack_device__(self):
            return (7, 0)

    assert np.array_equal(host(d.from_array(Vulkan(a))), a)  # NumPy >= 2.1 asks the producer for a host copy
    # a 1-D view of another space module's vector
    v1 = amr1.PODVector_real_std.from_numpy(a)
    assert np.array_equal(host(amr.PODVector_real_arena.from_array(v1)), a)


def test_from_array_refuses_bad_input():
    d = amr.DeviceVector_real
    with pytest.raises(TypeError):
        d.from_array(None)
    with pytest.raises(ValueError, match="1-D"):
        d.from_array(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="1-D"):
        d.from_array(np.float64(1.0))
    with pytest.raises(ValueError, match="copy"):
        d.from_array([1.0], copy="no")
    with pytest.raises(ValueError, match="copy"):
        d.from_array([1.0], copy=False)
    with pytest.raises(TypeError):
        d.from_array(["a", "b"])
    with pytest.raises(OverflowError):
        amr.PODVector_uint64_std.from_array([-1])
    # a cast that would change a value is refused (pyAMReX truncates as numpy.asarray)
    with pytest.raises(ValueError, match="not integers"):
        amr.PODVector_int_std.from_array([1.5])
    with pytest.raises(ValueError, match="not integers"):
        amr.PODVector_int_std.from_array(amr.PODVector_real_std.from_array([np.nan]))
    with pytest.raises(OverflowError):
        amr.PODVector_int_std.from_array([2**31])
    with pytest.raises(OverflowError):
        amr.PODVector_int_std.from_array(np.array([3e9]))
    with pytest.raises(TypeError):
        amr.DeviceVector_real.from_array([None, 1.0])
    dst = amr.PODVector_int_std.from_array([7, 7])
    with pytest.raises(ValueError):
        dst.copy_from([0.5])
    assert list(host(dst)) == [7, 7]


def test_from_array_copy_semantics():
    src = amr.PODVector_real_std.from_array([1.0, 2.0])
    assert amr.PODVector_real_std.from_array(src, copy=None) is src
    assert amr.PODVector_real_std.from_array(src, copy=False) is src
    assert amr.PODVector_real_std.from_array(src, copy=np.False_) is src
    c = amr.PODVector_real_std.from_array(src)
    assert c is not src and np.array_equal(host(c), [1.0, 2.0])
    assert amr.PODVector_real_pinned.from_array(src, copy=None) is not src
    with pytest.raises(ValueError):
        amr.PODVector_real_pinned.from_array(src, copy=False)


def test_copy_from_offsets_and_refusals():
    for alloc in ALLOCS:
        dst = getattr(amr, f"PODVector_int_{alloc}").from_array([0] * 6)
        dst.copy_from(np.array([1, 2], dtype=np.int64), offset=1)
        for i, sa in enumerate(ALLOCS):
            dst.copy_from(getattr(amr, f"PODVector_int_{sa}").from_array([i, i + 1]), offset=4)
            assert list(host(dst)) == [0, 1, 2, 0, i, i + 1]
        dst.copy_from(amr.PODVector_real_std.from_array([5.0]), 3)  # a cast
        before = list(host(dst))
        for bad in (([5, 5], 5), ([5], -1), ([1] * 7, 0)):
            with pytest.raises(IndexError):
                dst.copy_from(*bad)
        with pytest.raises(IndexError):
            dst.copy_from_numpy(np.array([5, 5], dtype=np.int32), 5)
        with pytest.raises(IndexError):
            dst.copy_from_podvector(amr.PODVector_int_std.from_array([5]), -1)
        with pytest.raises(TypeError):
            dst.copy_from_numpy([5], 0)
        with pytest.raises(TypeError):
            dst.copy_from_podvector(np.array([5]), 0)
        with pytest.raises(TypeError):
            dst.copy_from([1], offset=1.0)
        with pytest.raises(OverflowError):
            dst.copy_from([1], offset=2**64)
        assert list(host(dst)) == before == [0, 1, 2, 5, 6, 7]
        dst.copy_from([], offset=6)
        dst.copy_from(dst)  # onto itself: a no-op
        with pytest.raises(IndexError):
            dst.copy_from(dst, offset=1)
        assert list(host(dst)) == before


def test_to_device_and_from_numpy_xp():
    v = amr.PODVector_int_pinned.from_numpy(np.array([1, -2, 5], dtype=np.int32))
    d = v.to_device()
    assert type(d) is amr.DeviceVector_int and list(host(d)) == [1, -2, 5]
    v[0] = 9
    assert list(host(d)) == [1, -2, 5]
    assert amr.PODVector_int_std().to_device().empty()
    assert list(host(amr.DeviceVector_real.from_xp(np.arange(3.0)))) == [0.0, 1.0, 2.0]
    x = np.array([1.0, 2.0])
    y = amr.PODVector_real_arena.from_numpy(x)
    x[0] = 5.0
    assert y[0] == 1.0


def test_subclasses():
    class Mine(amr.PODVector_int_std):
        pass

    m = Mine.from_array([1, 2, 3])
    assert type(m) is Mine and list(m.to_numpy()) == [1, 2, 3]
    assert Mine.from_array(m, copy=None) is m
    assert list(host(amr.DeviceVector_real.from_array(m))) == [1.0, 2.0, 3.0]


def test_exports_keep_the_vector_alive():
    v = amr.PODVector_real_std.from_array([1.0, 2.0])
    before = sys.getrefcount(v)
    a = np.from_dlpack(v)
    b = v.to_numpy()
    assert sys.getrefcount(v) == before + 2
    a[0] = 4.0
    assert v[0] == 4.0 and b[0] == 4.0
    del v
    assert a[1] == 2.0 and b[1] == 2.0
    # the vector's own interface dicts do not hold it in a cycle
    w = amr.PODVector_real_std.from_array([1.0])
    before = sys.getrefcount(w)
    np.asarray(w)
    assert sys.getrefcount(w) == before


def test_polymorphic_vectors():
    v = amr.PODVector_real_polymorphic(4)
    assert v.size() == 4 and list(host(v)) == [0.0] * 4
    assert v.__dlpack_device__() == (1, 0)  # The_Arena without a GPU: host memory


# ---- on the GPU ------------------------------------------------------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("dst_alloc", ALLOCS)
def test_cupy_sources_into_every_allocator(dst_alloc):
    import cupy as cp

    vals = np.array([1, -2, 5, 8, 13], dtype=np.int32)
    cls = getattr(amr, f"PODVector_real_{dst_alloc}")
    assert np.array_equal(host(cls.from_array(cp.asarray(vals))), vals.astype(np.float64))  # cast on the device
    assert np.array_equal(host(cls.from_array(cp.asarray(vals, dtype=cp.float64)[::2])), vals[::2])
    direct = cp.asarray(vals, dtype=cp.float64)
    assert np.array_equal(host(cls.from_array(direct)), vals)  # no conversion: one copy
    dst = cls.from_array(np.zeros(7))
    dst.copy_from(direct, offset=2)
    assert np.array_equal(host(dst), np.concatenate([[0, 0], vals]))
    with pytest.raises(IndexError):
        dst.copy_from(direct, offset=3)
    with pytest.raises(ValueError):
        cls.from_array(cp.zeros((2, 3)))


@pytest.mark.gpu
def test_device_vectors_and_streams():
    import cupy as cp

    assert amr.DeviceVector_real is amr.PODVector_real_arena
    assert amr.NonManagedDeviceVector_real is amr.PODVector_real_device
    assert amr.HostVector_real is amr.PODVector_real_pinned
    empty = amr.NonManagedDeviceVector_real()
    assert empty.__dlpack_device__()[0] == 2
    empty.push_back(1.0)
    assert empty.__dlpack_device__()[0] == 2
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        x = cp.zeros(1 << 20, dtype=cp.float64)
        for _ in range(20):
            x += 1
        v = amr.NonManagedDeviceVector_real.from_array(x)
    assert (v.to_host().to_numpy(copy=True) == 20).all()
    w = v.to_device()
    assert type(w) is amr.DeviceVector_real
    v[0] = -1.0
    assert w[0] == 20.0
    assert cp.asnumpy(cp.from_dlpack(w))[0] == 20.0
    h = amr.HostVector_real.from_cupy(cp.arange(3.0))
    assert list(h.to_numpy()) == [0.0, 1.0, 2.0]


@pytest.mark.gpu
def test_pinned_to_cupy_is_a_device_snapshot():
    """CuPy cannot import pinned memory (kDLCUDAHost): to_cupy() stages a device copy (pyAMReX 26)."""
    import cupy as cp

    p = amr.HostVector_real.from_array([1.0, 2.0, 3.0])
    d = p.to_cupy()
    assert isinstance(d, cp.ndarray) and cp.asnumpy(d).tolist() == [1.0, 2.0, 3.0]
    p[0] = 42.0
    assert cp.asnumpy(d).tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError):
        amr.PODVector_real_std.from_array([1.0]).to_cupy()  # plain host memory: copy=True needed


@pytest.mark.gpu
def test_device_dlpack_copy_with_a_consumer_stream():
    """CuPy's from_dlpack(copy=True) passes its stream with copy=True: the copy is made and ordered
    (pyAMReX 26 raises BufferError here; docs/differences.md)."""
    import cupy as cp

    v = amr.NonManagedDeviceVector_real.from_array([1.0, 2.0])
    c = cp.from_dlpack(v, copy=True)
    v[0] = 5.0
    assert cp.asnumpy(c).tolist() == [1.0, 2.0]
    for s in (-1, 1, 2):
        v.__dlpack__(stream=s, copy=True)
