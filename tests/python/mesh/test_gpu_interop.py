"""boxfab's GPU data with CuPy, Numba, PyTorch and JAX (issue 4): zero-copy views in both
directions through __cuda_array_interface__ v3 and DLPack, stream semantics, MultiFab
operations on the GPU against the same operations on host memory, lifetimes.

Tests marked ``gpu`` run only where boxfab uses a CUDA GPU and CuPy sees it (conftest skips
them elsewhere); each library's tests skip when that library is not installed.  A few CPU-side
tests at the top run everywhere.

Ordering rule the tests follow (and users must): boxfab works on its own non-blocking stream.
A consumer that imports a view through CAI/DLPack is synchronized with boxfab's pending work
(CuPy and Numba honour the CAI ``stream``; DLPack makes the consumer's stream wait).  Work a
*library* queues on its own stream is not seen by boxfab's later kernels unless that stream is
synchronized first (``cp.cuda.Device().synchronize()``, ``torch.cuda.synchronize()``,
``numba.cuda.synchronize()``), exactly as with two CUDA libraries in C.
"""
import os

import numpy as np
import pytest

from conftest import run_python
from mfhelp import ensure_init, make_ba

gpu = pytest.mark.gpu


# ---- CPU side (runs everywhere) ----------------------------------------------------------------
def test_cai_raises_attributeerror_on_host_memory(amr):
    ensure_init(amr)
    a = amr.Array4_double(np.zeros((2, 3, 4)))
    with pytest.raises(AttributeError, match="host memory"):
        a.__cuda_array_interface__
    dom, ba = make_ba(amr, 8, 4)
    mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 0, amr.MFInfo().set_arena(amr.The_Cpu_Arena()))
    for mfi in mf:
        v = mf.array(mfi)
        assert v.__dlpack_device__() == (1, 0)
        with pytest.raises(AttributeError, match="host memory"):
            v.__cuda_array_interface__
        assert not hasattr(v, "__cuda_array_interface__")
        assert "__array_interface__" in dir(v) and v.__array_interface__["version"] == 3


def test_python_default_does_not_force_cpu():
    code = """
import os
os.environ.pop("BOXFAB_DEVICE", None)
import boxfab, boxfab.space3d as amr
print("ENV", os.environ.get("BOXFAB_DEVICE"))
print("GPU", amr.Config.have_gpu, amr.Config.gpu_backend)
"""
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    assert "ENV None" in r.stdout, r.stdout  # importing boxfab no longer sets BOXFAB_DEVICE=cpu
    gpu_line = [ln for ln in r.stdout.splitlines() if ln.startswith("GPU")][0]
    ok, _ = __import__("conftest").gpu_usable()
    have = gpu_line.split()[1] == "True"
    if have:
        assert gpu_line.split()[2] == "CUDA"
    else:
        assert gpu_line.split()[2] == "None"
    if ok:
        assert have  # a GPU is present: the default uses it
    # BOXFAB_DEVICE=cpu still forces the CPU
    r = run_python('import os\nos.environ["BOXFAB_DEVICE"] = "cpu"\nimport boxfab.space3d as amr\n'
                   'print("GPU", amr.Config.have_gpu, amr.The_Arena().is_device)')
    assert r.returncode == 0, r.stderr
    assert "GPU False False" in r.stdout, r.stdout


def test_dlpack_stream_rules_on_host(amr):
    a = amr.Array4_double(np.zeros((2, 3, 4)))
    a.__dlpack__(stream=None)
    for s in (1, 2, -1, 12345):
        with pytest.raises(ValueError, match="stream must be None"):
            a.__dlpack__(stream=s)


# ---- helpers for the GPU tests --------------------------------------------------------------------
def cupy():
    return pytest.importorskip("cupy")


def sync():
    import cupy as cp
    cp.cuda.Device().synchronize()


def device_id():
    import cupy as cp
    return cp.cuda.Device().id


def layout(amr, n=16, max_size=8):
    ensure_init(amr)
    dom, ba = make_ba(amr, n, max_size)
    return dom, ba, amr.DistributionMapping(ba)


def cpu_info(amr):
    return amr.MFInfo().set_arena(amr.The_Cpu_Arena())


def gpu_cpu_pair(amr, ba, dm, ncomp=2, ngrow=1, seed=0):
    """The same random data in a device MultiFab (The_Arena) and a host one (The_Cpu_Arena)."""
    cp = cupy()
    g = amr.MultiFab(ba, dm, ncomp, ngrow)
    c = amr.MultiFab(ba, dm, ncomp, ngrow, cpu_info(amr))
    rng = np.random.default_rng(seed)
    for mfi in c:
        h = c.array(mfi).to_numpy()
        h[...] = rng.standard_normal(h.shape)
        g.array(mfi).to_cupy()[...] = cp.asarray(h)
    sync()  # CuPy wrote on its stream: let it finish before boxfab's kernels
    return g, c


def assert_same(g, c):
    """Bitwise equality of every fab (ghost cells included)."""
    for mfi in c:
        a = g.array(mfi).to_cupy().get()
        b = c.array(mfi).to_numpy()
        assert a.shape == b.shape
        assert np.array_equal(a, b), np.abs(a - b).max()


def one_box(amr, n, ncomp=1, arena=None):
    ensure_init(amr)
    d = int(amr.__name__[-2])
    dom = amr.Box(amr.IntVect(*([0] * d)), amr.IntVect(*([n - 1] * d)))
    ba = amr.BoxArray(dom)
    dm = amr.DistributionMapping(ba)
    info = amr.MFInfo().set_arena(arena) if arena is not None else amr.MFInfo()
    mf = amr.MultiFab(ba, dm, ncomp, 0, info)
    mfi = next(iter(mf))
    a4 = mf.array(mfi)
    mfi.finalize()
    return mf, a4


class CAIOnly:
    """arr seen through its __cuda_array_interface__ alone (no DLPack), with `fields` replaced."""

    def __init__(self, arr, **fields):
        self.arr, self.fields = arr, fields

    @property
    def __cuda_array_interface__(self):
        return dict(self.arr.__cuda_array_interface__, **self.fields)


# ---- exports: CAI, DLPack device, protocols refused ------------------------------------------------
@gpu
def test_cai_v3_fields_on_device(amr3):
    cupy()
    mf, a4 = one_box(amr3, 8, ncomp=2)
    mf.set_val(1.0)
    for _ in mf:  # the end of an MFIter loop synchronizes boxfab's stream
        pass
    cai = a4.__cuda_array_interface__
    assert set(cai) >= {"shape", "typestr", "data", "strides", "version", "stream"}
    assert cai["shape"] == (2, 8, 8, 8)
    assert cai["strides"] == (8 * 512, 8 * 64, 8 * 8, 8)
    assert cai["typestr"] == "<f8" and cai["version"] == 3
    ptr, ro = cai["data"]
    assert ptr != 0 and ro is False
    assert cai["stream"] is None  # nothing pending after the synchronization
    c = amr3.Array4_double_const(a4)
    assert c.__cuda_array_interface__["data"] == (ptr, False)  # readonly False (PyTorch refuses True)
    # a component sub-view starts one component further; a zero-size array has pointer 0
    z = amr3.Array4_double(a4, 1, 1)
    assert z.__cuda_array_interface__["data"][0] == ptr + 8 * 512
    import cupy as cp
    e = amr3.Array4_double(cp.empty((0, 4, 4)))
    assert e.size == 0 and e.__cuda_array_interface__["data"] == (0, False)
    # device memory: no host protocols
    with pytest.raises(AttributeError, match="device memory"):
        a4.__array_interface__
    with pytest.raises(BufferError, match="device memory"):
        memoryview(a4)
    with pytest.raises(ValueError, match="device memory"):
        a4.to_numpy()
    assert a4.__dlpack_device__() == (2, device_id())


@gpu
def test_cai_stream_names_boxfab_stream_while_pending(amr3):
    cp = cupy()
    mf, a4 = one_box(amr3, 256)  # 128 MiB: ten set_val take far longer than reading the dict
    seen = []
    for attempt in range(5):
        for i in range(10):
            mf.set_val(float(i))
        s = a4.__cuda_array_interface__["stream"]
        seen.append(s)
        sync()
        for _ in mf:
            pass
    ints = [s for s in seen if s is not None]
    assert ints, seen
    assert all(isinstance(s, int) and s not in (0, 1, 2) for s in ints)  # boxfab's own non-blocking stream
    assert len(set(ints)) == 1
    assert a4.__cuda_array_interface__["stream"] is None


@gpu
def test_stream_semantics_cupy_reads_on_other_stream(amr3):
    cp = cupy()
    mf, a4 = one_box(amr3, 256)
    n = 256 ** 3
    for trial in range(3):
        s = cp.cuda.Stream(non_blocking=True)
        with s:
            for i in range(10):
                mf.set_val(float(i + trial))
            x = cp.asarray(a4)  # CuPy synchronizes on the CAI stream
            total = x.sum()
            assert float(total.get()) == float(9 + trial) * n
        # DLPack: the consumer's stream waits for boxfab's pending work
        s2 = cp.cuda.Stream(non_blocking=True)
        for i in range(10):
            mf.set_val(float(100 + i + trial))
        with s2:
            y = cp.from_dlpack(a4)  # CuPy passes stream=s2.ptr
            m = y.min()
            assert float(m.get()) == float(109 + trial)
        assert y.data.ptr == a4.__cuda_array_interface__["data"][0]


@gpu
def test_dlpack_stream_argument_forms(amr3):
    cupy()
    mf, a4 = one_box(amr3, 8)
    mf.set_val(2.0)
    import cupy as cp
    s = cp.cuda.Stream(non_blocking=True)
    for stream in (None, 1, 2, -1, s.ptr):
        cap = a4.__dlpack__(stream=stream)
        assert type(cap).__name__ == "PyCapsule"
    cap = a4.__dlpack__(stream=s.ptr, max_version=(1, 0))
    assert "dltensor_versioned" in repr(cap)
    with pytest.raises(ValueError, match="0"):
        a4.__dlpack__(stream=0)
    with pytest.raises(ValueError, match="invalid CUDA stream"):
        a4.__dlpack__(stream=-2)
    with pytest.raises(TypeError, match="stream"):
        a4.__dlpack__(stream="default")
    with pytest.raises(BufferError, match="cannot export"):
        a4.__dlpack__(dl_device=(2, device_id() + 1))
    # dl_device=(CPU): a copy for device memory, refused with copy=False
    with pytest.raises(BufferError, match="copy"):
        a4.__dlpack__(dl_device=(1, 0), copy=False)
    # NumPy takes CPU tensors only: without a device it refuses a CUDA tensor,
    # with device="cpu" it asks boxfab (dl_device=(1, 0)) for a host copy
    with pytest.raises(BufferError):
        np.from_dlpack(a4)
    h = np.from_dlpack(a4, device="cpu", copy=True)
    assert h.shape == (1, 8, 8, 8) and (h == 2.0).all()
    with pytest.raises(BufferError):
        np.from_dlpack(a4, device="cpu", copy=False)


@gpu
def test_dlpack_copy_true_stays_on_device(amr3):
    cp = cupy()
    mf, a4 = one_box(amr3, 8, ncomp=3)
    mf.set_val(5.0)
    sub = amr3.Array4_double(a4, 1, 2)  # components 1, 2: not at the start of the block

    class W:
        def __dlpack__(self, **kw):
            kw["copy"] = True
            return sub.__dlpack__(**kw)

        def __dlpack_device__(self):
            return sub.__dlpack_device__()

    x = cp.from_dlpack(W())
    assert x.shape == (2, 8, 8, 8) and bool((x == 5.0).all())
    assert x.data.ptr != sub.__cuda_array_interface__["data"][0]
    x[...] = 1.0
    sync()
    assert a4[0, 0, 0, 1] == 5.0  # the copy is independent


@gpu
@pytest.mark.parametrize("arena", ["managed", "pinned", "device", "async"])
def test_arena_kinds_dlpack_device_and_protocols(amr3, arena):
    cp = cupy()
    ar = {"managed": amr3.The_Managed_Arena, "pinned": amr3.The_Pinned_Arena,
          "device": amr3.The_Device_Arena, "async": amr3.The_Async_Arena}[arena]()
    mf, a4 = one_box(amr3, 8, ncomp=2, arena=ar)
    mf.set_val(3.0)
    mf.set_val(-1.0, 1, 1)
    dev = device_id()
    expect = {"managed": (13, dev), "pinned": (3, 0), "device": (2, dev), "async": (2, dev)}[arena]
    assert a4.__dlpack_device__() == expect
    if arena in ("managed", "pinned"):
        # host accessible: NumPy views see boxfab's GPU results (the export waits for the stream)
        v = np.asarray(a4)
        assert v.shape == (2, 8, 8, 8) and (v[0] == 3.0).all() and (v[1] == -1.0).all()
        assert (a4.to_numpy()[..., 1] == -1.0).all()
        h = np.from_dlpack(a4)  # kDLCPU on request, no copy
        assert h.__array_interface__["data"][0] == a4.__array_interface__["data"][0]
    if arena == "pinned":
        with pytest.raises(AttributeError, match="host memory"):
            a4.__cuda_array_interface__
        # to_cupy: no view of host memory, a CuPy copy on request (Array4 and the stacked view alike)
        for x, name in ((a4, "Array4"), (mf.stacked(), "StackedArray")):
            with pytest.raises(ValueError, match=f"this {name} views host memory"):
                x.to_cupy()
            c = x.to_cupy(copy=True)
            assert isinstance(c, cp.ndarray) and np.array_equal(c.get(), x.to_numpy())
    else:
        x = cp.asarray(a4)
        assert x.data.ptr == a4.__cuda_array_interface__["data"][0]
        assert bool((x[0] == 3.0).all()) and bool((x[1] == -1.0).all())
    if arena in ("device", "async"):
        with pytest.raises(AttributeError):
            a4.__array_interface__
    # element access works for every kind (device memory through a small copy)
    a4[1, 2, 3, 1] = 7.5
    assert a4[1, 2, 3, 1] == 7.5 and a4[1, 2, 3] == 3.0
    assert a4.to_host()[1, 3, 2, 1] == 7.5


# ---- CuPy both ways ---------------------------------------------------------------------------------
@gpu
def test_cupy_views_and_inplace_kernels(amr):
    cp = cupy()
    dom, ba, dm = layout(amr)
    g, c = gpu_cpu_pair(amr, ba, dm, ncomp=2, ngrow=1)
    views = g.to_cupy()
    cviews = g.to_cupy(order="C")
    for mfi, v, vc in zip(g, views, cviews):
        a4 = g.array(mfi)
        ptr = a4.__cuda_array_interface__["data"][0]
        assert isinstance(v, cp.ndarray) and v.data.ptr == ptr and vc.data.ptr == ptr
        assert v.shape == tuple(reversed(vc.shape))
        assert cp.asarray(a4).data.ptr == ptr
        assert cp.shares_memory(v, vc)
    # in-place CuPy kernels write into boxfab memory
    for v in views:
        cp.multiply(v, 2, out=v)
    @cp.fuse()
    def axpy(a, x, y):
        return a * x + y

    for v in views:
        v[...] = axpy(0.5, v, v)  # 2x -> 2x * 1.5 = 3x
    sync()
    for mfi in c:
        h = c.array(mfi).to_numpy()
        h *= 3.0
    assert_same(g, c)
    # boxfab writes visible in old CuPy views (after boxfab's stream is waited for)
    g.set_val(4.25)
    for _ in g:  # MFIter end: synchronizes boxfab's stream
        pass
    assert all(bool((v == 4.25).all()) for v in views)
    # copies
    cps = g.to_cupy(copy=True)
    assert all(x.data.ptr != v.data.ptr and bool((x == 4.25).all()) for x, v in zip(cps, views))
    # to_xp picks CuPy on a GPU
    assert all(isinstance(x, cp.ndarray) for x in g.to_xp())
    mfi = next(iter(g))
    assert isinstance(g.array(mfi).to_xp(), cp.ndarray)
    mfi.finalize()


@gpu
def test_cupy_to_array4_both_protocols(amr3):
    cp = cupy()
    x = cp.arange(2 * 3 * 4 * 5, dtype=cp.float64).reshape(2, 3, 4, 5)  # (nc, nz, ny, nx)
    sync()
    a = amr3.Array4_double(x)  # DLPack (preferred)
    assert a.__cuda_array_interface__["data"][0] == x.data.ptr
    assert a.__dlpack_device__() == (2, device_id())
    assert a[4, 3, 2, 1] == float(x[1, 2, 3, 4])
    a[0, 0, 0, 1] = -9.0
    assert float(x[1, 0, 0, 0]) == -9.0

    b = amr3.Array4_double(CAIOnly(x[1]))  # 3-D: one component
    assert b.nComp == 1 and b[4, 3, 2] == float(x[1, 2, 3, 4])
    assert b.__cuda_array_interface__["data"][0] == x[1].data.ptr
    # CuPy work pending on a non-blocking stream is waited for through the CAI stream field
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        y = cp.empty((64, 64, 64))
        for i in range(20):
            y.fill(float(i))
        c = amr3.Array4_double(CAIOnly(y))  # CuPy's CAI names s: boxfab's stream waits for it
    assert c[5, 6, 7] == 19.0  # element read on boxfab's stream
    # wrong dtype / read-only
    with pytest.raises(TypeError, match="element type"):
        amr3.Array4_float(x)
    with pytest.raises(ValueError):
        amr3.Array4_double(CAIOnly(cp.zeros((2, 2, 2, 2, 2))))

    with pytest.raises(TypeError, match="__cuda_array_interface__ shape must be a tuple"):
        amr3.Array4_double(CAIOnly(x, shape=[2, 3, 4, 5]))
    with pytest.raises(TypeError, match="__cuda_array_interface__ strides must be a tuple"):
        amr3.Array4_double(CAIOnly(x, strides=[480, 160, 40, 8]))
    with pytest.raises(ValueError, match="__cuda_array_interface__ strides and shape differ in length"):
        amr3.Array4_double(CAIOnly(x, strides=(40, 8)))
    b = amr3.Array4_double(CAIOnly(x, strides=(480, 160, 40, 8)))  # explicit C strides: the same view
    assert b[4, 3, 2, 1] == float(x[1, 2, 3, 4])


@gpu
def test_cupy_to_array4_keeps_source_alive(amr3):
    cp = cupy()
    import gc
    x = cp.full((3, 4, 5), 6.5)
    sync()
    a = amr3.Array4_double(x)
    ptr = x.data.ptr
    del x
    gc.collect()
    junk = [cp.full((3, 4, 5), -1.0) for _ in range(20)]  # would reuse the block if it were freed
    sync()
    assert a.__cuda_array_interface__["data"][0] == ptr
    assert a[4, 3, 2] == 6.5 and (a.to_host() == 6.5).all()
    del junk


# ---- Numba both ways ------------------------------------------------------------------------------
@gpu
def test_numba_writes_into_boxfab_memory(amr3):
    """Numba sees boxfab memory through __cuda_array_interface__ (no copy) and writes into it:
    first with a copy from the host through the Numba view, then with a cuda.jit kernel."""
    cupy()
    numba_cuda = pytest.importorskip("numba.cuda")
    n, k, j, i = np.meshgrid(np.arange(2), np.arange(12), np.arange(12), np.arange(12), indexing="ij")
    ref = n * 1000.0 + k * 100.0 + j * 10.0 + i
    mf, a4 = one_box(amr3, 12, ncomp=2)
    mf.set_val(-1.0)
    d = numba_cuda.as_cuda_array(a4)  # through __cuda_array_interface__ (synchronizes on its stream)
    assert d.__cuda_array_interface__["data"][0] == a4.__cuda_array_interface__["data"][0]
    d.copy_to_device(np.ascontiguousarray(ref))  # Numba writes into boxfab's memory
    numba_cuda.synchronize()
    assert np.array_equal(a4.to_host(), ref)
    assert mf.sum(1) == pytest.approx(ref[1].sum(), rel=1e-12)
    # and Numba arrays into an Array4
    h = np.arange(24.0).reshape(2, 3, 4)
    dn = numba_cuda.to_device(h)
    b = amr3.Array4_double(dn)
    assert b[3, 2, 1] == h[1, 2, 3] and np.array_equal(b.to_host()[0], h)
    b[0, 0, 0] = 99.0
    assert dn.copy_to_host()[0, 0, 0] == 99.0

    # a cuda.jit kernel writing into boxfab memory
    def fill(x):
        i, j, k = numba_cuda.grid(3)
        if k < x.shape[1] and j < x.shape[2] and i < x.shape[3]:
            for n in range(x.shape[0]):
                x[n, k, j, i] = n * 1000.0 + k * 100.0 + j * 10.0 + i + 0.5

    try:
        kernel = numba_cuda.jit(fill)
        kernel[(2, 2, 3), (8, 8, 4)](d)
    except AttributeError as e:  # numba-cuda older than the NumPy it runs with (e.g. np.row_stack is gone)
        if "module 'numpy' has no attribute" not in str(e):
            raise
        pytest.skip(f"numba-cuda cannot compile kernels with this NumPy: {e}")
    numba_cuda.synchronize()
    assert np.array_equal(a4.to_host(), ref + 0.5)
    assert a4[3, 2, 1, 1] == 1123.5


# ---- PyTorch both ways ----------------------------------------------------------------------------
@gpu
def test_torch_views_both_ways(amr3):
    cupy()
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    mf, a4 = one_box(amr3, 8, ncomp=2)
    mf.set_val(1.5)
    ptr = a4.__cuda_array_interface__["data"][0]
    t = torch.as_tensor(a4, device="cuda")  # CAI (readonly False, so PyTorch accepts it)
    assert t.data_ptr() == ptr and tuple(t.shape) == (2, 8, 8, 8) and t.dtype == torch.float64
    assert bool((t == 1.5).all())
    u = torch.from_dlpack(a4)  # DLPack with PyTorch's current stream
    assert u.data_ptr() == ptr and u.device.type == "cuda"
    t.mul_(2.0)
    torch.cuda.synchronize()
    assert mf.sum(0) == 3.0 * 512 and a4[1, 1, 1, 1] == 3.0
    mf.set_val(-2.0)  # boxfab writes are visible to PyTorch through a fresh DLPack import
    v = torch.from_dlpack(a4)
    assert bool((v == -2.0).all()) and bool((u == -2.0).all())
    c = amr3.Array4_double_const(a4)
    tc = torch.as_tensor(c, device="cuda")
    assert tc.data_ptr() == ptr
    # torch tensors into Array4: DLPack and CAI
    x = torch.arange(24, dtype=torch.float64, device="cuda").reshape(2, 3, 4)
    torch.cuda.synchronize()
    b = amr3.Array4_double(x)
    assert b.__cuda_array_interface__["data"][0] == x.data_ptr()
    assert b[3, 2, 1] == 23.0
    b[0, 0, 0] = 42.0
    assert float(x[0, 0, 0]) == 42.0
    x.add_(1.0)
    torch.cuda.synchronize()
    assert b[0, 0, 0] == 43.0

    bc = amr3.Array4_double(CAIOnly(x))
    assert bc.__cuda_array_interface__["data"][0] == x.data_ptr() and bc[1, 1, 1] == float(x[1, 1, 1])
    with pytest.raises(TypeError, match="element type"):
        amr3.Array4_int(x)


# ---- JAX both ways ---------------------------------------------------------------------------------
def _jax():
    jax = pytest.importorskip("jax")
    if jax.default_backend() != "gpu":
        pytest.skip("JAX has no GPU backend here")
    jax.config.update("jax_enable_x64", True)
    return jax


@gpu
def test_jax_from_array4_read_only(amr3):
    cupy()
    jax = _jax()
    import jax.dlpack
    mf, a4 = one_box(amr3, 8, ncomp=2)
    mf.set_val(0.25)
    mf.set_val(7.0, 1, 1)
    j = jax.dlpack.from_dlpack(a4)  # JAX arrays are immutable: read only
    assert j.shape == (2, 8, 8, 8) and j.dtype == np.float64
    h = np.asarray(j)
    assert (h[0] == 0.25).all() and (h[1] == 7.0).all()
    assert float(j.sum()) == 512 * (0.25 + 7.0)


@gpu
def test_array4_from_jax(amr3):
    cupy()
    jax = _jax()
    import jax.numpy as jnp
    ref = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)
    j = jnp.asarray(ref)
    j.block_until_ready()
    c = amr3.Array4_double_const(j)  # DLPack; read-only view
    assert c.__dlpack_device__()[0] == 2
    assert c[4, 3, 2, 1] == ref[1, 2, 3, 4]
    assert np.array_equal(c.to_host(), ref)
    with pytest.raises(ValueError, match="read-only"):
        amr3.Array4_double(j)


# ---- every MultiFab operation: GPU against host memory ---------------------------------------------
def _per(amr, n=16):
    return amr.Periodicity(amr.IntVect(*([n] * int(amr.__name__[-2]))))


ELEMENTWISE = {
    "set_val": lambda amr, m, o: m.set_val(2.5),
    "set_val_comp": lambda amr, m, o: m.set_val(-1.25, 1, 1, 1),
    "plus": lambda amr, m, o: m.plus(0.75, 0, 2, 1),
    "plus_mf": lambda amr, m, o: m.plus(o, 0, 2, 0),
    "mult": lambda amr, m, o: m.mult(3.0, 1),
    "mult_comp": lambda amr, m, o: m.mult(-0.5, 1, 1, 0),
    "add": lambda amr, m, o: amr.MultiFab.add(m, o, 0, 1, 1, 1),
    "saxpy": lambda amr, m, o: amr.MultiFab.saxpy(m, 0.5, o, 0, 1, 1, 1),
    "lin_comb": lambda amr, m, o: amr.MultiFab.lin_comb(m, 2.0, o, 1, -3.0, o, 0, 0, 1, 0),
    "copy_mfab": lambda amr, m, o: amr.copy_mfab(m, o, 1, 0, 1, 1),
    "fill_boundary": lambda amr, m, o: m.fill_boundary(_per(amr)),
}


@gpu
@pytest.mark.parametrize("op", list(ELEMENTWISE))
def test_multifab_elementwise_gpu_vs_cpu(amr, op):
    cupy()
    dom, ba, dm = layout(amr)
    g, c = gpu_cpu_pair(amr, ba, dm, seed=1)
    g2, c2 = gpu_cpu_pair(amr, ba, dm, seed=2)
    assert_same(g, c)
    ELEMENTWISE[op](amr, g, g2)
    ELEMENTWISE[op](amr, c, c2)
    assert_same(g, c)  # bitwise
    assert_same(g2, c2)


REDUCTIONS = {
    "sum": lambda amr, m, o: m.sum(0),
    "sum1": lambda amr, m, o: m.sum(1),
    "norm2": lambda amr, m, o: m.norm2(0),
    "min": lambda amr, m, o: m.min(0, 1),
    "max": lambda amr, m, o: m.max(1, 1),
    "norm0": lambda amr, m, o: m.norm0(1, 0, False, False),
    "dot": lambda amr, m, o: amr.MultiFab.dot(m, 0, o, 0, 2, 1),
    "dot_self": lambda amr, m, o: amr.MultiFab.dot(m, 1, 1, 0),
}


@gpu
@pytest.mark.parametrize("op", list(REDUCTIONS))
def test_multifab_reductions_gpu_vs_cpu(amr, op):
    cupy()
    dom, ba, dm = layout(amr)
    g, c = gpu_cpu_pair(amr, ba, dm, seed=3)
    g2, c2 = gpu_cpu_pair(amr, ba, dm, seed=4)
    rg = REDUCTIONS[op](amr, g, g2)
    rc = REDUCTIONS[op](amr, c, c2)
    if op in ("min", "max", "norm0"):
        assert rg == rc
    else:
        assert rg == pytest.approx(rc, rel=1e-12)


@gpu
def test_multifab_numpy_copies_and_memcpy(amr):
    cp = cupy()
    dom, ba, dm = layout(amr)
    g, c = gpu_cpu_pair(amr, ba, dm, seed=5)
    with pytest.raises(ValueError, match="device memory"):
        g.to_numpy()
    hs = g.to_numpy(copy=True)
    cs = c.to_numpy()
    assert len(hs) == len(cs) and all(np.array_equal(h, x) for h, x in zip(hs, cs))
    assert all(isinstance(h, np.ndarray) for h in hs)
    # dtoh into pinned memory, htod back into a fresh device MultiFab
    pinned = amr.MultiFab(ba, dm, 2, 1, amr.MFInfo().set_arena(amr.The_Pinned_Arena()))
    amr.dtoh_memcpy(pinned, g)
    assert all(np.array_equal(p, x) for p, x in zip(pinned.to_numpy(), cs))
    host = amr.MultiFab(ba, dm, 2, 1, cpu_info(amr))
    amr.dtoh_memcpy(host, g)
    assert all(np.array_equal(p, x) for p, x in zip(host.to_numpy(), cs))
    g3 = amr.MultiFab(ba, dm, 2, 1)
    g3.set_val(0.0)
    amr.htod_memcpy(g3, host)
    assert_same(g3, c)
    amr.htod_memcpy(g3, pinned, 1, 0, 1)
    for mfi in c:
        x = g3.array(mfi).to_cupy().get()
        assert np.array_equal(x[..., 0], c.array(mfi).to_numpy()[..., 1])
    # to_host of every view
    for mfi in c:
        assert np.array_equal(g.array(mfi).to_host(), c.array(mfi).to_host())
        assert np.array_equal(g.array(mfi).to_numpy(copy=True, order="C"), c.array(mfi).to_numpy(order="C"))


@gpu
def test_global_indexing_on_device_data(amr):
    cupy()
    dom, ba, dm = layout(amr)
    g, c = gpu_cpu_pair(amr, ba, dm, seed=6)
    for key in (Ellipsis, (slice(2, 9),), (slice(None), 3) if int(amr.__name__[-2]) > 1 else (4,), (-1j,)):
        a, b = g[key], c[key]
        assert isinstance(a, (np.ndarray, float, np.floating))
        assert np.array_equal(np.asarray(a), np.asarray(b)), key
    vals = np.arange(16, dtype=np.float64)
    d = int(amr.__name__[-2])
    key = (slice(None),) + (2,) * (d - 1) + (1,)
    g[key] = vals
    c[key] = vals
    g[(3,) * d] = 11.0
    c[(3,) * d] = 11.0
    assert_same(g, c)
    assert np.array_equal(g[...], c[...])


# ---- lifetimes with device memory --------------------------------------------------------------------
LIFETIME = """
import gc, sys
import numpy as np
import cupy as cp
import boxfab.space3d as amr
amr.initialize([])
assert amr.Config.have_gpu
dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(15, 15, 15))
ba = amr.BoxArray(dom); ba.max_size(8)
dm = amr.DistributionMapping(ba)
def make():
    mf = amr.MultiFab(ba, dm, 2, 1)
    for mfi in mf:
        mf.array(mfi).to_cupy()[...] = mfi.index + 0.5
    cp.cuda.Device().synchronize()
    return mf
"""


def check_lifetime(code):
    r = run_python(LIFETIME + code, timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "OK" in r.stdout, r.stdout + r.stderr


@gpu
def test_lifetime_cupy_views_survive_del():
    cupy()
    check_lifetime("""
mf = make()
views = mf.to_cupy()
a4 = [mf.array(m) for m in mf]
caps = [mf.array(m).__dlpack__(stream=-1) for m in mf]
del mf; gc.collect()
junk = [amr.MultiFab(ba, dm, 2, 1) for _ in range(4)]   # would reuse the blocks if they were freed
for j in junk: j.set_val(-7.0)
for _ in junk[0]: pass
for i, (v, a) in enumerate(zip(views, a4)):
    assert bool((v == i + 0.5).all()), i
    assert (a.to_host() == i + 0.5).all()
class C:
    def __init__(s, c): s.c = c
    def __dlpack__(s, **k): return s.c
    def __dlpack_device__(s): return (2, cp.cuda.Device().id)
xs = [cp.from_dlpack(C(c)) for c in caps]
del a4, caps; gc.collect()
for i, x in enumerate(xs):
    assert bool((x == i + 0.5).all())
del views; gc.collect()
assert bool((xs[3] == 3.5).all())
print("OK")
""")


@gpu
def test_lifetime_torch_tensors_survive_del():
    cupy()
    pytest.importorskip("torch")
    check_lifetime("""
import torch
mf = make()
ts = [torch.as_tensor(mf.array(m), device="cuda") for m in mf]
ds = [torch.from_dlpack(mf.array(m)) for m in mf]
mf.clear(); del mf; gc.collect()
junk = [amr.MultiFab(ba, dm, 2, 1) for _ in range(4)]
for j in junk: j.set_val(-7.0)
for _ in junk[0]: pass
for i, (t, d) in enumerate(zip(ts, ds)):
    assert bool((t == i + 0.5).all()) and bool((d == i + 0.5).all()), i
del ts; gc.collect()
assert bool((ds[2] == 2.5).all())
amr.finalize()
assert bool((ds[1] == 1.5).all())   # the memory outlives finalize while a view holds it
print("OK")
""")


@gpu
def test_lifetime_imported_cupy_array_outlives_source():
    cupy()
    check_lifetime("""
x = cp.full((2, 4, 4, 4), 8.0)
cp.cuda.Device().synchronize()
a = amr.Array4_double(x)
del x; gc.collect()
junk = [cp.full((2, 4, 4, 4), -1.0) for _ in range(20)]
cp.cuda.Device().synchronize()
assert a[3, 3, 3, 1] == 8.0 and (a.to_host() == 8.0).all()
y = cp.asarray(a)
del a; gc.collect()
assert bool((y == 8.0).all())
print("OK")
""")


@gpu
def test_zero_size_device_views_to_cupy(amr3):
    """A zero-size view of device memory exports address 0 (INTEROP.md), which CuPy's
    import refuses ("UnownedMemory requires explicit device ID for a null pointer"):
    to_cupy gives an empty CuPy array of the right shape instead of raising."""
    cp = pytest.importorskip("cupy")
    amr = amr3
    ensure_init(amr)
    a = amr.Array4_double(cp.zeros((2, 3, 4, 5))[:, :, :, 0:0])
    assert a.__cuda_array_interface__["data"][0] == 0
    v = a.to_cupy()
    assert isinstance(v, cp.ndarray) and v.shape == (0, 4, 3, 2) and v.size == 0
    assert a.to_cupy(order="C").shape == (2, 3, 4, 0)
    assert a.to_cupy(copy=True).shape == (0, 4, 3, 2)
    assert a.to_xp().shape == (0, 4, 3, 2)
