"""IntVect1D/2D/3D (API.md 1.5) and the module functions coarsen/refine (1.1)."""
import importlib
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

INT_MAX = 2**31 - 1
INT_MIN = -(2**31)

cint = st.integers(INT_MIN, INT_MAX)
small = st.integers(-1000, 1000)
positive = st.integers(1, 64)


def space(d):
    return importlib.import_module(f"boxfab.space{d}d")


def dim_of(amr):
    return len(amr.IntVect())


def trunc_div(a, b):
    """C integer division (truncates toward zero), computed independently of C."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


# ---- the types and the alias ----------------------------------------------------

def test_every_module_has_all_three_types_and_alias():
    for d in (1, 2, 3):
        m = space(d)
        for k in (1, 2, 3):
            assert getattr(m, f"IntVect{k}D") is getattr(space(1), f"IntVect{k}D")
        assert m.IntVect is getattr(m, f"IntVect{d}D")
        assert m.IntVect.__name__ == f"IntVect{d}D"


def test_types_are_distinct():
    m = space(3)
    assert len({m.IntVect1D, m.IntVect2D, m.IntVect3D}) == 3
    assert not isinstance(m.IntVect2D(), m.IntVect3D)


# ---- constructors -----------------------------------------------------------------

def test_default_is_zero(amr):
    d = dim_of(amr)
    assert list(amr.IntVect()) == [0] * d


def test_scalar_constructor(amr):
    d = dim_of(amr)
    assert list(amr.IntVect(-7)) == [-7] * d
    assert list(amr.IntVect(np.int64(5))) == [5] * d


def test_sequence_constructor(amr):
    d = dim_of(amr)
    vals = [3, -1, 8][:d]
    assert list(amr.IntVect(vals)) == vals
    assert list(amr.IntVect(tuple(vals))) == vals
    assert list(amr.IntVect(np.array(vals))) == vals
    assert list(amr.IntVect(range(1, d + 1))) == list(range(1, d + 1))


def test_per_component_constructor():
    assert list(space(2).IntVect(4, -5)) == [4, -5]
    assert list(space(3).IntVect(4, -5, 6)) == [4, -5, 6]
    assert list(space(1).IntVect(9)) == [9]


def test_copy_from_same_dimension(amr):
    a = amr.IntVect(list(range(2, 2 + dim_of(amr))))
    b = amr.IntVect(a)
    assert b == a and b is not a
    b[0] = 100
    assert a[0] == 2


def test_constructor_wrong_arity(amr):
    d = dim_of(amr)
    for n in range(2, 6):
        if n == d:
            continue
        with pytest.raises(TypeError, match=f"IntVect{d}D"):
            amr.IntVect(*range(n))


def test_constructor_wrong_length_sequence(amr):
    d = dim_of(amr)
    with pytest.raises(ValueError, match=f"exactly {d} components"):
        amr.IntVect([1] * (d + 1))
    with pytest.raises(ValueError, match=f"exactly {d} components"):
        amr.IntVect([])


def test_constructor_bad_types(amr):
    d = dim_of(amr)
    with pytest.raises(TypeError):
        amr.IntVect(1.5)
    with pytest.raises(TypeError):
        amr.IntVect("12"[:1] * d)
    with pytest.raises(TypeError):
        amr.IntVect([1.5] * d)
    with pytest.raises(TypeError):
        amr.IntVect(None)
    with pytest.raises(TypeError, match="positional"):
        amr.IntVect(v=1)


def test_constructor_overflow(amr):
    d = dim_of(amr)
    with pytest.raises(OverflowError, match="C int"):
        amr.IntVect(2**31)
    with pytest.raises(OverflowError, match="C int"):
        amr.IntVect([INT_MIN - 1] * d)
    assert list(amr.IntVect(INT_MIN)) == [INT_MIN] * d


def test_constructor_from_other_dimension_is_type_error():
    m3 = space(3)
    with pytest.raises(TypeError, match="dimension"):
        m3.IntVect(m3.IntVect2D(1, 2))


# ---- item access ---------------------------------------------------------------------

def test_getitem_negative_and_out_of_range(amr):
    d = dim_of(amr)
    vals = [10, 20, 30][:d]
    iv = amr.IntVect(vals)
    for i in range(-d, d):
        assert iv[i] == vals[i]
    for i in (d, d + 1, -d - 1, 2**70):
        with pytest.raises(IndexError, match="out of range"):
            iv[i]
    with pytest.raises(TypeError, match="integers"):
        iv[0.0]
    with pytest.raises(TypeError):
        iv["x"]


def test_setitem(amr):
    d = dim_of(amr)
    iv = amr.IntVect()
    iv[-1] = 42
    assert iv[d - 1] == 42
    assert iv.__setitem__(0, -3) == -3
    assert iv[0] == -3
    with pytest.raises(IndexError):
        iv[d] = 1
    with pytest.raises(OverflowError):
        iv[0] = 2**31
    with pytest.raises(TypeError):
        iv[0] = 1.0
    with pytest.raises(TypeError):
        del iv[0]


def test_len_iter(amr):
    d = dim_of(amr)
    vals = [5, 6, 7][:d]
    iv = amr.IntVect(vals)
    assert len(iv) == d
    assert list(iv) == vals and tuple(iv) == tuple(vals)
    assert [x for x in iv] == vals
    assert all(type(x) is int for x in iv)


# ---- comparison -----------------------------------------------------------------------

def test_eq_ne_with_intvect_and_int(amr):
    d = dim_of(amr)
    a = amr.IntVect(3)
    assert a == amr.IntVect(3) and not (a != amr.IntVect(3))
    assert a == 3 and a != 4 and not (a != 3)
    assert a != 2**40 and not (a == 2**40)
    if d > 1:
        b = amr.IntVect([3] * (d - 1) + [4])
        assert b != 3 and not (b == 3) and b != a
    assert (a == "x") is False and (a != None) is True  # noqa: E711


def test_ordering_is_lexicographic_highest_dim_first():
    m = space(3)
    a, b = m.IntVect(9, 0, 1), m.IntVect(0, 5, 1)
    assert a < b and a <= b and b > a and b >= a
    assert not (b < a) and not (a > b)
    assert a <= m.IntVect(9, 0, 1) and a >= m.IntVect(9, 0, 1) and not (a < m.IntVect(9, 0, 1))


def test_ordering_with_int_is_type_error(amr):
    with pytest.raises(TypeError):
        amr.IntVect() < 1


def test_mixing_dimensions_is_type_error():
    m = space(3)
    for op in ("==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/"):
        with pytest.raises(TypeError, match="dimension"):
            eval(f"a {op} b", {"a": m.IntVect3D(), "b": m.IntVect2D()})


def test_unhashable(amr):
    assert amr.IntVect.__hash__ is None
    with pytest.raises(TypeError, match="unhashable"):
        hash(amr.IntVect())
    with pytest.raises(TypeError):
        {amr.IntVect()}


# ---- arithmetic ----------------------------------------------------------------------

def test_arithmetic_examples():
    m = space(3)
    a, b = m.IntVect(7, -7, 9), m.IntVect(2, 2, -4)
    assert list(a + b) == [9, -5, 5]
    assert list(a - b) == [5, -9, 13]
    assert list(a * b) == [14, -14, -36]
    assert list(a / b) == [3, -3, -2]  # truncation, not floor
    assert list(a + 1) == [8, -6, 10]
    assert list(a - 1) == [6, -8, 8]
    assert list(a * 2) == [14, -14, 18]
    assert list(a / 2) == [3, -3, 4]
    assert type(a + b) is m.IntVect3D
    assert list(a) == [7, -7, 9]  # operands untouched


def test_inplace_arithmetic_mutates_self(amr):
    d = dim_of(amr)
    iv = amr.IntVect(10)
    alias = iv
    iv += 2
    iv -= amr.IntVect(1)
    iv *= amr.IntVect(3)
    iv /= 2
    assert iv is alias
    assert list(iv) == [16] * d


def test_division_by_zero(amr):
    d = dim_of(amr)
    iv = amr.IntVect(4)
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        iv / 0
    with pytest.raises(ZeroDivisionError):
        iv / amr.IntVect([1] * (d - 1) + [0])
    with pytest.raises(ZeroDivisionError):
        iv /= 0
    assert iv == 4


def test_overflow_raises_and_leaves_operand(amr):
    big = amr.IntVect.max_vector()
    with pytest.raises(OverflowError, match="C int"):
        big + 1
    with pytest.raises(OverflowError):
        amr.IntVect.min_vector() - 1
    with pytest.raises(OverflowError):
        big * 2
    with pytest.raises(OverflowError):
        amr.IntVect.min_vector() / -1
    with pytest.raises(OverflowError):
        big += 1
    assert big == INT_MAX
    with pytest.raises(OverflowError):
        amr.IntVect() + 2**31


def test_unsupported_operands(amr):
    iv = amr.IntVect(1)
    for other in (1.5, "a", None, [1, 2, 3]):
        with pytest.raises(TypeError):
            iv + other
    with pytest.raises(TypeError):
        iv // 2
    with pytest.raises(TypeError):
        1 + iv


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_arithmetic_matches_python_ints(data):
    d = data.draw(st.sampled_from([1, 2, 3]))
    m = space(d)
    a = data.draw(st.lists(cint, min_size=d, max_size=d))
    b = data.draw(st.lists(cint, min_size=d, max_size=d))
    ops = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y, "/": trunc_div}
    for sym, f in ops.items():
        if sym == "/" and 0 in b:
            continue
        expect = [f(x, y) for x, y in zip(a, b)]
        fits = all(INT_MIN <= e <= INT_MAX for e in expect)
        expr = f"x {sym} y"
        if fits:
            assert list(eval(expr, {"x": m.IntVect(a), "y": m.IntVect(b)})) == expect
        else:
            with pytest.raises(OverflowError):
                eval(expr, {"x": m.IntVect(a), "y": m.IntVect(b)})


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_ordering_matches_reversed_tuple_comparison(data):
    d = data.draw(st.sampled_from([1, 2, 3]))
    m = space(d)
    a = data.draw(st.lists(st.integers(-3, 3), min_size=d, max_size=d))
    b = data.draw(st.lists(st.integers(-3, 3), min_size=d, max_size=d))
    x, y = m.IntVect(a), m.IntVect(b)
    ra, rb = tuple(reversed(a)), tuple(reversed(b))
    assert (x < y) == (ra < rb)
    assert (x <= y) == (ra <= rb)
    assert (x > y) == (ra > rb)
    assert (x >= y) == (ra >= rb)
    assert (x == y) == (a == b)
    assert (x != y) == (a != b)


# ---- properties, conversions, statics ----------------------------------------------------

def test_sum_max_min_are_properties(amr):
    d = dim_of(amr)
    vals = [4, -9, 2][:d]
    iv = amr.IntVect(vals)
    assert iv.sum == sum(vals) and iv.max == max(vals) and iv.min == min(vals)
    for name in ("sum", "max", "min"):
        assert type(getattr(iv, name)) is int  # a property, not a method
        assert hasattr(type(iv).__dict__[name], "__get__")
        with pytest.raises(AttributeError):
            setattr(iv, name, 1)


def test_sum_does_not_overflow(amr):
    d = dim_of(amr)
    assert amr.IntVect.max_vector().sum == d * INT_MAX


def test_dim3(amr):
    d = dim_of(amr)
    vals = [4, -9, 2][:d]
    d3 = amr.IntVect(vals).dim3()
    assert isinstance(d3, amr.Dim3)
    assert (d3.x, d3.y, d3.z) == tuple(vals + [0] * (3 - d))


def test_numpy_has_every_component(amr):
    d = dim_of(amr)
    vals = [4, -9, 2][:d]
    a = amr.IntVect(vals).numpy()
    assert isinstance(a, np.ndarray) and a.dtype == np.int32 and a.shape == (d,)
    assert a.tolist() == vals


def test_static_vectors(amr):
    d = dim_of(amr)
    cls = amr.IntVect
    expect = {"zero_vector": 0, "unit_vector": 1, "cell_vector": 0, "node_vector": 1,
              "max_vector": INT_MAX, "min_vector": INT_MIN}
    for name, v in expect.items():
        r = getattr(cls, name)()
        assert type(r) is cls and list(r) == [v] * d
        assert list(getattr(cls(), name)()) == [v] * d  # reachable from an instance too
        assert isinstance(cls.__dict__[name], staticmethod)
        with pytest.raises(TypeError):
            getattr(cls, name)(1)


def test_static_vectors_of_other_dims_in_a_module():
    m = space(3)
    assert len(m.IntVect1D.unit_vector()) == 1 and len(m.IntVect2D.zero_vector()) == 2


def test_repr_and_str(amr):
    d = dim_of(amr)
    vals = [4, -9, 2][:d]
    iv = amr.IntVect(vals)
    r = repr(iv)
    assert r == f"<amrex.IntVect{d}D(" + ",".join(map(str, vals)) + ")>"  # pyAMReX's repr
    assert iv.__str() == str(iv) == "(" + ",".join(map(str, vals)) + ")"


def test_subclass_keeps_dimension():
    m = space(2)

    class Mine(m.IntVect2D):
        pass

    x = Mine(1, 2)
    assert list(x) == [1, 2] and x == m.IntVect(1, 2)
    assert list(Mine.zero_vector()) == [0, 0]


# ---- coarsen / refine --------------------------------------------------------------------

def test_coarsen_intvect_examples():
    m = space(3)
    r = m.coarsen(m.IntVect(-5, 7, -8), m.IntVect(2, 3, 4))
    assert type(r) is m.IntVect3D and list(r) == [-3, 2, -2]
    assert list(m.coarsen(m.IntVect(-1, -4, 5), 2)) == [-1, -2, 2]


def test_coarsen_accepts_every_dimension_in_every_module(amr):
    for k in (1, 2, 3):
        cls = getattr(amr, f"IntVect{k}D")
        r = amr.coarsen(cls([-3] * k), cls([2] * k))
        assert type(r) is cls and list(r) == [-2] * k


def test_coarsen_intvect_errors(amr):
    d = dim_of(amr)
    iv = amr.IntVect(5)
    with pytest.raises(ValueError, match="positive"):
        amr.coarsen(iv, 0)
    with pytest.raises(ValueError, match="positive"):
        amr.coarsen(iv, amr.IntVect([2] * (d - 1) + [-1]))
    other = amr.IntVect2D if d != 2 else amr.IntVect3D
    with pytest.raises(TypeError, match="dimension"):
        amr.coarsen(iv, other(2))
    with pytest.raises(TypeError, match="coarsen"):
        amr.coarsen(iv, 2.0)
    with pytest.raises(TypeError, match="coarsen"):
        amr.coarsen(1, 2)
    with pytest.raises(TypeError):
        amr.coarsen(iv)
    with pytest.raises(TypeError):
        amr.coarsen(iv=iv, ratio=2)
    with pytest.raises(OverflowError):
        amr.coarsen(iv, 2**31)


def test_coarsen_dim3(amr):
    r = amr.coarsen(amr.Dim3(-3, 4, 5), amr.IntVect2D(2, 2))
    assert isinstance(r, amr.Dim3) and (r.x, r.y, r.z) == (-2, 2, 5)
    r = amr.coarsen(amr.Dim3(-3, 4, -5), amr.IntVect3D(2, 3, 4))
    assert (r.x, r.y, r.z) == (-2, 1, -2)
    r = amr.coarsen(amr.Dim3(-3, 4, -5), amr.IntVect1D(4))
    assert (r.x, r.y, r.z) == (-1, 4, -5)
    with pytest.raises(ValueError, match="positive"):
        amr.coarsen(amr.Dim3(1, 1, 1), amr.IntVect3D(1, 0, 1))
    with pytest.raises(TypeError):
        amr.coarsen(amr.Dim3(1, 1, 1), [2, 2, 2])


def test_refine_dim3(amr):
    r = amr.refine(amr.Dim3(-3, 4, 5), amr.IntVect2D(2, 3))
    assert isinstance(r, amr.Dim3) and (r.x, r.y, r.z) == (-6, 12, 5)
    r = amr.refine(amr.Dim3(-3, 4, 5), amr.IntVect3D(2, 3, 4))
    assert (r.x, r.y, r.z) == (-6, 12, 20)
    with pytest.raises(OverflowError):
        amr.refine(amr.Dim3(2**30, 0, 0), amr.IntVect1D(2))
    with pytest.raises(ValueError, match="positive"):
        amr.refine(amr.Dim3(1, 1, 1), amr.IntVect1D(0))
    with pytest.raises(TypeError, match="refine"):
        amr.refine(amr.IntVect(1), amr.IntVect(2))
    with pytest.raises(TypeError):
        amr.refine(amr.Dim3(1, 1, 1), 2.0)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_coarsen_floors_like_python(data):
    k = data.draw(st.sampled_from([1, 2, 3]))
    m = space(data.draw(st.sampled_from([1, 2, 3])))
    cls = getattr(m, f"IntVect{k}D")
    p = data.draw(st.lists(cint, min_size=k, max_size=k))
    r = data.draw(st.lists(st.integers(1, INT_MAX), min_size=k, max_size=k))
    assert list(m.coarsen(cls(p), cls(r))) == [x // y for x, y in zip(p, r)]
    s = data.draw(positive)
    assert list(m.coarsen(cls(p), s)) == [x // s for x in p]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_coarsen_refine_dim3_round_trip(data):
    m = space(3)
    p = data.draw(st.lists(small, min_size=3, max_size=3))
    k = data.draw(st.sampled_from([1, 2, 3]))
    r = data.draw(st.lists(positive, min_size=k, max_size=k))
    ratio = getattr(m, f"IntVect{k}D")(r)
    full = r + [1] * (3 - k)
    c = m.coarsen(m.Dim3(*p), ratio)
    assert (c.x, c.y, c.z) == tuple(x // y for x, y in zip(p, full))
    f = m.refine(c, ratio)
    assert (f.x, f.y, f.z) == tuple((x // y) * y for x, y in zip(p, full))
    assert all(fi <= pi < fi + ri for fi, pi, ri in zip((f.x, f.y, f.z), p, full))
    assert math.prod(full) >= 1
