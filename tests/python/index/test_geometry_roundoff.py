"""Geometry's round-off domain (insideRoundOffDomain, outsideRoundOffDomain, RoundOffLo/Hi,
computeRoundoffDomain) against AMReX: literal answers of AMReX's own code and a pure-Python
model of AMReX's rule (AMReX_Geometry.cpp, Geometry::computeRoundoffDomain and
Geometry::outsideRoundoffDomain)."""
import math
import sys

import pytest
from hypothesis import given, settings, strategies as st

import boxfab.space1d as amr1
import boxfab.space2d as amr2
import boxfab.space3d as amr3

MODULES = {1: amr1, 2: amr2, 3: amr3}
EPS = sys.float_info.epsilon
LOWEST = -sys.float_info.max
MAXITERS = 200


def geometry_1d(plo, phi, ncell, small=0):
    return amr1.Geometry(amr1.Box([small], [small + ncell - 1]), amr1.RealBox([plo], [phi]), 0, [0])


# ---- a model of AMReX's rule, written from its description ------------------------------
def amrex_roundoff(plo, phi, ncell):
    """(roundoff_lo, roundoff_hi) as AMReX's Geometry::computeRoundoffDomain finds them, or
    None where its AMREX_ALWAYS_ASSERT fails (AMReX aborts).  In AMReX a position is
    "inside" when int(floor((x - plo) * dxinv)) lies in [0, ncell); the search walks out
    from prob_lo / prob_hi by doubling steps of eps * (rhi - rlo), then bisects until the
    point 2 eps max(dx, |r|) beyond is outside; each loop stops after 200 steps."""
    dx = (phi - plo) / ncell
    dxinv = 1.0 / dx

    def outside(x):
        v = (x - plo) * dxinv
        if math.isnan(v) or math.isinf(v):
            return True
        f = math.floor(v)
        if f < -2**31 or f > 2**31 - 1:  # int() of it is INT_MIN on x86-64: outside
            return True
        return f < 0 or f >= ncell

    def inside(x):
        return not outside(x)

    def bigger(a, b):  # std::max(a, b)
        return b if a < b else a

    rlo, rhi = plo, phi
    if inside(rlo):
        eps, it = EPS * (rhi - rlo), 0
        rlo_out = rlo - eps
        while inside(rlo_out) and it < MAXITERS:
            eps *= 2.0
            rlo_out = rlo - eps
            it += 1
        if not (rlo_out > LOWEST and it < MAXITERS):
            return None
    else:
        eps, it = EPS * (rhi - rlo), 0
        rtmp = rlo + eps
        while outside(rtmp) and it < MAXITERS:
            eps *= 2.0
            rtmp = rlo + eps
            it += 1
        rlo_out, rlo = rlo, rtmp
        if not (rtmp > LOWEST and it < MAXITERS):
            return None
    it = 0
    e = EPS * bigger(dx, abs(rlo)) * 2.0
    minus = rlo - e
    minus_in = inside(minus)
    while minus_in and it < MAXITERS:
        mid = 0.5 * (rlo_out + rlo)
        if mid == rlo_out or mid == rlo:
            break
        if inside(mid):
            rlo = mid
            e = EPS * bigger(dx, abs(rlo)) * 2.0
            minus = rlo - e
            minus_in = inside(minus)
        else:
            rlo_out = mid
        it += 1
    if not (minus > LOWEST and it < MAXITERS):
        return None
    if inside(rhi):
        eps, it = EPS * (rhi - rlo), 0
        rhi_out = rhi + eps
        while inside(rhi_out) and it < MAXITERS:
            eps *= 2.0
            rhi_out = rhi + eps
            it += 1
        if not (rhi_out > LOWEST and it < MAXITERS):
            return None
    else:
        eps, it = EPS * (rhi - rlo), 0
        rtmp = rhi - eps
        while outside(rtmp) and it < MAXITERS:
            eps *= 2.0
            rtmp = rhi - eps
            it += 1
        rhi_out, rhi = rhi, rtmp
        if not (rtmp > LOWEST and it < MAXITERS):
            return None
    it = 0
    e = EPS * bigger(dx, abs(rhi)) * 2.0
    plus = rhi + e
    plus_in = inside(plus)
    while plus_in and it < MAXITERS:
        mid = 0.5 * (rhi + rhi_out)
        if mid == rhi or mid == rhi_out:
            break
        if inside(mid):
            rhi = mid
            e = EPS * bigger(dx, abs(rhi)) * 2.0
            plus = rhi + e
            plus_in = inside(plus)
        else:
            rhi_out = mid
        it += 1
    if not (plus > LOWEST and it < MAXITERS):
        return None
    return rlo, rhi


# ---- AMReX's own answers ------------------------------------------------------------------
# (prob_lo, prob_hi, ncell) -> (roundoff_lo, roundoff_hi) as printed (%a) by AMReX's
# Geometry::computeRoundoffDomain itself (AMReX_Geometry.cpp, Oct 2024, g++ -O3 on x86-64;
# read off a local build of that function, which is not part of boxfab).
AMREX_ANSWERS = [
    (0.0, 1.0, 128, "0x0p+0", "0x1.ffffffffffffep-1"),  # prob_hi and the double below it: outside
    (0.0, 0.6, 7, "0x0p+0", "0x1.3333333333333p-1"),  # prob_hi maps into the last cell: inside
    (0.1, 1.0, 7, "0x1.999999999999ap-4", "0x1p+0"),  # likewise
    (0.0, 2.0, 6, "0x0p+0", "0x1.ffffffffffffep+0"),
    (1.0002, 4.2, 8, "0x1.000d1b71758e2p+0", "0x1.0ccccccccccccp+2"),
    (0.00105, 5.0, 10, "0x1.13404ea4a8c15p-10", "0x1.3ffffffffffffp+2"),
    (0.3, 9.3, 7, "0x1.3333333333333p-2", "0x1.299999999999ap+3"),
    (-3.5, -0.5, 3, "-0x1.cp+1", "-0x1.0000000000006p-1"),  # 3 ulps inside prob_hi
    (1e16, 1.0000000000000002e16, 1000, "0x1.1c37937e08p+53", "0x1.1c37937e08p+53"),  # dx < ulp
    (-1e-300, 1e-300, 10, "-0x1.56e1fc2f8f359p-997", "0x1.56e1fc2f8f356p-997"),
    (0.0, 1.0, 2**30, "0x0p+0", "0x1.ffffffffffffep-1"),
]


@pytest.mark.parametrize("plo, phi, n, rlo, rhi", AMREX_ANSWERS)
def test_roundoff_equals_amrex(plo, phi, n, rlo, rhi):
    rlo, rhi = float.fromhex(rlo), float.fromhex(rhi)
    assert amrex_roundoff(plo, phi, n) == (rlo, rhi)  # the model agrees with AMReX too
    for small in (0, -7):  # the index domain's position does not matter
        g = geometry_1d(plo, phi, n, small)
        assert g.RoundOffLo() == [rlo] and g.RoundOffHi() == [rhi]
        # AMReX's outsideRoundoffDomain: x < roundoff_lo || x > roundoff_hi (both ends inside)
        assert g.insideRoundOffDomain(rlo) and g.insideRoundOffDomain(x=rhi)
        assert g.outsideRoundOffDomain(math.nextafter(rlo, -math.inf))
        assert g.outsideRoundOffDomain(math.nextafter(rhi, math.inf))
        assert not g.outsideRoundOffDomain(rhi)


def test_prob_hi_inside_when_it_maps_into_the_last_cell():
    # [0, 0.6] with 7 cells: floor((0.6 - 0) * (1 / dx)) == 6, the last cell, and AMReX's
    # roundoff_hi is prob_hi itself, so prob_hi is inside (boxfab used to say outside).
    g = geometry_1d(0.0, 0.6, 7)
    assert math.floor((0.6 - 0.0) * (1.0 / (0.6 / 7))) == 6
    assert g.insideRoundOffDomain(0.6) and not g.outsideRoundOffDomain(0.6)
    # [0, 1] with 128 cells: prob_hi maps to cell 128, outside
    assert geometry_1d(0.0, 1.0, 128).outsideRoundOffDomain(1.0)


def test_pyamrex_roundoff_case():
    # pyAMReX tests/test_geometry.py::test_roundoff_domain (3D)
    g = amr3.Geometry(amr3.Box([-1, -2, -3], [4, 5, 6]), amr3.RealBox(0, 1.0002, 0.00105, 2, 4.2, 5), 1, [0, 0, 1])
    assert g.outsideRoundOffDomain(-1.0, 1, 2) and not g.insideRoundOffDomain(-1.0, 1, 2)
    assert g.insideRoundOffDomain(1.00, 2.0, 2) and not g.outsideRoundOffDomain(1.00, 2.0, 2)
    want = [amrex_roundoff(lo, hi, n) for lo, hi, n in [(0, 2, 6), (1.0002, 4.2, 8), (0.00105, 5, 10)]]
    assert g.RoundOffLo() == [w[0] for w in want] and g.RoundOffHi() == [w[1] for w in want]
    # every direction counts
    rhi = g.RoundOffHi()
    assert g.insideRoundOffDomain(*rhi)
    for d in range(3):
        p = list(rhi)
        p[d] = math.nextafter(p[d], math.inf)
        assert g.outsideRoundOffDomain(*p)


@settings(max_examples=300, deadline=None)
@given(plo=st.one_of(st.floats(-1e3, 1e3), st.integers(-50, 50).map(float),
                    st.decimals(-10, 10, places=3).map(float)),
       length=st.one_of(st.floats(1e-9, 1e4), st.integers(1, 100).map(float),
                        st.decimals("0.001", 10, places=3).map(float)),
       n=st.one_of(st.integers(1, 2000), st.sampled_from([2**20, 3**10, 10**6, 2**30])),
       small=st.integers(-1000, 1000))
def test_roundoff_matches_model(plo, length, n, small):
    phi = plo + length
    if not (plo < phi and math.isfinite(phi)):
        return
    want = amrex_roundoff(plo, phi, n)
    if want is None:  # AMReX aborts: boxfab refuses
        with pytest.raises(ValueError, match="round-off"):
            geometry_1d(plo, phi, n, small)
        return
    g = geometry_1d(plo, phi, n, small)
    assert (g.RoundOffLo()[0], g.RoundOffHi()[0]) == want
    # and every position inside maps to a cell of the domain
    dx = g.data().dx[0]
    for x in (want[0], want[1], 0.5 * (want[0] + want[1])):
        assert g.insideRoundOffDomain(x)
        assert 0 <= math.floor((x - plo) * (1.0 / dx)) < n


def test_degenerate_domains_are_refused():
    # AMReX's computeRoundoffDomain hits AMREX_ALWAYS_ASSERT (abort) for these
    for plo, phi in [(0.0, 1e-320), (-1e308, 1e308)]:
        assert amrex_roundoff(plo, phi, 10) is None
        with pytest.raises(ValueError, match="round-off domain cannot be computed"):
            geometry_1d(plo, phi, 10)


def test_nan_position_raises():
    # AMReX answers "inside" for NaN (no comparison with it fails); boxfab raises instead
    for n, amr in MODULES.items():
        g = amr.Geometry(amr.Box([0] * n, [3] * n), amr.RealBox([0.0] * n, [1.0] * n), 0, [0] * n)
        for d in range(n):
            p = [0.5] * n
            p[d] = math.nan
            with pytest.raises(ValueError, match="NaN"):
                g.insideRoundOffDomain(*p)
            with pytest.raises(ValueError, match="NaN"):
                g.outsideRoundOffDomain(*p)
        assert g.outsideRoundOffDomain(*[math.inf] * n) and g.outsideRoundOffDomain(*[-math.inf] * n)


def test_coarsen_refine_keep_roundoff_domain():
    # AMReX's Geometry::coarsen / refine recompute dx and inv_dx only; the round-off
    # domain stays that of the old domain until computeRoundoffDomain is called.
    g = geometry_1d(-3.5, -0.5, 3)
    old = (g.RoundOffLo(), g.RoundOffHi())
    g.refine([4])
    assert g.data().dx == [(-0.5 - -3.5) / 12]
    assert (g.RoundOffLo(), g.RoundOffHi()) == old
    g.computeRoundoffDomain()
    assert (g.RoundOffLo()[0], g.RoundOffHi()[0]) == amrex_roundoff(-3.5, -0.5, 12) != (old[0][0], old[1][0])
    g.coarsen(amr1.IntVect(4))
    assert g.RoundOffHi()[0] == amrex_roundoff(-3.5, -0.5, 12)[1]
    g.computeRoundoffDomain()
    assert g.RoundOffHi() == old[1]


def test_setters_recompute_roundoff_domain():
    g = geometry_1d(0.0, 1.0, 128)
    g.prob_domain = amr1.RealBox([0.0], [0.6])
    assert g.RoundOffHi()[0] == amrex_roundoff(0.0, 0.6, 128)[1]
    g.domain = amr1.Box([5], [11])
    assert g.RoundOffHi() == [0.6] and g.insideRoundOffDomain(0.6)
    g.ProbDomain(amr1.RealBox([0.1], [1.0]))
    assert g.RoundOffHi() == [1.0] and g.RoundOffLo() == [0.1]


def test_undefined_geometry_roundoff_is_empty():
    for n, amr in MODULES.items():
        g = amr.Geometry()
        assert g.outsideRoundOffDomain(*[0.0] * n) and not g.insideRoundOffDomain(*[-1.0] * n)
        assert g.RoundOffLo() == [math.inf] * n and g.RoundOffHi() == [-math.inf] * n
