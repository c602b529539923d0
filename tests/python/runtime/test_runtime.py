"""Runtime family: initialize/finalize, AMReX handles, Config, ParallelDescriptor,
Print, d_decl, concatenate, unpack_ids/unpack_cpus, module attributes (API.md 1.1-1.4).

Lifecycle tests that change global state run in a fresh interpreter (run_python)."""
import importlib
import inspect
import types

import numpy as np
import pytest
from hypothesis import given, strategies as st

from conftest import run_python


# ---- module attributes ----------------------------------------------------------------
def test_module_attributes(amr):
    for name in ("__version__", "__author__", "__license__", "__doc__"):
        assert isinstance(getattr(amr, name), str) and getattr(amr, name)
    assert amr.__version__ == amr.Config.amrex_version
    core = importlib.import_module("boxfab._core")
    assert amr.__version__ == core.__version__


def test_functions_exist_with_their_kinds(amr):
    for name in ("initialize", "initialized", "finalize", "size", "Print", "d_decl", "concatenate",
                 "unpack_ids", "unpack_cpus"):
        assert callable(getattr(amr, name)), name
    for name in ("empty", "size", "top", "erase"):
        assert isinstance(inspect.getattr_static(amr.AMReX, name), staticmethod), name


# ---- Config -----------------------------------------------------------------------------
def test_config_values(amr):
    C = amr.Config
    dim = int(amr.__name__[-2])
    assert C.spacedim == dim and type(C.spacedim) is int
    assert C.amrex_version == amr.__version__
    assert C.have_gpu is False and C.have_eb is False and C.gpu_backend is None
    assert isinstance(C.have_mpi, bool) and isinstance(C.have_omp, bool)
    core = importlib.import_module("boxfab._core")
    assert C.have_mpi == core.build_info()["mpi"] and C.have_omp == core.build_info()["openmp"]
    assert isinstance(C.verbose, int)


def test_config_cannot_be_instantiated(amr):
    with pytest.raises(TypeError, match="cannot be instantiated"):
        amr.Config()


def test_config_values_are_read_only_but_verbose(amr):
    for name in ("spacedim", "amrex_version", "have_mpi", "have_gpu", "have_omp", "have_eb", "gpu_backend"):
        with pytest.raises(AttributeError):
            setattr(amr.Config, name, 1)
    old = amr.Config.verbose
    try:
        amr.Config.verbose = 0
        assert amr.Config.verbose == 0
        amr.Config.verbose = 2
        # one global verbosity for every space module
        for d in (1, 2, 3):
            assert importlib.import_module(f"boxfab.space{d}d").Config.verbose == 2
        with pytest.raises(TypeError, match="int"):
            amr.Config.verbose = "loud"
        with pytest.raises(OverflowError):
            amr.Config.verbose = 2**40
        with pytest.raises(AttributeError):
            del amr.Config.verbose
        assert amr.Config.verbose == 2
    finally:
        amr.Config.verbose = old


def test_initialize_sets_verbose_from_amrex_verbose():
    r = run_python("""
        import boxfab.space3d as amr
        amr.Config.verbose = 1
        amr.initialize(["amrex.verbose=0"])
        assert amr.Config.verbose == 0
        amr.finalize()
        try:
            amr.initialize(["amrex.verbose=loud"])
        except ValueError as e:
            assert "not an int" in str(e)
        else:
            raise AssertionError("no ValueError")
        assert not amr.initialized()
    """)
    assert r.returncode == 0, r.stderr


# ---- ParallelDescriptor --------------------------------------------------------------------
def test_parallel_descriptor(amr):
    pd = amr.ParallelDescriptor
    assert isinstance(pd, types.ModuleType)
    assert pd.NProcs() == 1 and pd.MyProc() == 0 and pd.IOProcessorNumber() == 0
    assert pd.IOProcessor() is True
    assert 0 <= pd.MyProc() < pd.NProcs()
    with pytest.raises(TypeError):
        pd.NProcs(1)


# ---- d_decl, concatenate ------------------------------------------------------------------
def test_d_decl(amr):
    n = amr.Config.spacedim
    args = tuple(range(10, 10 + n))
    assert amr.d_decl(*args) == args and type(amr.d_decl(*args)) is tuple
    obj = object()
    assert amr.d_decl(*([obj] * n))[0] is obj
    for wrong in (n - 1, n + 1):
        with pytest.raises(TypeError, match=f"exactly {n} positional"):
            amr.d_decl(*range(wrong))
    with pytest.raises(TypeError):
        amr.d_decl(*args, x=1)


def test_concatenate_examples(amr):
    # AMReX_String.cpp Concatenate: root << setfill('0') << setw(mindigits) << num; the
    # default (right) adjustment pads before the sign: C++ prints -5 as "000-5"
    assert amr.concatenate("x", -5) == "x000-5"
    assert amr.concatenate("x", -5, 2) == "x-5" and amr.concatenate("x", -5, 3) == "x0-5"
    assert amr.concatenate("x", -2**31, 12) == "x0-2147483648"
    assert amr.concatenate("x", 2**31 - 1, 0) == "x2147483647"
    assert amr.concatenate("x", 7, 300) == "x" + "0" * 299 + "7"  # setw has no upper bound
    assert amr.concatenate("plt", 5) == "plt00005"
    assert amr.concatenate("plt", 5, 3) == "plt005"
    assert amr.concatenate(root="chk", num=123456, mindigits=2) == "chk123456"
    assert amr.concatenate("a", 7, mindigits=0) == "a7"
    assert amr.concatenate("", 0) == "00000"


@given(st.text(max_size=8), st.integers(-2**31, 2**31 - 1), st.integers(0, 40))
def test_concatenate_matches_python_format(root, num, mindigits):
    import boxfab.space3d as amr
    # std::setw right-adjusts: the fill goes before the sign
    assert amr.concatenate(root, num, mindigits) == root + str(num).rjust(mindigits, "0")


def test_concatenate_bad_input(amr):
    with pytest.raises(TypeError, match="root must be a str"):
        amr.concatenate(5, 5)
    with pytest.raises(TypeError, match="num"):
        amr.concatenate("plt", 1.5)
    with pytest.raises(OverflowError, match="C int"):
        amr.concatenate("plt", 2**31)
    # AMReX_String.cpp Concatenate: BL_ASSERT(mindigits >= 0) (a release build would print no
    # padding); boxfab raises
    with pytest.raises(ValueError, match="mindigits must be >= 0"):
        amr.concatenate("plt", 1, -1)
    with pytest.raises(OverflowError):
        amr.concatenate("plt", 1, 2**31)  # an int in C++
    with pytest.raises(TypeError):
        amr.concatenate("plt")
    with pytest.raises(TypeError):
        amr.concatenate("plt", 1, 2, 3)


# ---- unpack_ids / unpack_cpus ------------------------------------------------------------------
def ref_id(v):
    """Reference: bits 24..62 are |id|, bit 63 set means positive."""
    mag = (v >> 24) & ((1 << 39) - 1)
    return mag if v >> 63 else -mag


def ref_cpu(v):
    return v & ((1 << 24) - 1)


def test_unpack_known_values(amr):
    a = np.array([(1 << 63) | (5 << 24) | 3, (5 << 24) | 7, 2**64 - 1, 0], dtype=np.uint64)
    ids, cpus = amr.unpack_ids(a), amr.unpack_cpus(a)
    assert ids.dtype == np.int64 and cpus.dtype == np.int32
    assert ids.tolist() == [5, -5, 2**39 - 1, 0]
    assert cpus.tolist() == [3, 7, 2**24 - 1, 0]


@given(st.lists(st.integers(0, 2**64 - 1), max_size=50))
def test_unpack_matches_reference(values):
    import boxfab.space2d as amr
    a = np.array(values, dtype=np.uint64)
    assert amr.unpack_ids(a).tolist() == [ref_id(v) for v in values]
    assert amr.unpack_cpus(a).tolist() == [ref_cpu(v) for v in values]
    for v in values[:5]:
        assert amr.unpack_ids(v) == ref_id(v) and amr.unpack_cpus(v) == ref_cpu(v)


def test_unpack_shapes_and_layouts(amr):
    rng = np.random.default_rng(7)
    a = rng.integers(0, 2**63, size=(4, 6), dtype=np.uint64) | np.uint64(1 << 63)
    expect = np.array([[ref_id(int(v)) for v in row] for row in a])
    assert amr.unpack_ids(a).shape == (4, 6)
    assert (amr.unpack_ids(a) == expect).all()
    assert (amr.unpack_ids(a.T) == expect.T).all()            # non-contiguous
    assert (amr.unpack_ids(a[:, ::2]) == expect[:, ::2]).all()
    assert amr.unpack_ids(np.zeros(0, np.uint64)).shape == (0,)
    assert amr.unpack_ids([(1 << 63) | (9 << 24)]).tolist() == [9]  # a list goes through NumPy
    s = amr.unpack_ids(np.uint64((1 << 63) | (11 << 24)))           # a NumPy scalar gives a scalar
    assert s == 11 and np.ndim(s) == 0
    assert type(amr.unpack_cpus(12345)) is int
    assert amr.unpack_ids([2**64 - 1]).tolist() == [2**39 - 1]


def test_unpack_bad_input(amr):
    with pytest.raises(TypeError, match="uint64"):
        amr.unpack_ids(np.zeros(3, np.int64))
    with pytest.raises(TypeError, match="uint64"):
        amr.unpack_cpus(np.zeros(3, np.float64))
    with pytest.raises(TypeError, match="uint64"):
        amr.unpack_ids(np.zeros(3, ">u8"))
    with pytest.raises(OverflowError):
        amr.unpack_ids(-1)
    with pytest.raises(OverflowError):
        amr.unpack_ids(2**64)
    with pytest.raises(OverflowError):
        amr.unpack_ids([-1])
    with pytest.raises(TypeError):
        amr.unpack_ids("123")
    with pytest.raises(TypeError):
        amr.unpack_cpus(1.5)
    with pytest.raises(TypeError, match="uint64"):
        amr.unpack_ids([1.5, 2.0])


# ---- Print ----------------------------------------------------------------------------------------
def test_print_before_and_after_initialize():
    r = run_python("""
        import sys
        import boxfab.space1d as amr
        amr.Config.verbose = 0   # no initialization lines (AMReX's default amrex.verbose is 1): stdout is checked
        amr.Print("a", 1, sep="-")
        rt = amr.initialize([])
        amr.Print("b", 2, sep="+", end="!\\n")
        amr.Print("to stderr", file=sys.stderr)
        amr.finalize()
        amr.Print("c")
    """)
    assert r.returncode == 0, r.stderr
    warn = "warning: Print all - AMReX not initialized"
    assert r.stdout.splitlines() == [warn, "a-1", "b+2!", warn, "c"]
    assert r.stderr == "to stderr\n"


# ---- lifecycle --------------------------------------------------------------------------------------
def test_lifecycle_repeated_initialize_finalize():
    r = run_python("""
        import boxfab.space3d as amr
        assert not amr.initialized() and amr.size() == 0 and amr.AMReX.empty()
        for _ in range(5):
            rt = amr.initialize([])
            assert isinstance(rt, amr.AMReX)
            assert amr.initialized() and amr.size() == 1 and not amr.AMReX.empty()
            assert amr.AMReX.top() == rt and amr.AMReX.size() == 1
            amr.finalize()
            assert not amr.initialized() and amr.size() == 0
        try:
            amr.finalize()
        except RuntimeError as e:
            assert "not initialized" in str(e)
        else:
            raise AssertionError("finalize twice did not raise")
        try:
            amr.AMReX.top()
        except RuntimeError as e:
            assert "no runtime instance" in str(e)
        else:
            raise AssertionError("top() with no instance did not raise")
    """)
    assert r.returncode == 0, r.stderr


def test_lifecycle_nested_instances_and_erase():
    r = run_python("""
        import boxfab.space2d as amr, boxfab.space3d as amr3
        a = amr.initialize([])
        b = amr.initialize(["x=1"])
        assert amr.size() == 2 and amr.AMReX.top() == b and a != b and hash(a) != hash(b)
        assert type(amr.AMReX.top()) is amr.AMReX and type(amr3.AMReX.top()) is amr3.AMReX
        amr.AMReX.erase(a)                      # not the top one
        assert amr.size() == 1 and amr.AMReX.top() == b
        assert "finalized" in repr(a) and "active" in repr(b)
        for bad in (lambda: amr.AMReX.erase(a), lambda: amr.finalize(a)):
            try:
                bad()
            except RuntimeError as e:
                assert "not active" in str(e)
            else:
                raise AssertionError("no RuntimeError")
        amr3.finalize(b)                        # one runtime stack for every space module
        assert not amr.initialized()
        c = amr.initialize([])
        assert c != a and c != b                # ids are never reused
        amr.finalize(c)
    """)
    assert r.returncode == 0, r.stderr


def test_with_block_finalizes_its_instance():
    r = run_python("""
        import boxfab.space3d as amr
        with amr.initialize([]) as rt:
            assert isinstance(rt, amr.AMReX) and amr.initialized() and amr.AMReX.top() == rt
        assert not amr.initialized()
        # an exception in the block propagates and still finalizes
        try:
            with amr.initialize([]):
                raise KeyError("boom")
        except KeyError:
            pass
        assert not amr.initialized()
        # finalized inside the block: leaving it is quiet
        with amr.initialize([]) as rt:
            amr.finalize()
        assert not amr.initialized()
        # a finalized handle cannot be entered again
        try:
            with rt:
                pass
        except RuntimeError as e:
            assert "finalize" in str(e)
        else:
            raise AssertionError("entering a finalized handle did not raise")
        # nested: the inner block finalizes only its own instance
        with amr.initialize([]) as outer:
            with amr.initialize([]) as inner:
                assert amr.size() == 2
            assert amr.size() == 1 and amr.AMReX.top() == outer
        assert amr.size() == 0
    """)
    assert r.returncode == 0, r.stderr


def test_finalize_runs_gc_collect_first():
    r = run_python("""
        import gc, weakref
        import boxfab.space3d as amr
        seen = []
        class Holder:
            pass
        amr.initialize([])
        h = Holder(); h.self = h                # a cycle only the collector frees
        weakref.finalize(h, lambda: seen.append(amr.initialized()))
        del h
        gc.disable()
        amr.finalize()
        assert seen == [True], seen             # collected while the runtime was still up
    """)
    assert r.returncode == 0, r.stderr


def test_initialize_arguments_reach_the_parameter_store_and_are_checked():
    r = run_python("""
        import boxfab.space3d as amr
        for bad, exc, gist in ((["novalue"], ValueError, "key=value"), (["=1"], ValueError, "empty key"),
                               (["a="], ValueError, "no value"), ([1], TypeError, "must be a str"),
                               ("a=1", TypeError, "list"), (None, TypeError, "list"),
                               (["a\\x00=1"], ValueError, "NUL")):
            try:
                amr.initialize(bad)
            except exc as e:
                assert gist in str(e), (bad, str(e))
            else:
                raise AssertionError(f"{bad!r} accepted")
            assert not amr.initialized()
        for call in (lambda: amr.initialize(), lambda: amr.initialize([], []), lambda: amr.initialize(args=[]),
                     lambda: amr.finalize(3), lambda: amr.finalize(instance=None), lambda: amr.AMReX.erase(1)):
            try:
                call()
            except TypeError:
                pass
            else:
                raise AssertionError("no TypeError")
        amr.initialize(("n_cell=8 8 8", "amrex.verbose = 1"))   # tuples are sequences too
        amr.finalize()
        try:
            amr.AMReX()
        except TypeError:
            pass
        else:
            raise AssertionError("AMReX() instantiable")
    """)
    assert r.returncode == 0, r.stderr
