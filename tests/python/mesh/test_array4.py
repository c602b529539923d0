"""Array4_<T> / Array4_<T>_const: the 26 types, constructors, indexing, properties (API.md 2.2)."""
import numpy as np
import pytest

DTYPES = {
    "double": np.float64, "float": np.float32, "longdouble": np.longdouble, "cdouble": np.complex128,
    "cfloat": np.complex64, "short": np.int16, "int": np.int32, "long": np.int64, "longlong": np.int64,
    "ushort": np.uint16, "uint": np.uint32, "ulong": np.uint64, "ulonglong": np.uint64,
}
PYTYPE = {"f": float, "c": complex, "i": int, "u": int}


def a4type(amr, t, const=False):
    return getattr(amr, f"Array4_{t}" + ("_const" if const else ""))


def sample(dtype, shape):
    x = np.arange(int(np.prod(shape))).reshape(shape) % 97
    if np.dtype(dtype).kind == "c":
        return (x + 1j * (x + 1)).astype(dtype)
    return x.astype(dtype)


def test_all_26_types_exist_in_every_module(amr):
    names = [n for n in dir(amr) if n.startswith("Array4_")]
    expect = {f"Array4_{t}{c}" for t in DTYPES for c in ("", "_const")}
    assert set(names) == expect and len(expect) == 26
    assert amr.Array4_double.__module__ == amr.__name__
    assert amr.Array4_double is not amr.Array4_double_const


def test_types_differ_between_dimensions():
    import boxfab.space2d as a2
    import boxfab.space3d as a3
    assert a2.Array4_double is not a3.Array4_double
    x = np.zeros((2, 2, 2))
    a = a3.Array4_double(x)
    with pytest.raises(TypeError, match="dimension"):
        a2.Array4_double(a)


@pytest.mark.parametrize("t", list(DTYPES))
def test_every_dtype_views_numpy_and_reads_elements(amr, t):
    x = sample(DTYPES[t], (2, 3, 4, 5))
    a = a4type(amr, t)(x)
    assert a.nComp == a.num_comp == 2 and a.size == x.size
    kind = np.dtype(DTYPES[t]).kind
    for (n, k, j, i) in [(0, 0, 0, 0), (1, 2, 3, 4), (0, 1, 2, 3), (1, 0, 3, 0)]:
        v = a[i, j, k, n]
        assert type(v) is PYTYPE[kind]
        assert v == x[n, k, j, i]
    assert a[4, 3, 2] == x[0, 2, 3, 4]  # component 0 by default
    assert a[[4, 3, 2, 1]] == x[1, 2, 3, 4]  # a list key works too


@pytest.mark.parametrize("t", list(DTYPES))
def test_every_dtype_writes_are_visible_in_numpy(amr, t):
    x = sample(DTYPES[t], (3, 4, 5))
    a = a4type(amr, t)(x)
    kind = np.dtype(DTYPES[t]).kind
    val = {"f": 2.5, "c": 1.5 - 2j, "i": -7, "u": 9}[kind]
    a[1, 2, 0] = val
    assert x[0, 2, 1] == val
    x[2, 3, 4] = 3
    assert a[4, 3, 2] == 3


def test_integer_value_range_checked(amr):
    a = amr.Array4_short(np.zeros(4, np.int16))
    a[0, 0, 0] = -32768
    with pytest.raises(OverflowError, match="does not fit"):
        a[0, 0, 0] = 40000
    u = amr.Array4_ulonglong(np.zeros(4, np.uint64))
    u[1, 0, 0] = 2**64 - 1
    assert u[1, 0, 0] == 2**64 - 1
    with pytest.raises(OverflowError):
        u[1, 0, 0] = -1
    with pytest.raises(OverflowError):
        u[1, 0, 0] = 2**64
    with pytest.raises(TypeError, match="int"):
        amr.Array4_int(np.zeros(4, np.int32))[0, 0, 0] = 1.5
    with pytest.raises(TypeError, match="real number"):
        amr.Array4_double(np.zeros(4))[0, 0, 0] = "x"
    with pytest.raises(TypeError, match="complex"):
        amr.Array4_cdouble(np.zeros(4, complex))[0, 0, 0] = "x"
    assert u[1, 0, 0] == 2**64 - 1  # a failed assignment leaves the element


def test_out_of_range_index_raises(amr):
    a = amr.Array4_double(np.zeros((2, 3, 4, 5)))
    for key in [(5, 0, 0), (-1, 0, 0), (0, 4, 0), (0, 0, 3), (0, 0, 0, 2), (0, 0, 0, -1)]:
        with pytest.raises(IndexError):
            a[key]
        with pytest.raises(IndexError):
            a[key] = 1.0


def test_wrong_number_of_indices(amr):
    a = amr.Array4_double(np.zeros((2, 2, 2)))
    with pytest.raises(IndexError, match="3 .* or 4"):
        a[0, 0]
    with pytest.raises(IndexError, match="3 .* or 4"):
        a[0, 0, 0, 0, 0]
    with pytest.raises(IndexError, match="got 1 index"):
        a[0]
    with pytest.raises(TypeError, match="indices must be"):
        a["x"]
    with pytest.raises(TypeError, match="int"):
        a[0, 0, 1.5]
    with pytest.raises(OverflowError):
        a[0, 0, 2**70]
    with pytest.raises(TypeError, match="deleted"):
        del a[0, 0, 0]


def test_intvect_key_of_the_module_dimension(amr):
    if not hasattr(amr, "IntVect"):
        pytest.skip("IntVect not built yet")
    dim = amr.Config.spacedim if hasattr(amr, "Config") else int(amr.__name__[-2])
    x = sample(np.float64, (2, 3, 4))
    a = amr.Array4_double(x)
    iv = amr.IntVect(*([1] * dim))
    expect = x[1 if dim > 2 else 0, 1 if dim > 1 else 0, 1]
    assert a[iv] == expect
    assert a.contains(iv)
    other = 3 if dim != 3 else 2
    import importlib
    o = importlib.import_module(f"boxfab.space{other}d")
    with pytest.raises(TypeError, match="dimension"):
        a[o.IntVect(*([0] * other))]


def test_const_types_are_read_only(amr):
    x = np.zeros((2, 2, 2))
    c = amr.Array4_double_const(x)
    assert not hasattr(amr.Array4_double_const, "__setitem__")
    with pytest.raises(TypeError):
        c[0, 0, 0] = 1.0
    x[1, 1, 1] = 4.0
    assert c[1, 1, 1] == 4.0


def test_const_accepts_read_only_source_mutable_does_not(amr):
    x = sample(np.float64, (2, 3))
    x.flags.writeable = False
    c = amr.Array4_double_const(x)
    assert c[2, 1, 0] == x[1, 2]
    with pytest.raises(ValueError, match="read-only"):
        amr.Array4_double(x)
    b = np.frombuffer(bytes(16), dtype=np.float64)  # read-only buffer
    with pytest.raises(ValueError, match="read-only"):
        amr.Array4_double(b)
    assert amr.Array4_double_const(b).size == 2


def test_contains_overloads(amr):
    a = amr.Array4_double(np.zeros((2, 3, 4)))
    assert a.contains(0, 0, 0) and a.contains(3, 2, 1)
    assert not a.contains(4, 0, 0) and not a.contains(0, 0, -1)
    assert a.contains(amr.Dim3(3, 2, 1)) and not a.contains(amr.Dim3(3, 3, 1))
    with pytest.raises(TypeError, match="contains"):
        a.contains(1, 2)
    with pytest.raises(TypeError, match="contains"):
        a.contains("x")


def test_empty_alias_and_component_subviews(amr):
    e = amr.Array4_double()
    assert e.size == 0 and e.nComp == 0
    assert not e.contains(0, 0, 0)
    with pytest.raises(IndexError):
        e[0, 0, 0]
    x = sample(np.float64, (4, 2, 3, 5))
    a = amr.Array4_double(x)
    alias = amr.Array4_double(a)
    alias[1, 1, 1, 3] = -1.0
    assert x[3, 1, 1, 1] == -1.0
    s = amr.Array4_double(a, 2)
    assert s.nComp == 2 and s[4, 2, 1, 0] == x[2, 1, 2, 4] and s[4, 2, 1, 1] == x[3, 1, 2, 4]
    s2 = amr.Array4_double(a, 1, 2)
    assert s2.nComp == 2 and s2[0, 0, 0, 1] == x[2, 0, 0, 0]
    assert np.shares_memory(np.asarray(s2), x)
    np.testing.assert_array_equal(s2.to_numpy(order="C"), x[1:3])
    with pytest.raises(IndexError, match="out of range"):
        amr.Array4_double(a, 4)
    with pytest.raises(IndexError):
        amr.Array4_double(a, -1)
    with pytest.raises(IndexError, match="exceed"):
        amr.Array4_double(a, 2, 3)
    with pytest.raises(ValueError, match="positive"):
        amr.Array4_double(a, 1, 0)
    c = amr.Array4_double_const(a, 1, 1)  # const view of a mutable one
    assert c[0, 0, 0] == x[1, 0, 0, 0]
    with pytest.raises(ValueError, match="read-only"):
        amr.Array4_double(c)
    with pytest.raises(TypeError, match="positional"):
        amr.Array4_double(other=a)
    with pytest.raises(TypeError, match="incompatible|supported"):
        amr.Array4_double(a, 1, 1, 1)


def test_base_type_is_not_instantiable(amr):
    base = amr.Array4_double.__mro__[1]
    with pytest.raises(TypeError):
        base()


def test_repr_mentions_bounds(amr):
    r = repr(amr.Array4_int(np.zeros((2, 3, 4), np.int32)))
    assert r.startswith("Array4_int(") and "ubound=(3, 2, 1)" in r and "ncomp=1" in r


def test_reinit_of_a_view_raises(amr):
    # An Array4 that views memory is fixed: DLPack capsules and __array_interface__ consumers
    # hold the Array4, not its owner, so re-pointing it would free memory they read (issue 9;
    # test_crash.py runs the use-after-free scenarios).  Before, re-init was allowed once no
    # buffer export was alive.
    a = amr.Array4_double(np.zeros(3))
    m = memoryview(a)
    with pytest.raises(RuntimeError, match="cannot be re-initialized"):
        a.__init__(np.zeros(4))
    m.release()
    with pytest.raises(RuntimeError, match="cannot be re-initialized"):
        a.__init__(np.zeros(4))
    assert a.size == 3
    e = amr.Array4_double()  # an empty Array4 views nothing: it may be initialized later
    e.__init__(np.zeros(4))
    assert e.size == 4
