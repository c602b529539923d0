"""Particle arrays in GPU memory (device, managed, pinned, async): element access through the
backend's copies, CUDA array interface / DLPack / CuPy views, host copies, views across
reallocations.  Marked ``gpu``: skipped where boxfab uses no CUDA GPU (conftest.py)."""
import numpy as np
import pytest

import boxfab.space3d as amr

gpu = pytest.mark.gpu


def _cp():
    return pytest.importorskip("cupy")


@gpu
@pytest.mark.parametrize("alloc", ["device", "async", "managed", "arena"])
def test_podvector_gpu_memory(alloc):
    cp = _cp()
    v = getattr(amr, f"PODVector_real_{alloc}")(4)
    for i in range(4):
        v[i] = 1.5 * i                            # host -> GPU through the backend's copy
    assert [v[i] for i in range(4)] == [0.0, 1.5, 3.0, 4.5]
    v.resize(8, 7.0)                             # fill of GPU memory
    v.push_back(9.0)
    np.testing.assert_array_equal(v.to_numpy(copy=True), [0, 1.5, 3, 4.5, 7, 7, 7, 7, 9])
    cai = v.__cuda_array_interface__
    assert cai["shape"] == (9,) and cai["version"] == 3 and cai["typestr"] == "<f8"
    x = v.to_cupy()
    assert x.data.ptr == cai["data"][0]
    x[0] = -1.0
    cp.cuda.Device().synchronize()
    assert v[0] == -1.0
    y = cp.from_dlpack(v)
    assert y.data.ptr == x.data.ptr
    assert v.__dlpack_device__()[0] in (2, 13)   # kDLCUDA, kDLCUDAManaged
    h = v.to_host()
    assert type(h).__name__ == "PODVector_real_pinned" and h[8] == 9.0
    if alloc != "managed":
        with pytest.raises(ValueError, match="device memory"):
            v.to_numpy()
        with pytest.raises(AttributeError):
            v.__array_interface__
        with pytest.raises(BufferError):
            memoryview(v)
    else:
        np.testing.assert_array_equal(v.to_numpy()[:2], [-1.0, 1.5])
    # a reallocation: the CuPy view keeps the old storage
    old = x.copy()
    for i in range(10000):
        v.push_back(1.0)
    assert v.__cuda_array_interface__["data"][0] != x.data.ptr
    cp.testing.assert_array_equal(x, old)


@gpu
def test_pinned_podvector_host_and_dlpack():
    v = amr.PODVector_int_pinned(3)
    v[1] = 5
    a = v.to_numpy()
    assert a[1] == 5 and np.shares_memory(a, v.to_numpy())
    assert v.__dlpack_device__() == (3, 0)       # kDLCUDAHost
    with pytest.raises(AttributeError):
        v.__cuda_array_interface__


@gpu
@pytest.mark.parametrize("alloc", ["device", "managed", "default"])
def test_tile_in_gpu_memory(alloc):
    cp = _cp()
    pt = getattr(amr, f"ParticleTile_pureSoA_8_0_{alloc}")()
    for k in range(5):
        pt.push_back(amr.Particle_8_0(0, 0, 0, *[k + 0.5 * c for c in range(8)]))
    assert pt[3].get_rdata() == [3 + 0.5 * c for c in range(8)]
    pt[0] = pt[4]
    t = pt.get_struct_of_arrays().to_cupy()
    assert list(t.real) == ["x", "y", "z", "a", "b", "c", "d", "e"]
    cp.testing.assert_array_equal(t.real["a"], cp.array([4 + 1.5, 1 + 1.5, 2 + 1.5, 3 + 1.5, 4 + 1.5]))
    c = pt.get_struct_of_arrays().to_numpy(copy=True)
    np.testing.assert_array_equal(c.real["x"], [4, 1, 2, 3, 4])
    legacy = getattr(amr, f"ParticleTile_2_1_3_1_{alloc}")()
    legacy.push_back(amr.Particle_5_2(1, 2, 3, 4, 5, 6, 7, 8, 9, 10))
    aos = legacy.get_array_of_structs()
    assert aos[0].get_rdata() == [4.0, 5.0] and aos[0].z == 3.0
    aos[0].x = -2.0                             # a reference: written through the backend
    assert legacy[0].x == -2.0
    s = aos.to_numpy(copy=True)
    assert s["x"][0] == -2.0 and s["idata_0"][0] == 9
