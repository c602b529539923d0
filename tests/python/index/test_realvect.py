"""RealVect (API.md 1.13) and the module functions min / max, in every dimension."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import boxfab.space1d as amr1
import boxfab.space2d as amr2
import boxfab.space3d as amr3

MODULES = {1: amr1, 2: amr2, 3: amr3}
finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
nonzero = finite.filter(lambda x: abs(x) > 1e-3)


def dim_of(amr):
    return amr.Config.spacedim if hasattr(amr, "Config") else int(amr.__name__[-2])


def arr(rv):
    return np.array(list(rv), dtype=float)


def vec(amr, values):
    return amr.RealVect(list(values))


# ---- construction -------------------------------------------------------------------
def test_constructors(amr):
    n = dim_of(amr)
    assert list(amr.RealVect()) == [0.0] * n
    assert list(amr.RealVect(2.5)) == [2.5] * n
    assert list(amr.RealVect([1, 2, 3][:n])) == [1.0, 2.0, 3.0][:n]
    assert list(amr.RealVect((1.5, -2.0, 7.0)[:n])) == [1.5, -2.0, 7.0][:n]
    assert list(amr.RealVect(np.arange(n) + 0.5)) == list(np.arange(n) + 0.5)
    assert list(amr.RealVect(amr.IntVect([4, -5, 6][:n]))) == [4.0, -5.0, 6.0][:n]
    if n > 1:
        assert list(amr.RealVect(*[1.0, 2.0, 3.0][:n])) == [1.0, 2.0, 3.0][:n]
    assert isinstance(amr.RealVect(1), amr.RealVect)


def test_constructor_bad_inputs(amr):
    n = dim_of(amr)
    with pytest.raises(ValueError, match="exactly"):
        amr.RealVect([1.0] * (n + 1))
    with pytest.raises(TypeError, match="real number"):
        amr.RealVect(["a"] * n)
    with pytest.raises(TypeError):
        amr.RealVect("abc")
    with pytest.raises(TypeError):
        amr.RealVect(None)
    with pytest.raises(TypeError, match="takes"):
        amr.RealVect(*([1.0] * (n + 1)))
    with pytest.raises(TypeError, match="positional"):
        amr.RealVect(x=1.0)
    other = MODULES[n % 3 + 1]
    with pytest.raises(TypeError, match="dimension"):
        amr.RealVect(other.IntVect(1))
    with pytest.raises(TypeError, match="dimension"):
        amr.RealVect(other.RealVect(1.0))


# ---- item access ----------------------------------------------------------------------------
def test_items(amr):
    n = dim_of(amr)
    v = amr.RealVect([1.0, 2.0, 3.0][:n])
    assert len(v) == n
    for i in range(n):
        assert v[i] == float(i + 1)
        assert v[i - n] == float(i + 1)
    v[n - 1] = 9.5
    assert v[-1] == 9.5
    v[-n] = 4
    assert v[0] == 4.0 and isinstance(v[0], float)
    with pytest.raises(IndexError, match="out of range"):
        v[n]
    with pytest.raises(IndexError):
        v[-n - 1]
    with pytest.raises(IndexError):
        v[n] = 1.0
    with pytest.raises(TypeError):
        v[0] = "x"
    with pytest.raises(TypeError):
        v["a"]
    with pytest.raises(TypeError):
        del v[0]
    assert tuple(v) == tuple(arr(v))


def test_unhashable_and_repr(amr):
    v = amr.RealVect(1.5)
    with pytest.raises(TypeError):
        hash(v)
    assert "RealVect" in repr(v) and "1.5" in repr(v)
    assert v.__str() == repr(v) and str(v) == repr(v)


# ---- arithmetic against NumPy -------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 3])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_arithmetic_matches_numpy(n, data):
    amr = MODULES[n]
    a = np.array(data.draw(st.lists(finite, min_size=n, max_size=n)))
    b = np.array(data.draw(st.lists(nonzero, min_size=n, max_size=n)))
    s = data.draw(nonzero)
    A, B = vec(amr, a), vec(amr, b)
    for got, want in [
        (A + B, a + b), (A - B, a - b), (A * B, a * b), (A / B, a / b),
        (A + s, a + s), (A - s, a - s), (A * s, a * s), (A / s, a / s),
        (s + B, s + b), (s - B, s - b), (s * B, s * b), (s / B, s / b),
        (-A, -a), (+A, a),
    ]:
        assert isinstance(got, amr.RealVect)
        np.testing.assert_array_equal(arr(got), want)
    np.testing.assert_array_equal(arr(A), a)  # operands untouched
    # summation order may differ from NumPy's: the error scales with sum |a_i b_i| (cancellation)
    scale = float(np.abs(a * b).sum())
    assert A.dotProduct(B) == pytest.approx(float(np.dot(a, b)), rel=1e-12, abs=4 * n * 2.3e-16 * scale + 1e-300)
    assert A.sum == pytest.approx(float(a.sum()), rel=1e-12, abs=1e-9)
    assert A.product == pytest.approx(float(np.prod(a)), rel=1e-12)
    assert A.radSquared == pytest.approx(float(np.dot(a, a)), rel=1e-12)
    assert A.vectorLength == pytest.approx(float(np.linalg.norm(a)), rel=1e-12)


@pytest.mark.parametrize("op", ["__iadd__", "__isub__", "__imul__", "__itruediv__"])
def test_inplace_keeps_identity(amr, op):
    n = dim_of(amr)
    a = np.array([1.0, -2.0, 4.0][:n])
    b = np.array([0.5, 8.0, -2.0][:n])
    for other, ref in [(vec(amr, b), b), (2.0, 2.0)]:
        v = vec(amr, a)
        ident = id(v)
        w = v
        w = getattr(w, op)(other)
        assert id(w) == ident
        want = {"__iadd__": a + ref, "__isub__": a - ref, "__imul__": a * ref, "__itruediv__": a / ref}[op]
        np.testing.assert_array_equal(arr(v), want)
    v = vec(amr, a)
    v += 1
    v *= vec(amr, b)
    v -= 0.5
    v /= 4.0
    np.testing.assert_array_equal(arr(v), ((a + 1) * b - 0.5) / 4.0)


def test_arithmetic_bad_operands(amr):
    n = dim_of(amr)
    v = amr.RealVect(1.0)
    other = MODULES[n % 3 + 1].RealVect(1.0)
    for bad in ("x", None, [1.0] * n, amr.IntVect(1)):
        with pytest.raises(TypeError):
            v + bad
        with pytest.raises(TypeError):
            bad * v
    with pytest.raises(TypeError, match="dimension"):
        v + other
    with pytest.raises(TypeError, match="dimension"):
        v -= other
    with pytest.raises(TypeError, match="dimension"):
        v.dotProduct(other)
    with pytest.raises(TypeError, match="dimension"):
        v == other
    # IEEE division by zero, like C++ RealVect
    assert all(math.isinf(x) for x in v / 0.0)


# ---- comparisons: AMReX's all-components rule ------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 3])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_comparisons_all_components(n, data):
    amr = MODULES[n]
    small = st.integers(-2, 2).map(float)
    a = np.array(data.draw(st.lists(small, min_size=n, max_size=n)))
    b = np.array(data.draw(st.lists(small, min_size=n, max_size=n)))
    A, B = vec(amr, a), vec(amr, b)
    assert (A == B) == bool(np.all(a == b))
    assert (A != B) == bool(np.any(a != b))
    assert (A < B) == bool(np.all(a < b))
    assert (A <= B) == bool(np.all(a <= b))
    assert (A > B) == bool(np.all(a > b))
    assert (A >= B) == bool(np.all(a >= b))


def test_comparison_is_not_lexicographic():
    a, b = amr2.RealVect(0.0, 5.0), amr2.RealVect(1.0, 0.0)
    assert not (a < b) and not (a > b) and not (a >= b) and not (a <= b) and a != b
    assert (amr2.RealVect(1.0) == 1.0) is False  # only RealVect operands compare


# ---- methods ------------------------------------------------------------------------------------------------
def test_cross_product_only_in_3d(amr):
    n = dim_of(amr)
    if n != 3:
        assert not hasattr(amr.RealVect(), "crossProduct")
        with pytest.raises(AttributeError):
            amr.RealVect(1.0).crossProduct(amr.RealVect(1.0))
        return
    rng = np.random.default_rng(1)
    for _ in range(20):
        a, b = rng.normal(size=3), rng.normal(size=3)
        got = vec(amr, a).crossProduct(vec(amr, b))
        np.testing.assert_allclose(arr(got), np.cross(a, b), rtol=1e-12, atol=1e-14)
    with pytest.raises(TypeError):
        amr.RealVect().crossProduct([1.0, 2.0, 3.0])


def half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def test_rounding_to_intvect(amr):
    n = dim_of(amr)
    rng = np.random.default_rng(7)
    cases = [rng.uniform(-100, 100, n) for _ in range(30)]
    cases += [np.array([-1.5, 2.5, -0.5][:n]), np.array([0.5, -2.5, 1e9][:n])]
    for a in cases:
        v = vec(amr, a)
        for meth, ref in [("floor", np.floor), ("ceil", np.ceil), ("round", half_away)]:
            got = getattr(v, meth)()
            assert isinstance(got, amr.IntVect)
            assert list(got) == [int(x) for x in ref(a)], (meth, a)
    with pytest.raises(OverflowError, match="does not fit"):
        amr.RealVect(3e9).floor()
    with pytest.raises(OverflowError):
        amr.RealVect(-3e9).ceil()
    with pytest.raises(ValueError, match="NaN"):
        amr.RealVect(float("nan")).round()


def test_scale_min_max_in_place(amr):
    n = dim_of(amr)
    a = np.array([1.0, -4.0, 2.0][:n])
    b = np.array([0.0, 3.0, 2.0][:n])
    v = vec(amr, a)
    r = v.scale(-2.0)
    assert r is v
    np.testing.assert_array_equal(arr(v), -2.0 * a)
    v = vec(amr, a)
    assert v.min(vec(amr, b)) is v
    np.testing.assert_array_equal(arr(v), np.minimum(a, b))
    v = vec(amr, a)
    assert v.max(vec(amr, b)) is v
    np.testing.assert_array_equal(arr(v), np.maximum(a, b))
    with pytest.raises(TypeError):
        v.scale("x")
    with pytest.raises(TypeError):
        v.min(1.0)


def test_module_min_max(amr):
    n = dim_of(amr)
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=n), rng.normal(size=n)
    A, B = vec(amr, a), vec(amr, b)
    lo, hi = amr.min(A, B), amr.max(A, B)
    assert lo is not A and lo is not B
    np.testing.assert_array_equal(arr(lo), np.minimum(a, b))
    np.testing.assert_array_equal(arr(hi), np.maximum(a, b))
    np.testing.assert_array_equal(arr(A), a)
    with pytest.raises(TypeError):
        amr.min(A)
    with pytest.raises(TypeError):
        amr.max(A, [1.0] * n)
    with pytest.raises(TypeError, match="dimension"):
        amr.min(A, MODULES[n % 3 + 1].RealVect())


@pytest.mark.parametrize("n", [1, 2, 3])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_min_max_dir(n, data):
    amr = MODULES[n]
    a = np.array(data.draw(st.lists(st.integers(-3, 3).map(float), min_size=n, max_size=n)))
    v = vec(amr, a)
    assert v.minDir(False) == int(np.argmin(a))  # first occurrence on ties, as AMReX
    assert v.maxDir(False) == int(np.argmax(a))
    assert v.minDir(True) == int(np.argmin(np.abs(a)))
    assert v.maxDir(True) == int(np.argmax(np.abs(a)))


def test_static_vectors(amr):
    n = dim_of(amr)
    assert list(amr.RealVect.zero_vector()) == [0.0] * n
    assert list(amr.RealVect.unit_vector()) == [1.0] * n
    for d in range(n):
        e = amr.RealVect.BASISREALV(d)
        assert list(e) == [1.0 if i == d else 0.0 for i in range(n)]
        assert amr.RealVect.BASISREALV(dir=d) == e
    assert amr.RealVect.BASISREALV(-1)[n - 1] == 1.0
    with pytest.raises(IndexError):
        amr.RealVect.BASISREALV(n)
    with pytest.raises(TypeError):
        amr.RealVect.BASISREALV(0.5)


def test_copy_by_constructor(amr):
    v = amr.RealVect(2.0)
    w = amr.RealVect(v)
    w[0] = 5.0
    assert v[0] == 2.0 and w[0] == 5.0


def test_sums_keep_the_sign_of_zero(amr):
    # AMReX_RealVect.H: sum() is v[0] + v[1] + v[2], dotProduct() v[0]*w[0] + v[1]*w[1] + ...,
    # radSquared() v[0]*v[0] + ... (AMREX_D_TERM, no 0.0 to start from), so an all -0.0 sum
    # is -0.0 (0.0 + -0.0 would be +0.0).
    n = len(amr.RealVect())
    mz = amr.RealVect([-0.0] * n)
    assert mz.sum == 0.0 and math.copysign(1.0, mz.sum) == -1.0
    d = mz.dotProduct(amr.RealVect([1.0] * n))
    assert d == 0.0 and math.copysign(1.0, d) == -1.0
    assert math.copysign(1.0, mz.radSquared) == 1.0 and mz.vectorLength == 0.0
    v = amr.RealVect([0.1, 0.2, 0.3][:n])
    want = 0.1
    for x in [0.2, 0.3][: n - 1]:
        want = want + x
    assert v.sum == want
