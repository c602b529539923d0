"""One array over a whole MultiFab (issue 14): mf.stacked() / to_numpy_stacked / to_cupy_stacked /
to_xp_stacked.

When the local boxes share one shape, their fabs lie at equal distances in the MultiFab's one
buffer: all of them are one strided array (nbox, ncomp, nz, ny, nx) (C order; "F": [box, x, y, z,
comp]) with the box axis in MFIter order.  References: the per-box views mf.array(mfi) (zero-copy
proven with np.shares_memory and pointer equality), and for the stencil a global NumPy array with
periodic np.roll.  Tests marked ``gpu`` run only on a GPU machine (conftest skips them elsewhere):
CuPy (CAI and DLPack), PyTorch CUDA, Numba CUDA and JAX against the host reference."""
import numpy as np
import pytest

from conftest import run_python
from mfhelp import dim_of, ensure_init, make_ba

gpu = pytest.mark.gpu


def make(amr, cls=None, ncomp=3, ngrow=2, n=16, max_size=8, info=None, seed=0):
    """A MultiFab (or iMultiFab) with random data in every cell, ghost cells included."""
    ensure_init(amr)
    dom, ba = make_ba(amr, n, max_size)
    cls = cls or amr.MultiFab
    args = (ba, amr.DistributionMapping(ba), ncomp, ngrow) + ((info,) if info is not None else ())
    mf = cls(*args)
    rng = np.random.default_rng(seed)
    for mfi in mf:
        a = mf.array(mfi).to_numpy()
        if cls is amr.iMultiFab:
            a[...] = rng.integers(-1000, 1000, size=a.shape)
        else:
            a[...] = rng.standard_normal(a.shape)
    return mf


def ptr(x):
    return x.__array_interface__["data"][0]


# ---- layout, zero copy ------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["MultiFab", "iMultiFab"])
def test_every_box_is_its_slice(amr, kind):
    cls = getattr(amr, kind)
    mf = make(amr, cls)
    d = dim_of(amr)
    views = mf.to_numpy()  # per box, F order [x, y, z, comp]
    s = mf.stacked()
    fab = [12] * d + [1] * (3 - d)  # 8 cells and 2 ghost cells on each side
    assert s.shape == (len(views), 3, fab[2], fab[1], fab[0])
    assert s.nbox == len(views) == mf.box_array().size
    assert s.typestr == ("<i4" if kind == "iMultiFab" else "<f8") and s.memory == "host"
    f = mf.to_numpy_stacked()
    c = mf.to_numpy_stacked(order="C")
    assert f.shape == (len(views), fab[0], fab[1], fab[2], 3)
    assert c.shape == s.shape and c.flags.c_contiguous == (s.strides[0] == c[0].nbytes)  # fabs 64-byte aligned
    assert f.dtype == views[0].dtype and c.dtype == views[0].dtype
    for b, (mfi, v) in enumerate(zip(mf, views)):
        assert np.array_equal(f[b], v) and np.array_equal(c[b], v.T)
        assert np.shares_memory(f[b], v) and np.shares_memory(c, v)
        assert f[b].ctypes.data == mf.array(mfi).__array_interface__["data"][0]  # pointer equality
    # the box stride is the distance between the fabs' data
    a4 = [mf.array(mfi) for mfi in mf]
    assert ptr(s) == ptr(a4[0]) and s.__array_interface__["strides"] == s.strides
    assert s.strides[0] == ptr(a4[1]) - ptr(a4[0]) and s.strides[0] % 64 == 0
    assert s.strides[1:] == tuple(a4[0].__array_interface__["strides"])
    assert np.array_equal(mf.to_xp_stacked(), f)  # no GPU here: to_xp is to_numpy


def test_writes_go_both_ways(amr):
    mf = make(amr)
    f = mf.to_numpy_stacked()
    views = mf.to_numpy()
    f[...] = 0.0
    f[-1, 0, 0, 0, 2] = 7.5            # the first ghost cell of the last box, component 2
    f[0, ..., 1] = np.arange(f[0, ..., 1].size).reshape(f[0, ..., 1].shape)
    assert views[-1][0, 0, 0, 2] == 7.5
    assert np.array_equal(views[0][..., 1], f[0, ..., 1])
    views[1][...] = -3.0               # a per-box write is seen by the stacked view
    assert (f[1] == -3.0).all()
    valid = tuple(slice(2, -2) if k < dim_of(amr) else slice(None) for k in range(3))
    assert mf.max(1) == float(f[0][valid + (1,)].max())
    assert mf.sum(2) == -3.0 * 8 ** dim_of(amr)  # box 1; the ghost cell written above is no valid cell
    mf.set_val(2.0)                    # and boxfab's own operations
    assert (f == 2.0).all()


def test_ghost_cells_and_one_stencil_over_every_box(amr3):
    """One NumPy expression over the stacked array (the 7-point Laplacian of every box at once, after
    fill_boundary) equals the same stencil on the global periodic array (np.roll)."""
    amr = amr3
    n, bs = 16, 8
    mf = make(amr, ncomp=1, ngrow=1, n=n, max_size=bs, seed=3)
    out = make(amr, ncomp=1, ngrow=1, n=n, max_size=bs, seed=4)
    g = np.empty((n, n, n))
    rng = np.random.default_rng(5)
    g[...] = rng.standard_normal(g.shape)
    for mfi in mf:
        lo, hi = list(mfi.validbox().small_end), list(mfi.validbox().big_end)
        mf.array(mfi).to_numpy()[1:-1, 1:-1, 1:-1, 0] = g[lo[0]:hi[0] + 1, lo[1]:hi[1] + 1, lo[2]:hi[2] + 1]
    mf.fill_boundary(amr.Periodicity(amr.IntVect(n, n, n)))
    u = mf.to_numpy_stacked()[..., 0]      # [box, x, y, z], ghost cells included
    w = out.to_numpy_stacked()[..., 0]
    w[:, 1:-1, 1:-1, 1:-1] = (u[:, 2:, 1:-1, 1:-1] + u[:, :-2, 1:-1, 1:-1] + u[:, 1:-1, 2:, 1:-1]
                              + u[:, 1:-1, :-2, 1:-1] + u[:, 1:-1, 1:-1, 2:] + u[:, 1:-1, 1:-1, :-2]
                              - 6.0 * u[:, 1:-1, 1:-1, 1:-1])
    ref = sum(np.roll(g, s, axis=a) for a in range(3) for s in (1, -1)) - 6.0 * g
    for b, mfi in enumerate(out):
        lo, hi = list(mfi.validbox().small_end), list(mfi.validbox().big_end)
        want = ref[lo[0]:hi[0] + 1, lo[1]:hi[1] + 1, lo[2]:hi[2] + 1]
        assert np.allclose(w[b, 1:-1, 1:-1, 1:-1], want, rtol=0, atol=1e-12)
        # the ghost cells read through the stacked view are the neighbours' valid cells
        assert u[b, 0, 1, 1] == g[(lo[0] - 1) % n, lo[1], lo[2]]


def test_padding_between_fabs(amr):
    """Fabs whose size is no multiple of 64 bytes: the box stride is the padded distance, the view
    is strided, not contiguous, and still right."""
    ensure_init(amr)
    d = dim_of(amr)
    dom = amr.Box(amr.IntVect(*([0] * d)), amr.IntVect(*([14] + [2] * (d - 1))))
    ba = amr.BoxArray(dom)
    ba.max_size(amr.IntVect(*([5] + [3] * (d - 1))))
    mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 0)
    for mfi in mf:
        mf.array(mfi).to_numpy()[...] = mfi.index + 0.25
    s = mf.stacked()
    elems = 5 * 3 ** (d - 1)
    assert s.strides[0] == -(-elems * 8 // 64) * 64 and s.shape[0] == 3
    f = mf.to_numpy_stacked()
    assert not f.flags.c_contiguous and not f.flags.f_contiguous
    for b in range(3):
        assert (f[b] == b + 0.25).all()
    h = s.to_host()                      # a packed copy
    assert h.flags.c_contiguous and np.array_equal(h, mf.to_numpy_stacked(order="C"))
    cap_copy = np.from_dlpack(s, copy=True)
    assert np.array_equal(cap_copy, h) and not np.shares_memory(cap_copy, f)


def test_nodal_boxes(amr3):
    ensure_init(amr3)
    dom, ba = make_ba(amr3, 16, 8)
    ba = ba.convert(amr3.IntVect(1, 0, 1))
    mf = amr3.MultiFab(ba, amr3.DistributionMapping(ba), 1, 1)
    mf.set_val(1.0)
    assert mf.stacked().shape == (8, 1, 11, 10, 11)
    assert (mf.to_numpy_stacked() == 1.0).all()


def test_copies(amr):
    mf = make(amr)
    f = mf.to_numpy_stacked()
    for order in ("F", "C"):
        c = mf.to_numpy_stacked(copy=True, order=order)
        v = mf.to_numpy_stacked(order=order)
        assert np.array_equal(c, v) and not np.shares_memory(c, v)
    h = mf.stacked().to_host()
    assert h.flags.c_contiguous and np.array_equal(h, f.transpose(0, 4, 3, 2, 1))
    arr = np.asarray(mf.stacked())
    assert np.shares_memory(arr, f)
    a2 = np.array(mf.stacked(), dtype=np.float32)
    assert a2.dtype == np.float32 and np.allclose(a2, arr)
    assert np.shares_memory(mf.stacked().__array__(), f)
    assert not np.shares_memory(mf.stacked().__array__(copy=True), f)
    with pytest.raises(ValueError):
        mf.stacked().__array__(dtype=np.float32, copy=False)


# ---- DLPack and the array interfaces -------------------------------------------------------------
def test_dlpack_on_the_cpu(amr):
    mf = make(amr)
    s = mf.stacked()
    c = mf.to_numpy_stacked(order="C")
    assert s.__dlpack_device__() == (1, 0)
    x = np.from_dlpack(s)
    assert x.shape == s.shape and np.shares_memory(x, c) and np.array_equal(x, c)
    x[0, 0, 0, 0, 0] = 123.0
    assert mf.to_numpy()[0][0, 0, 0, 0] == 123.0
    for kw, name in (({}, "dltensor"), ({"max_version": (1, 0)}, "dltensor_versioned"),
                     ({"max_version": (1, 1), "dl_device": (1, 0), "copy": False}, "dltensor_versioned"),
                     ({"max_version": (0, 8)}, "dltensor"), ({"stream": None}, "dltensor")):
        cap = s.__dlpack__(**kw)
        assert f"capsule object \"{name}\"" in repr(cap)
    y = np.from_dlpack(s, copy=True)
    assert np.array_equal(y, c) and not np.shares_memory(y, c)
    with pytest.raises(ValueError, match="stream must be None"):
        s.__dlpack__(stream=1)
    with pytest.raises(BufferError, match="cannot export to device"):
        s.__dlpack__(dl_device=(2, 0))
    with pytest.raises(TypeError, match="keyword arguments only"):
        s.__dlpack__(None)
    with pytest.raises(TypeError, match="copy must be"):
        s.__dlpack__(copy="yes")
    with pytest.raises(TypeError, match="max_version"):
        s.__dlpack__(max_version=1)
    with pytest.raises(AttributeError, match="host memory"):
        s.__cuda_array_interface__
    assert not hasattr(s, "__cuda_array_interface__")
    ai = s.__array_interface__
    assert ai["shape"] == s.shape and ai["typestr"] == "<f8" and ai["version"] == 3 and ai["data"][1] is False


def test_torch_on_the_cpu(amr3):
    torch = pytest.importorskip("torch")
    mf = make(amr3)
    t = torch.from_dlpack(mf.stacked())
    c = mf.to_numpy_stacked(order="C")
    assert tuple(t.shape) == c.shape and t.data_ptr() == c.ctypes.data
    t.mul_(2.0)
    assert np.array_equal(c, t.numpy())
    assert mf.to_numpy()[1][2, 3, 4, 1] == float(t[1, 1, 4, 3, 2])


def test_jax_on_the_cpu(amr3):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    mf = make(amr3)
    c = mf.to_numpy_stacked(order="C")
    j = jnp.from_dlpack(mf.stacked())
    assert j.shape == c.shape and np.array_equal(np.asarray(j), c)
    assert float(j.sum()) == pytest.approx(float(c.sum()))


# ---- errors ---------------------------------------------------------------------------------------
def test_boxes_of_other_shapes_name_the_reason(amr):
    ensure_init(amr)
    d = dim_of(amr)
    dom = amr.Box(amr.IntVect(*([0] * d)), amr.IntVect(*([23] + [15] * (d - 1))))
    ba = amr.BoxArray(dom)
    ba.max_size(16)
    mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 1)
    other = "x".join(["8"] + ["16"] * (d - 1))
    first = "x".join(["16"] * d)
    for call in (mf.stacked, mf.to_numpy_stacked, mf.to_xp_stacked):
        with pytest.raises(ValueError, match=rf"box 1 \(local 1\) is {other}, box 0 \(local 0\) is {first}") as e:
            call()
        assert "max_grid_size" in str(e.value)  # how to get a layout that allows it
    # the documented way out: a domain whose sides are multiples of max_grid_size
    ba.max_size(8)
    assert amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 1).stacked().nbox == ba.size


def test_no_data_and_other_errors(amr):
    mf = make(amr)
    s = mf.stacked()
    mf.clear()
    with pytest.raises(RuntimeError, match="holds no data"):
        mf.stacked()
    with pytest.raises(RuntimeError, match="holds no data"):
        mf.to_numpy_stacked()
    assert s.nbox > 0 and np.isfinite(s.to_numpy()).all()  # the view keeps the memory
    ensure_init(amr)
    dom, ba = make_ba(amr)
    empty = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 0, amr.MFInfo().set_alloc(False))
    with pytest.raises(RuntimeError, match="holds no data"):
        empty.stacked()
    with pytest.raises(RuntimeError, match="undefined"):
        amr.MultiFab().stacked()
    with pytest.raises(RuntimeError, match="undefined"):
        amr.iMultiFab().to_numpy_stacked()
    mf = make(amr)
    for bad in ("X", "c", 1, None):
        with pytest.raises(ValueError, match="order"):
            mf.to_numpy_stacked(order=bad)
        with pytest.raises(ValueError, match="order"):
            mf.stacked().to_numpy(order=bad)
    with pytest.raises(TypeError):
        mf.stacked().to_numpy(True, "F", 3)
    with pytest.raises(TypeError):
        mf.stacked(1)
    with pytest.raises(TypeError):
        type(mf.stacked())()  # made by mf.stacked() only
    try:
        import cupy  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError):
            mf.to_cupy_stacked()
    else:
        with pytest.raises(ValueError, match="host memory"):
            mf.stacked().to_cupy()


def test_empty_boxarray(amr):
    ensure_init(amr)
    ba = amr.BoxArray()
    mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 0)
    with pytest.raises(ValueError, match="has no boxes"):
        mf.stacked()


def test_repr_and_type(amr):
    s = make(amr).stacked()
    assert repr(s).startswith("<boxfab StackedArray of ") and "host memory" in repr(s)
    assert type(s).__name__ == "StackedArray" and amr.StackedArray is type(s)


# ---- lifetimes (fresh interpreters that must exit cleanly) --------------------------------------------
LIFE = """
import gc
import numpy as np
import boxfab.space3d as amr
amr.initialize(["amrex.verbose=0"])
ba = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(15, 15, 15))); ba.max_size(8)
mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 2, 1)
for mfi in mf:
    mf.array(mfi).to_numpy()[...] = mfi.index + 0.5
"""


def check(code):
    r = run_python(LIFE + code)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "OK" in r.stdout, r.stdout + r.stderr


def test_view_outlives_del_clear_and_finalize():
    check("""
s = mf.stacked()
f = mf.to_numpy_stacked()
cap = s.__dlpack__(max_version=(1, 0))
del mf; gc.collect()
junk = [np.ones(10**5) for _ in range(50)]   # reuse freed memory if any was freed
for b in range(8):
    assert (f[b] == b + 0.5).all() and (s.to_numpy()[b] == b + 0.5).all()
amr.finalize()
f[...] = -1.0                                 # writing is safe too
assert (s.to_host() == -1.0).all()
x = np.from_dlpack(type("C", (), {"__dlpack__": lambda self, **k: cap, "__dlpack_device__": lambda self: (1, 0)})())
assert (x == -1.0).all()
del s, cap; gc.collect()
assert (f == -1.0).all() and (x == -1.0).all()
print("OK")
""")


def test_clear_then_view_and_use_after_finalize():
    check("""
f = mf.to_numpy_stacked(order="C")
s = mf.stacked()
mf.clear(); gc.collect()
for b in range(8):
    assert (f[b] == b + 0.5).all()
try:
    mf.stacked()
    raise SystemExit("no error")
except RuntimeError as e:
    assert "holds no data" in str(e)
m2 = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 0)
amr.finalize()
for call in (m2.stacked, m2.to_numpy_stacked, m2.to_xp_stacked):
    try:
        call()
        raise SystemExit("no error after finalize")
    except RuntimeError as e:
        assert "finalize" in str(e), e
assert np.from_dlpack(s).shape == (8, 2, 10, 10, 10)
del m2, mf; gc.collect()
print("OK")
""")


# ---- GPU: CuPy, PyTorch, Numba, JAX against the host reference ---------------------------------------
def _cupy():
    return pytest.importorskip("cupy")


def _sync():
    import cupy
    cupy.cuda.Device().synchronize()


def gpu_pair(amr, ncomp=2, ngrow=1, n=16, max_size=8, seed=0):
    """The same random data in a device MultiFab (The_Arena) and a host one (The_Cpu_Arena)."""
    cp = _cupy()
    ensure_init(amr)
    dom, ba = make_ba(amr, n, max_size)
    dm = amr.DistributionMapping(ba)
    g = amr.MultiFab(ba, dm, ncomp, ngrow)
    c = amr.MultiFab(ba, dm, ncomp, ngrow, amr.MFInfo().set_arena(amr.The_Cpu_Arena()))
    rng = np.random.default_rng(seed)
    for mfi in c:
        h = c.array(mfi).to_numpy()
        h[...] = rng.standard_normal(h.shape)
        g.array(mfi).to_cupy()[...] = cp.asarray(h)
    _sync()
    return g, c


@gpu
def test_cupy_views_through_cai(amr3):
    cp = _cupy()
    g, c = gpu_pair(amr3)
    s = g.stacked()
    assert s.memory == "device" and s.__dlpack_device__() == (2, cp.cuda.Device().id)
    cai = s.__cuda_array_interface__
    per_box = g.to_cupy()
    assert cai["shape"] == s.shape == (8, 2, 10, 10, 10) and cai["strides"] == s.strides
    assert cai["data"] == (per_box[0].data.ptr, False) and cai["version"] == 3
    assert cai["stream"] is None or isinstance(cai["stream"], int)
    f = g.to_cupy_stacked()
    x = g.to_xp_stacked(order="C")
    assert isinstance(f, cp.ndarray) and f.shape == (8, 10, 10, 10, 2)
    ref = c.to_numpy_stacked()
    assert np.array_equal(f.get(), ref) and np.array_equal(x.get(), c.to_numpy_stacked(order="C"))
    for b, v in enumerate(per_box):
        assert f[b].data.ptr == v.data.ptr  # zero copy, box by box
    # one CuPy kernel over every box writes what the per-box views then read
    f *= 2.0
    _sync()
    assert np.array_equal(per_box[3].get(), 2.0 * ref[3])
    assert g.sum(1) == pytest.approx(2.0 * c.sum(1), rel=1e-12)
    g.set_val(-1.5)  # boxfab's kernels on its own stream: CuPy's fresh view waits for them (CAI stream)
    assert bool((g.to_cupy_stacked() == -1.5).all())
    cc = g.to_cupy_stacked(copy=True)
    assert cc.data.ptr != f.data.ptr and bool((cc == -1.5).all())


@gpu
def test_cupy_dlpack_and_host_exports_refused(amr3):
    cp = _cupy()
    g, c = gpu_pair(amr3, seed=1)
    s = g.stacked()
    x = cp.from_dlpack(s)
    assert x.data.ptr == g.to_cupy()[0].data.ptr and np.array_equal(x.get(), c.to_numpy_stacked(order="C"))
    with pytest.raises(ValueError, match="device memory"):
        g.to_numpy_stacked()
    with pytest.raises(AttributeError, match="device memory"):
        s.__array_interface__
    with pytest.raises(TypeError, match="device memory"):
        np.asarray(s)
    assert np.array_equal(g.to_numpy_stacked(copy=True), c.to_numpy_stacked())
    assert np.array_equal(s.to_host(), c.to_numpy_stacked(order="C"))
    h = np.from_dlpack(s, device="cpu") if np.lib.NumpyVersion(np.__version__) >= "2.1.0" else None
    if h is not None:
        assert np.array_equal(h, c.to_numpy_stacked(order="C"))
    with pytest.raises(BufferError, match="copy=False"):
        s.__dlpack__(dl_device=(1, 0), copy=False)
    d = s.__dlpack__(max_version=(1, 0), copy=True, stream=-1)  # a copy on the GPU
    assert "dltensor_versioned" in repr(d)


@gpu
def test_pinned_and_managed_memory(amr3):
    cp = _cupy()
    ensure_init(amr3)
    dom, ba = make_ba(amr3, 16, 8)
    dm = amr3.DistributionMapping(ba)
    for arena, has_cai, dev in ((amr3.The_Pinned_Arena(), False, 3), (amr3.The_Managed_Arena(), True, 13)):
        mf = amr3.MultiFab(ba, dm, 1, 1, amr3.MFInfo().set_arena(arena))
        mf.set_val(4.0)
        s = mf.stacked()
        assert s.__dlpack_device__()[0] == dev
        h = mf.to_numpy_stacked()  # host accessible: waits for boxfab's stream
        assert (h == 4.0).all() and np.shares_memory(h, mf.to_numpy()[0])
        assert hasattr(s, "__cuda_array_interface__") == has_cai
        if has_cai:
            v = mf.to_cupy_stacked()
            assert v.data.ptr == h.ctypes.data and bool((v == 4.0).all())
        else:
            with pytest.raises(ValueError, match="host memory"):
                mf.to_cupy_stacked()
            assert bool((mf.to_cupy_stacked(copy=True) == 4.0).all())
        if has_cai:  # to_xp on a GPU machine is to_cupy
            assert isinstance(mf.to_xp_stacked(), cp.ndarray)


@gpu
def test_torch_cuda(amr3):
    _cupy()
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    g, c = gpu_pair(amr3, seed=2)
    s = g.stacked()
    ptr0 = s.__cuda_array_interface__["data"][0]
    t = torch.from_dlpack(s)  # DLPack with PyTorch's current stream
    assert t.data_ptr() == ptr0 and tuple(t.shape) == s.shape and t.device.type == "cuda"
    assert np.array_equal(t.cpu().numpy(), c.to_numpy_stacked(order="C"))
    u = torch.as_tensor(s, device="cuda")  # CAI (readonly False)
    assert u.data_ptr() == ptr0
    t.add_(1.0)
    torch.cuda.synchronize()
    assert g.sum(0) == pytest.approx(c.sum(0) + 8 * 512, rel=1e-12)


@gpu
def test_numba_cuda_kernel_over_every_box(amr3):
    _cupy()
    numba_cuda = pytest.importorskip("numba.cuda")
    g, c = gpu_pair(amr3, ncomp=1, seed=3)
    d = numba_cuda.as_cuda_array(g.stacked())
    assert d.shape == (8, 1, 10, 10, 10)
    assert d.__cuda_array_interface__["data"][0] == g.stacked().__cuda_array_interface__["data"][0]

    def scale(x):
        b, k = numba_cuda.grid(2)
        if b < x.shape[0] and k < x.shape[2]:
            for j in range(x.shape[3]):
                for i in range(x.shape[4]):
                    x[b, 0, k, j, i] = 3.0 * x[b, 0, k, j, i]

    try:
        kernel = numba_cuda.jit(scale)
        kernel[(1, 1), (8, 10)](d)
    except AttributeError as e:  # numba-cuda older than the NumPy it runs with
        if "module 'numpy' has no attribute" not in str(e):
            raise
        pytest.skip(f"numba-cuda cannot compile kernels with this NumPy: {e}")
    numba_cuda.synchronize()
    assert np.allclose(g.to_numpy_stacked(copy=True), 3.0 * c.to_numpy_stacked(), rtol=0, atol=0)


@gpu
def test_jax_gpu(amr3):
    _cupy()
    jax = pytest.importorskip("jax")
    if jax.default_backend() != "gpu":
        pytest.skip("JAX has no GPU backend here")
    jax.config.update("jax_enable_x64", True)
    import jax.dlpack
    g, c = gpu_pair(amr3, seed=4)
    j = jax.dlpack.from_dlpack(g.stacked())
    assert j.shape == (8, 2, 10, 10, 10)
    assert np.array_equal(np.asarray(j), c.to_numpy_stacked(order="C"))


@gpu
def test_gpu_view_outlives_del():
    r = run_python("""
import gc
import cupy as cp
import boxfab.space3d as amr
amr.initialize(["amrex.verbose=0"])
ba = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(15, 15, 15))); ba.max_size(8)
mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 1)
mf.set_val(2.5)
v = mf.to_cupy_stacked()
s = mf.stacked()
del mf; gc.collect()
junk = [cp.ones(10**6) for _ in range(20)]
cp.cuda.Device().synchronize()
assert bool((v == 2.5).all()) and bool((cp.from_dlpack(s) == 2.5).all())
amr.finalize()
print("OK")
""")
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr
