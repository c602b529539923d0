"""RealBox (API.md 1.12) and AlmostEqual, in every dimension."""
import itertools
import math
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import boxfab.space1d as amr1
import boxfab.space2d as amr2
import boxfab.space3d as amr3

MODULES = {1: amr1, 2: amr2, 3: amr3}
NAMES = {1: ["x"], 2: ["x", "y"], 3: ["x", "y", "z"]}


def dim_of(amr):
    return int(amr.__name__[-2])


def needs_box(amr):
    if not hasattr(amr, "Box"):
        pytest.skip("Box is not on this branch yet")


def test_default_is_invalid(amr):
    n = dim_of(amr)
    rb = amr.RealBox()
    assert rb.xlo == [0.0] * n and rb.xhi == [-1.0] * n
    assert not rb.ok() and rb.volume() == 0.0


def test_component_constructor_and_keywords(amr):
    n = dim_of(amr)
    lo, hi = [-1.0, 0.5, 2.0][:n], [1.0, 1.5, 4.0][:n]
    rb = amr.RealBox(*lo, *hi)
    assert rb.xlo == lo and rb.xhi == hi
    kw = {f"{c}_lo": v for c, v in zip(NAMES[n], lo)} | {f"{c}_hi": v for c, v in zip(NAMES[n], hi)}
    rb2 = amr.RealBox(**kw)
    assert rb2.xlo == lo and rb2.xhi == hi
    assert amr.RealBox(lo, hi).xhi == hi
    assert amr.RealBox(a_lo=tuple(lo), a_hi=np.array(hi)).xlo == lo
    assert amr.RealBox(*[int(x) for x in [0, 0, 0][:n]], *[1] * n).xhi == [1.0] * n


def test_constructor_bad_inputs(amr):
    n = dim_of(amr)
    with pytest.raises(TypeError, match="supported signatures"):
        amr.RealBox(*[0.0] * (2 * n + 1))
    with pytest.raises(TypeError, match="supported signatures"):
        amr.RealBox(*["a"] * (2 * n))
    with pytest.raises(ValueError, match="exactly"):
        amr.RealBox([0.0] * (n + 1), [1.0] * (n + 1))
    with pytest.raises(TypeError):
        amr.RealBox([0.0] * n, ["x"] * n)
    with pytest.raises(TypeError):
        amr.RealBox(w_lo=0.0, w_hi=1.0)
    if n < 3:  # names of higher dimensions do not exist in this module
        kw = {f"{c}_lo": 0.0 for c in "xyz"} | {f"{c}_hi": 1.0 for c in "xyz"}
        with pytest.raises(TypeError):
            amr.RealBox(**kw)


def test_box_constructor(amr):
    needs_box(amr)
    n = dim_of(amr)
    lo, hi = [2, -1, 0][:n], [5, 3, 7][:n]
    dx, base = [0.5, 0.25, 2.0][:n], [1.0, 0.0, -3.0][:n]
    rb = amr.RealBox(amr.Box(lo, hi), dx, base)
    assert rb.xlo == [b + d * l for b, d, l in zip(base, dx, lo)]
    assert rb.xhi == [b + d * (h + 1) for b, d, h in zip(base, dx, hi)]  # cell-centered: hi + 1
    rb = amr.RealBox(bx=amr.Box(lo, hi, amr.IndexType.node_type()) if hasattr(amr, "IndexType") else amr.Box(lo, hi),
                     dx=dx, base=base)
    if hasattr(amr, "IndexType"):
        assert rb.xhi == [b + d * h for b, d, h in zip(base, dx, hi)]  # nodal: hi
    with pytest.raises(ValueError):
        amr.RealBox(amr.Box(lo, hi), [1.0] * (n + 1), base)
    other = MODULES[n % 3 + 1]
    if hasattr(other, "Box"):
        m = n % 3 + 1
        with pytest.raises(TypeError, match="dimension"):
            amr.RealBox(other.Box([0] * m, [1] * m), dx, base)


def test_accessors_and_setters(amr):
    n = dim_of(amr)
    rb = amr.RealBox([0.0] * n, [1.0, 2.0, 3.0][:n])
    assert rb.lo() == [0.0] * n and rb.hi() == [1.0, 2.0, 3.0][:n]
    for d in range(n):
        assert rb.hi(d) == float(d + 1) and rb.lo(d - n) == 0.0
        assert rb.length(d) == float(d + 1)
    rb.setLo([-1.0] * n)
    rb.setHi(n - 1, 10.0)
    assert rb.lo() == [-1.0] * n and rb.hi(-1) == 10.0
    rb.setHi([5.0] * n)
    rb.setLo(0, 4.0)
    assert rb.xlo[0] == 4.0 and rb.xhi == [5.0] * n
    assert rb.setLo([0.0] * n) is None
    with pytest.raises(IndexError):
        rb.lo(n)
    with pytest.raises(IndexError):
        rb.hi(-n - 1)
    with pytest.raises(IndexError):
        rb.length(n)
    with pytest.raises(IndexError):
        rb.setLo(n, 1.0)
    with pytest.raises(ValueError):
        rb.setHi([1.0] * (n + 1))
    with pytest.raises(TypeError):
        rb.setHi(0, "x")
    with pytest.raises(TypeError):
        rb.lo(0, 1)
    with pytest.raises(AttributeError, match="not writable"):
        rb.xlo = [0.0] * n  # read-only property


def test_ok_and_volume(amr):
    n = dim_of(amr)
    rng = np.random.default_rng(5)
    for _ in range(50):
        lo, hi = rng.uniform(-2, 2, n), rng.uniform(-2, 2, n)
        rb = amr.RealBox(lo, hi)
        ok = bool(np.all(hi - lo >= 0))
        assert rb.ok() == ok
        assert rb.volume() == pytest.approx(float(np.prod(hi - lo)) if ok else 0.0, rel=1e-12)
    # AMReX_RealBox.H RealBox::ok(): every length(d) >= 0.0, so a flat box is ok
    # (volume 0) and a NaN corner is not; the default RealBox (lo 0, hi -1) is not.
    flat = amr.RealBox([0.0] * n, [0.0] * n)
    assert flat.ok() and flat.volume() == 0.0
    assert amr.RealBox([0.0] * n, [1.0] * (n - 1) + [0.0]).ok()
    assert not amr.RealBox([0.0] * n, [1.0] * (n - 1) + [math.nan]).ok()
    assert amr.RealBox([0.0] * n, [1.0] * (n - 1) + [math.nan]).volume() == 0.0
    assert amr.RealBox([-math.inf] * n, [math.inf] * n).ok()
    assert not amr.RealBox().ok() and amr.RealBox().volume() == 0.0


def test_contains_points_all_kinds(amr):
    n = dim_of(amr)
    rb = amr.RealBox([0.0] * n, [1.0] * n)
    inside = [0.5, 0.25, 0.75][:n]
    edge = [0.0, 0.5, 0.5][:n]
    outside = [1.5, 0.5, 0.5][:n]
    for p, want in [(inside, True), (edge, False), (outside, False)]:
        assert rb.contains(p) is want
        assert rb.contains(rb=tuple(p)) is want
        assert rb.contains(amr.RealVect(p)) is want
        assert rb.contains(amr.XDim3(*(p + [0.0] * (3 - n)))) is want
    assert rb.contains(edge, 1e-9) and rb.contains(edge, eps=1e-9)
    assert not rb.contains(outside, eps=0.4) and rb.contains(outside, eps=0.6)


def test_contains_box(amr):
    n = dim_of(amr)
    big = amr.RealBox([0.0] * n, [4.0] * n)
    assert big.contains(amr.RealBox([1.0] * n, [2.0] * n))
    assert not big.contains(big)  # strict, as AMReX: needs eps for the boundary
    assert big.contains(big, eps=1e-12)
    assert not big.contains(amr.RealBox([1.0] * n, [5.0] * n))


def test_contains_bad_inputs(amr):
    n = dim_of(amr)
    rb = amr.RealBox([0.0] * n, [1.0] * n)
    with pytest.raises(ValueError):
        rb.contains([0.5] * (n + 1))
    with pytest.raises(TypeError, match="supported signatures"):
        rb.contains("abc")
    with pytest.raises(TypeError, match="supported signatures"):
        rb.contains(3.0)
    with pytest.raises(TypeError):
        rb.contains([0.5] * n, eps="x")
    with pytest.raises(TypeError):
        rb.contains(p=[0.5] * n)
    m = n % 3 + 1
    other = MODULES[m]
    with pytest.raises(TypeError, match="dimension"):
        rb.contains(other.RealVect(0.5))
    with pytest.raises(TypeError, match="dimension"):
        rb.contains(other.RealBox([0.0] * m, [1.0] * m))


@pytest.mark.parametrize("n", [1, 2, 3])
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_intersects_brute_force(n, data):
    amr = MODULES[n]
    coord = st.integers(-3, 3).map(float)
    a = [sorted(data.draw(st.lists(coord, min_size=2, max_size=2))) for _ in range(n)]
    b = [sorted(data.draw(st.lists(coord, min_size=2, max_size=2))) for _ in range(n)]
    A = amr.RealBox([x[0] for x in a], [x[1] for x in a])
    B = amr.RealBox([x[0] for x in b], [x[1] for x in b])
    # closed intervals overlap in every direction (touching counts)
    want = all(max(x[0], y[0]) <= min(x[1], y[1]) for x, y in zip(a, b))
    assert A.intersects(B) == want == B.intersects(A)
    # containment of box corners, brute force over the strict rule
    want_c = all(x[0] < y[0] < x[1] and x[0] < y[1] < x[1] for x, y in zip(a, b))
    assert A.contains(B) == want_c


def test_intersects_bad_inputs(amr):
    n = dim_of(amr)
    rb = amr.RealBox([0.0] * n, [1.0] * n)
    with pytest.raises(TypeError):
        rb.intersects([0.0] * n)
    m = n % 3 + 1
    with pytest.raises(TypeError, match="dimension"):
        rb.intersects(MODULES[m].RealBox([0.0] * m, [1.0] * m))


def test_almost_equal(amr):
    n = dim_of(amr)
    a = amr.RealBox([0.0] * n, [1.0] * n)
    for d, corner in itertools.product(range(n), ("lo", "hi")):
        b = amr.RealBox(a.xlo, a.xhi)
        getattr(b, "setLo" if corner == "lo" else "setHi")(d, getattr(b, corner)(d) + 1e-6)
        assert not amr.AlmostEqual(a, b)
        assert amr.AlmostEqual(a, b, 1e-5) and amr.AlmostEqual(rb1=a, rb2=b, eps=1e-5)
        assert not amr.AlmostEqual(a, b, eps=1e-7)
    assert amr.AlmostEqual(a, amr.RealBox(a.xlo, a.xhi))
    with pytest.raises(TypeError):
        amr.AlmostEqual(a, [0.0] * n)
    # AMReX_RealBox.cpp AlmostEqual: |x - y| <= eps OR amrex::almostEqual(x, y)
    # (AMReX_Algorithm.H: |x - y| <= DBL_EPSILON * |x + y| * 2, or |x - y| < DBL_MIN),
    # near 1.0 (|x + y| ~ 2) corners up to 4 ulps apart are equal even with eps = 0.
    def amrex_almost_equal(x, y):
        return abs(x - y) <= sys.float_info.epsilon * abs(x + y) * 2 or abs(x - y) < sys.float_info.min

    for ulps in range(1, 8):
        hi = 1.0
        for _ in range(ulps):
            hi = math.nextafter(hi, 2.0)
        want = amrex_almost_equal(1.0, hi)
        assert want == (ulps <= 4)
        assert amr.AlmostEqual(a, amr.RealBox([0.0] * n, [1.0] * (n - 1) + [hi])) is want
    tiny = amr.RealBox([5e-324] * n, [1.0] * n)  # differences below DBL_MIN count as equal
    assert amr.AlmostEqual(a, tiny) and amr.AlmostEqual(tiny, a)
    inf = amr.RealBox([0.0] * n, [math.inf] * n)  # inf - inf is NaN: never equal
    assert not amr.AlmostEqual(inf, inf, 1e300)
    nan = amr.RealBox([math.nan] * n, [1.0] * n)
    assert not amr.AlmostEqual(nan, nan)
    with pytest.raises(TypeError):
        amr.AlmostEqual(a)
    m = n % 3 + 1
    with pytest.raises(TypeError, match="dimension"):
        amr.AlmostEqual(a, MODULES[m].RealBox([0.0] * m, [1.0] * m))


def test_repr(amr):
    n = dim_of(amr)
    rb = amr.RealBox([0.0] * n, [0.5] * n)
    assert "RealBox" in repr(rb) and "0.5" in repr(rb)
    assert rb.__str() == repr(rb) == str(rb)
