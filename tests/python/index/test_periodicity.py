"""Periodicity (API.md 1.17), in every dimension."""
import itertools

import pytest

import boxfab.space1d as amr1
import boxfab.space2d as amr2
import boxfab.space3d as amr3

MODULES = {1: amr1, 2: amr2, 3: amr3}
INT_MIN, INT_MAX = -(2**31), 2**31 - 1


def dim_of(amr):
    return int(amr.__name__[-2])


def all_periods(n):
    return [list(p) for p in itertools.product([0, 1, 3], repeat=n)]


def test_default_and_non_periodic(amr):
    n = dim_of(amr)
    for p in (amr.Periodicity(), amr.Periodicity.non_periodic()):
        assert not p.is_any_periodic and not p.is_all_periodic
        assert all(not p[d] and not p.is_periodic(d) for d in range(n))
    assert amr.Periodicity() == amr.Periodicity.non_periodic()


def test_flags_against_brute_force(amr):
    n = dim_of(amr)
    for per in all_periods(n):
        for p in (amr.Periodicity(amr.IntVect(per)), amr.Periodicity(per)):
            for d in range(n):
                assert p.is_periodic(d) == (per[d] > 0) == p[d] == p.is_periodic(dir=d)
                assert p[d - n] == p[d]
            assert p.is_any_periodic == any(x > 0 for x in per)
            assert p.is_all_periodic == all(x > 0 for x in per)


def test_equality_and_hash(amr):
    n = dim_of(amr)
    a = amr.Periodicity([2] * n)
    assert a == amr.Periodicity([2] * n)
    assert not (a != amr.Periodicity([2] * n))
    assert a != amr.Periodicity([3] * n)
    assert (a == 5) is False
    with pytest.raises(TypeError):
        hash(a)
    m = n % 3 + 1
    with pytest.raises(TypeError, match="dimension"):
        a == MODULES[m].Periodicity()


def test_domain(amr):
    if not hasattr(amr, "Box"):
        pytest.skip("Box is not on this branch yet")
    n = dim_of(amr)
    for per in all_periods(n):
        dom = amr.Periodicity(per).domain
        assert isinstance(dom, amr.Box) and dom.cell_centered
        for d in range(n):
            if per[d]:
                assert (dom.small_end[d], dom.big_end[d]) == (0, per[d] - 1)
            else:  # "infinite": the whole int range (AMReX's choice)
                assert (dom.small_end[d], dom.big_end[d]) == (INT_MIN, INT_MAX - 1)


def test_shift_intvect_brute_force(amr):
    n = dim_of(amr)
    for per in all_periods(n):
        shifts = amr.Periodicity(per).shift_IntVect
        assert all(isinstance(s, amr.IntVect) for s in shifts)
        got = [tuple(s) for s in shifts]
        choices = [(-p, 0, p) if p else (0,) for p in per]
        want = list(itertools.product(*choices))  # x slowest, the zero shift included
        assert got == want
        assert len(got) == 3 ** sum(1 for p in per if p)


def test_bad_inputs(amr):
    n = dim_of(amr)
    p = amr.Periodicity([1] * n)
    with pytest.raises(IndexError):
        p[n]
    with pytest.raises(IndexError):
        p.is_periodic(-n - 1)
    with pytest.raises(TypeError):
        p["x"]
    with pytest.raises(ValueError, match=">= 0"):
        amr.Periodicity([-1] * n)
    with pytest.raises(ValueError, match="exactly"):
        amr.Periodicity([1] * (n + 1))
    with pytest.raises(TypeError):
        amr.Periodicity(1.5)
    with pytest.raises(TypeError):
        amr.Periodicity([1] * n, [1] * n)
    with pytest.raises(TypeError):
        amr.Periodicity(period=[1] * n)
    with pytest.raises(OverflowError):
        amr.Periodicity([2**31] * n)
    m = n % 3 + 1
    with pytest.raises(TypeError, match="dimension"):
        amr.Periodicity(MODULES[m].IntVect(1))
    with pytest.raises(AttributeError):
        p.is_any_periodic = True
    assert "Periodicity" in repr(p)
