"""Box (API.md 1.9) and the module functions lbound/ubound/length/begin/end of Boxes (1.1).

References are brute force: points are enumerated with itertools, counts and
predicates are compared with those sets, coarsening with Python's `//`."""
import importlib
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

INT_MAX = 2**31 - 1
INT_MIN = -(2**31)

hyp = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def dim_of(amr):
    return int(amr.__name__[-2])


def other_module(amr):
    d = dim_of(amr)
    return importlib.import_module(f"boxfab.space{d % 3 + 1}d")


def ref_points(lo, hi):
    """Every point of the box lo..hi, first direction fastest."""
    ranges = [range(l, h + 1) for l, h in zip(lo, hi)]
    return [tuple(reversed(p)) for p in itertools.product(*reversed(ranges))]


def corners(box):
    return list(box.small_end), list(box.big_end)


def node_type(amr, dirs):
    """IndexType nodal in the directions `dirs`."""
    t = amr.IndexType()
    for d in dirs:
        t.set(d)
    return t


# ---- construction -------------------------------------------------------------------------------

def test_construct_from_lists_and_intvects(amr):
    n = dim_of(amr)
    lo, hi = list(range(-1, n - 1)), list(range(3, 3 + n))
    for b in (amr.Box(lo, hi), amr.Box(tuple(lo), tuple(hi)), amr.Box(amr.IntVect(lo), amr.IntVect(hi)),
              amr.Box(small=lo, big=hi)):
        assert list(b.small_end) == lo and list(b.lo_vect) == lo
        assert list(b.big_end) == hi and list(b.hi_vect) == hi
        assert list(b.type) == [0] * n and b.cell_centered
        assert isinstance(b.small_end, amr.IntVect)
    assert amr.Box(lo, hi) == amr.Box(amr.IntVect(lo), amr.IntVect(hi))


def test_construct_with_index_type(amr):
    n = dim_of(amr)
    typ = [d % 2 for d in range(n)]
    b1 = amr.Box([0] * n, [4] * n, amr.IntVect(typ))
    b2 = amr.Box([0] * n, [4] * n, typ=amr.IntVect(typ))
    b3 = amr.Box([0] * n, [4] * n, node_type(amr, [d for d in range(n) if typ[d]]))
    b4 = amr.Box(small=[0] * n, big=[4] * n, t=node_type(amr, [d for d in range(n) if typ[d]]))
    for b in (b1, b2, b3, b4):
        assert list(b.type) == typ
        assert b.ix_type == node_type(amr, [d for d in range(n) if typ[d]])
        assert b.cell_centered == (sum(typ) == 0)
    assert b1 == b2 == b3 == b4
    assert amr.Box([0] * n, [4] * n, amr.IndexType.node_type()).type == amr.IntVect([1] * n)


def test_no_default_constructor(amr):
    with pytest.raises(TypeError, match="incompatible arguments"):
        amr.Box()
    with pytest.raises(TypeError, match="incompatible arguments"):
        amr.Box([0] * dim_of(amr))


def test_constructor_bad_inputs(amr):
    n = dim_of(amr)
    with pytest.raises(ValueError, match="exactly"):
        amr.Box([0] * (n + 1), [1] * n)
    with pytest.raises(TypeError, match="small"):
        amr.Box("ab", [1] * n)
    with pytest.raises(TypeError):
        amr.Box([0.5] * n, [1] * n)
    with pytest.raises(OverflowError, match="C int"):
        amr.Box([2**31] * n, [1] * n)
    with pytest.raises(ValueError, match="0 \\(CELL\\) or 1 \\(NODE\\)"):
        amr.Box([0] * n, [1] * n, [2] * n)
    with pytest.raises(TypeError, match="IndexType or an IntVect"):
        amr.Box([0] * n, [1] * n, 1.0)
    with pytest.raises(TypeError, match="incompatible arguments"):
        amr.Box([0] * n, [1] * n, typ=[0] * n, t=amr.IndexType())
    with pytest.raises(TypeError, match="incompatible arguments"):
        amr.Box([0] * n, typ=[0] * n)  # big missing
    with pytest.raises(TypeError, match="incompatible arguments"):
        amr.Box([0] * n, [1] * n, [0] * n, 4)
    with pytest.raises(TypeError, match="incompatible arguments"):
        amr.Box(small=[0] * n, bigg=[1] * n)


def test_dims_never_mix(amr):
    n = dim_of(amr)
    other = other_module(amr)
    m = dim_of(other)
    iv_other = getattr(amr, f"IntVect{m}D")([1] * m)
    with pytest.raises(TypeError, match="dimension"):
        amr.Box(iv_other, iv_other)
    with pytest.raises(TypeError, match="dimension"):
        amr.Box([0] * n, [1] * n, other.IndexType())
    b = amr.Box([0] * n, [3] * n)
    ob = other.Box([0] * m, [3] * m)
    for call in (lambda: b.intersects(ob), lambda: b.same_size(ob), lambda: b.same_type(ob),
                 lambda: b.contains(iv_other), lambda: b.shift(iv_other), lambda: b + iv_other,
                 lambda: b.grow(iv_other), lambda: amr.lbound(ob), lambda: b.lbound(ob), lambda: b.end(ob),
                 lambda: b == ob, lambda: b & ob):
        with pytest.raises(TypeError, match="dimension"):
            call()
    with pytest.raises(TypeError, match="dimension"):
        b.small_end = iv_other


def test_unhashable_and_repr(amr):
    n = dim_of(amr)
    b = amr.Box(list(range(n)), [7] * n, [1] + [0] * (n - 1))
    with pytest.raises(TypeError):
        hash(b)
    # pyAMReX's repr: the size only
    assert repr(b) == "<amrex.Box of size '(" + ",".join(str(8 - k) for k in range(n)) + ")'>"
    assert repr(amr.Box([0] * n, [-1] * n)) == "<amrex.Box of size '(" + ",".join(["0"] * n) + ")'>"
    lo = ",".join(map(str, range(n)))
    hi = ",".join(["7"] * n)
    ty = ",".join(["1"] + ["0"] * (n - 1))
    assert str(b) == b.__str() == f"(({lo}) ({hi}) ({ty}))"


# ---- properties --------------------------------------------------------------------------------

def test_corner_setters(amr):
    n = dim_of(amr)
    b = amr.Box([0] * n, [3] * n)
    b.small_end = [-2] * n
    assert list(b.lo_vect) == [-2] * n
    b.lo_vect = amr.IntVect([-1] * n)
    b.hi_vect = [5] * n
    assert list(b.small_end) == [-1] * n and list(b.big_end) == [5] * n
    b.big_end = amr.IntVect([6] * n)
    assert b.numPts() == 8**n
    with pytest.raises(AttributeError, match="delete"):
        del b.small_end
    with pytest.raises(ValueError):
        b.big_end = [1] * (n + 1)


def test_type_setter_keeps_corners(amr):
    n = dim_of(amr)
    b = amr.Box([0] * n, [3] * n)
    b.type = amr.IndexType.node_type()
    assert list(b.type) == [1] * n and corners(b) == ([0] * n, [3] * n)
    b.type = [0] * n
    assert b.cell_centered
    with pytest.raises(ValueError, match="0 \\(CELL\\)"):
        b.type = [3] * n
    with pytest.raises(TypeError, match="IndexType"):
        b.type = "node"


def test_counts_against_iteration(amr):
    n = dim_of(amr)
    for hi in ([2] * n, list(range(1, n + 1)), [-1] + [2] * (n - 1)):
        lo = [-1] * n
        b = amr.Box(lo, hi)
        pts = [tuple(p) for p in b]
        assert pts == ref_points(lo, hi)
        assert b.numPts() == b.num_pts == b.volume == len(pts)
        assert b.d_num_pts == float(len(pts)) and isinstance(b.d_num_pts, float)
        assert b.ok == (len(pts) > 0) and b.is_empty == (len(pts) == 0)
        assert list(b.size) == [h - l + 1 for l, h in zip(lo, hi)] == list(b.length())
        for d in range(n):
            assert b.length(d) == hi[d] - lo[d] + 1 == b.length(dir=d)


def test_iteration_yields_intvects_first_direction_fastest(amr):
    n = dim_of(amr)
    b = amr.Box([0] * n, [1] * n)
    pts = list(b)
    assert all(isinstance(p, amr.IntVect) for p in pts)
    assert [list(p) for p in pts][:2] == [[0] * n, [1] + [0] * (n - 1)]
    it = iter(b)
    assert iter(it) is it
    b.grow(1)  # the iterator walks a snapshot
    assert len(list(it)) == 2**n
    with pytest.raises(TypeError):
        type(it)()


def test_iteration_near_int_max(amr):
    n = dim_of(amr)
    b = amr.Box([INT_MAX - 1] * n, [INT_MAX] * n)
    assert [tuple(p) for p in b] == ref_points([INT_MAX - 1] * n, [INT_MAX] * n)


def test_length_dir_out_of_range(amr):
    n = dim_of(amr)
    b = amr.Box([0] * n, [1] * n)
    for bad in (n, -1, 99):
        with pytest.raises(IndexError, match="out of range"):
            b.length(bad)
    with pytest.raises(TypeError):
        b.length(1.0)


def test_predicate_props(amr):
    n = dim_of(amr)
    # AMReX_Box.H Box::isSquare: all lengths equal, and false in 1D ("can't build a square in 1-D")
    assert amr.Box([0] * n, [3] * n).is_square == (n > 1)
    assert amr.Box([0] * n, [3] * (n - 1) + [4]).is_square is False
    e = amr.Box([0] * n, [-1] * n)
    assert e.is_empty and not e.ok and e.numPts() == 0 and e.d_num_pts == 0.0 and list(e) == []
    u = e.the_unit_box
    assert corners(u) == ([0] * n, [0] * n) and u.cell_centered and u.numPts() == 1
    assert u is not e.the_unit_box


def test_num_pts_overflow(amr):
    n = dim_of(amr)
    b = amr.Box([INT_MIN] * n, [INT_MAX] * n)
    if n == 1:
        assert b.numPts() == 2**32
    else:
        with pytest.raises(OverflowError, match="64-bit"):
            b.numPts()
        with pytest.raises(OverflowError, match="64-bit"):
            b.num_pts
    assert b.d_num_pts == float(2**32) ** n
    with pytest.raises(OverflowError, match="C int"):
        b.size
    with pytest.raises(OverflowError, match="C int"):
        b.length()
    assert b.length(0) == 2**32
    with pytest.raises(OverflowError):
        amr.length(b)


# ---- queries -----------------------------------------------------------------------------------

def test_contains_against_iteration(amr):
    n = dim_of(amr)
    lo, hi = [-1] * n, [2] + [1] * (n - 1)
    b = amr.Box(lo, hi)
    inside = set(ref_points(lo, hi))
    interior = {p for p in inside if all(l < x < h for x, l, h in zip(p, lo, hi))}
    for p in ref_points([l - 1 for l in lo], [h + 1 for h in hi]):
        assert b.contains(amr.IntVect(list(p))) == (p in inside)
        assert b.contains(p=list(p)) == (p in inside)
        assert b.strictly_contains(amr.IntVect(list(p))) == (p in interior)
    with pytest.raises(TypeError):
        b.contains(1)
    with pytest.raises(ValueError):
        b.contains([0] * (n + 1))


def test_intersects_and_intersection_against_point_sets(amr):
    n = dim_of(amr)
    a = amr.Box([0] * n, [3] * n)
    for lo, hi in (([2] * n, [5] * n), ([4] * n, [6] * n), ([3] * n, [3] * n), ([-3] * n, [-1] * n),
                   ([1] * n, [0] * n)):
        b = amr.Box(lo, hi)
        common = set(map(tuple, a)) & set(map(tuple, b))
        assert a.intersects(b) == b.intersects(a) == bool(common)
        assert a.intersects(b=b) == bool(common)
        c = a & b
        assert set(map(tuple, c)) == common
        if common:
            assert c == b & a


def test_intersects_requires_same_type(amr):
    n = dim_of(amr)
    a = amr.Box([0] * n, [3] * n)
    b = amr.Box([0] * n, [3] * n, [1] * n)
    with pytest.raises(ValueError, match="different index types"):
        a.intersects(b)
    with pytest.raises(ValueError, match="different index types"):
        a & b
    with pytest.raises(TypeError):
        a.intersects([0] * n)
    with pytest.raises(TypeError):
        a & 1


def test_same_size_and_type(amr):
    n = dim_of(amr)
    a = amr.Box([0] * n, [3] * n)
    assert a.same_size(amr.Box([10] * n, [13] * n)) and not a.same_size(amr.Box([0] * n, [4] * n))
    assert a.same_type(amr.Box([5] * n, [6] * n))
    assert not a.same_type(amr.Box([0] * n, [3] * n, [1] * n))
    assert a.same_size(b=a) and a.same_type(b=a)
    # AMReX_Box.H Box::sameSize: BL_ASSERT(sameType(b)) ("an error if they have different types")
    with pytest.raises(ValueError, match="same_size: boxes of different index types"):
        a.same_size(amr.Box([0] * n, [3] * n, [1] * n))


def test_equality(amr):
    n = dim_of(amr)
    a = amr.Box([0] * n, [3] * n)
    assert a == amr.Box([0] * n, [3] * n) and not (a != amr.Box([0] * n, [3] * n))
    assert a != amr.Box([0] * n, [3] * n, [1] * n)
    assert a != amr.Box([0] * n, [4] * n)
    assert (a == 3) is False and (a != "x") is True


# ---- in-place transformations ----------------------------------------------------------------

def test_normalize(amr):
    # AMReX_Box.H Box::normalize(): for each direction with length(idim) == 0, growHi(idim, 1).
    # Nothing else changes: corners are never swapped and longer "negative" sides stay.
    n = dim_of(amr)
    b = amr.Box([5] + [0] * (n - 1), [4] + [2] * (n - 1))  # length 0 in direction 0
    assert b.normalize() is None
    assert corners(b) == ([5] + [0] * (n - 1), [5] + [2] * (n - 1))
    swapped = amr.Box([5] * n, [1] * n)  # length -3: AMReX leaves it (the old boxfab swapped the corners)
    swapped.normalize()
    assert corners(swapped) == ([5] * n, [1] * n) and swapped.is_empty
    z = amr.Box([3] * n, [2] * n, [1] * n)  # nodal, length 0 everywhere: grows to one node per direction
    z.normalize()
    assert corners(z) == ([3] * n, [3] * n) and list(z.type) == [1] * n
    for lo, hi in (([0] * n, [4] * n), ([INT_MIN] * n, [INT_MIN] * n)):
        ok = amr.Box(lo, hi)
        ok.normalize()
        assert corners(ok) == (lo, hi)
    edge = amr.Box([INT_MIN] * n, [INT_MAX] * n)  # length 2**32 never reads as 0
    edge.normalize()
    assert corners(edge) == ([INT_MIN] * n, [INT_MAX] * n)


def test_volume_counts_enclosed_cells(amr):
    # AMReX_Box.H Box::volume(): ok() ? prod_d (length(d) - btype[d]) : 0, so it equals numPts only
    # for a cell-centred box; pyAMReX binds it as the property `volume`.
    n = dim_of(amr)
    assert amr.Box([0] * n, [3] * n, [1] * n).volume == 3**n  # 4 nodes, 3 cells per direction
    assert amr.Box([0] * n, [3] * n, [1] * n).num_pts == 4**n
    assert amr.Box([0] * n, [3] * n).volume == 4**n
    mixed = amr.Box([-2] * n, [5] * n, [1] + [0] * (n - 1))
    assert mixed.volume == 7 * 8 ** (n - 1) and mixed.num_pts == 8**n
    assert amr.Box([0] * n, [0] * n, [1] * n).volume == 0  # one node encloses no cell
    assert amr.Box([1] * n, [0] * n, [1] * n).volume == 0  # not ok
    assert amr.Box([1] * n, [0] * n).volume == 0
    if n == 3:
        assert amr.Box((0, 0, 0), (3, 3, 3), (1, 1, 1)).volume == 27
        with pytest.raises(OverflowError, match="64-bit"):
            amr.Box([INT_MIN] * 3, [INT_MAX] * 3, [1, 0, 0]).volume


def test_shift_overloads_return_self(amr):
    n = dim_of(amr)
    b = amr.Box([0] * n, [2] * n)
    assert b.shift(0, 3) is b
    assert corners(b) == ([3] + [0] * (n - 1), [5] + [2] * (n - 1))
    assert b.shift(dir=n - 1, nzones=-1) is b
    assert b.shift(amr.IntVect([1] * n)) is b and b.shift(iv=[-1] * n) is b
    assert b.small_end[n - 1] == (3 - 1 if n == 1 else -1)
    with pytest.raises(IndexError, match="out of range"):
        b.shift(n, 1)
    with pytest.raises(TypeError, match="incompatible"):
        b.shift(1)
    with pytest.raises(OverflowError, match="C int"):
        b.shift(0, 2**31)
    before = corners(b)
    with pytest.raises(OverflowError, match="overflows C int"):
        b.shift(0, INT_MAX)
    assert corners(b) == before


def test_add_sub_operators(amr):
    n = dim_of(amr)
    b = amr.Box([0] * n, [2] * n)
    iv = amr.IntVect(list(range(1, n + 1)))
    c = b + iv
    assert c is not b and corners(b) == ([0] * n, [2] * n)
    assert corners(c) == ([d for d in range(1, n + 1)], [d + 2 for d in range(1, n + 1)])
    assert c - iv == b
    same = b
    b += iv
    assert b is same and b == c
    b -= iv
    assert b is same and corners(b) == ([0] * n, [2] * n)
    with pytest.raises(TypeError):
        b + 1
    with pytest.raises(TypeError):
        b + [1] * n
    with pytest.raises(TypeError):
        iv + b
    top = amr.Box([0] * n, [INT_MAX - 1] * n)
    with pytest.raises(OverflowError):
        top + amr.IntVect([2] * n)
    # -INT_MIN does not fit in C int, the shifted box does
    low = amr.Box([-5] * n, [-1] * n)
    assert list((low - amr.IntVect([INT_MIN] * n)).big_end) == [INT_MAX] * n
    with pytest.raises(OverflowError):
        top -= amr.IntVect([-2] * n)
    assert corners(top) == ([0] * n, [INT_MAX - 1] * n)


def test_convert(amr):
    n = dim_of(amr)
    b = amr.Box([0] * n, [3] * n)
    assert b.convert(amr.IndexType.node_type()) is b
    assert list(b.big_end) == [4] * n and list(b.type) == [1] * n
    assert b.convert(typ=amr.IntVect([0] * n)) is b
    assert corners(b) == ([0] * n, [3] * n) and b.cell_centered
    b.convert([1] + [0] * (n - 1))
    assert list(b.big_end) == [4] + [3] * (n - 1)
    with pytest.raises(ValueError, match="0 \\(CELL\\)"):
        b.convert([2] * n)
    with pytest.raises(TypeError, match="IndexType"):
        b.convert(1)
    top = amr.Box([0] * n, [INT_MAX] * n)
    with pytest.raises(OverflowError):
        top.convert(amr.IndexType.node_type())
    assert top.cell_centered


def test_grow_overloads(amr):
    n = dim_of(amr)
    b = amr.Box([0] * n, [3] * n)
    assert b.grow(1) is b and corners(b) == ([-1] * n, [4] * n)
    assert b.grow(n_cell=-1) is b and corners(b) == ([0] * n, [3] * n)
    assert b.grow(amr.IntVect(list(range(n)))) is b
    assert corners(b) == ([-d for d in range(n)], [3 + d for d in range(n)])
    b.grow(n_cells=[-d for d in range(n)])
    assert corners(b) == ([0] * n, [3] * n)
    assert b.grow(n - 1, 2) is b and b.grow(idir=0, n_cell=1) is b
    lo = [0] * n
    hi = [3] * n
    lo[n - 1] -= 2
    hi[n - 1] += 2
    lo[0] -= 1
    hi[0] += 1
    assert corners(b) == (lo, hi)
    with pytest.raises(IndexError):
        b.grow(n, 1)
    with pytest.raises(TypeError, match="incompatible"):
        b.grow(1.5)
    with pytest.raises(TypeError, match="incompatible"):
        b.grow()
    with pytest.raises(OverflowError, match="C int"):
        b.grow(2**31)
    top = amr.Box([0] * n, [INT_MAX - 1] * n)
    with pytest.raises(OverflowError, match="overflows C int"):
        top.grow(2)
    assert corners(top) == ([0] * n, [INT_MAX - 1] * n)
    bottom = amr.Box([INT_MIN + 1] * n, [0] * n)
    with pytest.raises(OverflowError):
        bottom.grow(0, 2)


def test_grow_low_high(amr):
    n = dim_of(amr)
    b = amr.Box([0] * n, [3] * n)
    assert b.grow_low(0) is b and b.small_end[0] == -1 and b.big_end[0] == 3
    assert b.grow_high(n - 1, 3) is b and b.big_end[n - 1] == 6
    b.grow_low(idir=0, n_cell=-2)
    assert b.small_end[0] == 1
    b.grow_high(idir=0)
    assert b.big_end[0] == (4 if n > 1 else 7)
    with pytest.raises(IndexError):
        b.grow_low(n)
    with pytest.raises(TypeError, match="incompatible"):
        b.grow_high()
    with pytest.raises(OverflowError):
        amr.Box([0] * n, [INT_MAX] * n).grow_high(0)
    with pytest.raises(OverflowError):
        amr.Box([INT_MIN] * n, [0] * n).grow_low(0)


def test_direction_overloads_are_rejected_clearly(amr):
    try:
        d = amr.Direction()
    except TypeError:
        pytest.skip("Direction cannot be instantiated (opaque tag)")
    n = dim_of(amr)
    b = amr.Box([0] * n, [3] * n)
    for call in (lambda: b.grow(d, 1), lambda: b.grow(d=d, n_cell=1), lambda: b.grow_low(d),
                 lambda: b.grow_high(d, 2), lambda: b.surrounding_nodes(d), lambda: b.enclosed_cells(d=d)):
        with pytest.raises(TypeError, match="Direction object carries no direction value"):
            call()
    assert corners(b) == ([0] * n, [3] * n)


def test_surrounding_nodes_and_enclosed_cells(amr):
    n = dim_of(amr)
    b = amr.Box([0] * n, [3] * n)
    assert b.surrounding_nodes(n - 1) is b
    assert list(b.type) == [0] * (n - 1) + [1] and b.big_end[n - 1] == 4
    assert b.surrounding_nodes() is b and list(b.type) == [1] * n and list(b.big_end) == [4] * n
    assert b.enclosed_cells(dir=0) is b and b.type[0] == 0 and b.big_end[0] == 3
    assert b.enclosed_cells() is b and corners(b) == ([0] * n, [3] * n) and b.cell_centered
    b.surrounding_nodes(dir=0)
    assert b.type[0] == 1
    with pytest.raises(IndexError):
        b.surrounding_nodes(n)
    with pytest.raises(IndexError):
        b.enclosed_cells(-1)
    with pytest.raises(TypeError, match="incompatible"):
        b.enclosed_cells("x")


def test_make_slab(amr):
    n = dim_of(amr)
    b = amr.Box([0] * n, [3] * n)
    assert b.make_slab(n - 1, 7) is b
    assert b.small_end[n - 1] == b.big_end[n - 1] == 7 and b.numPts() == 4 ** (n - 1)
    b.make_slab(direction=0, slab_index=-2)
    assert b.small_end[0] == b.big_end[0] == -2
    with pytest.raises(IndexError):
        b.make_slab(n, 0)
    with pytest.raises(TypeError):
        b.make_slab(0)


def test_refine_coarsen_extension(amr):
    n = dim_of(amr)
    b = amr.Box([-3] * n, [2] * n)
    assert b.refine(2) is b and corners(b) == ([-6] * n, [5] * n)
    assert b.coarsen(amr.IntVect([2] * n)) is b and corners(b) == ([-3] * n, [2] * n)
    with pytest.raises(ValueError, match="positive"):
        b.refine(0)
    with pytest.raises(ValueError, match="positive"):
        b.coarsen([-1] * n)
    with pytest.raises(OverflowError):
        amr.Box([0] * n, [INT_MAX // 2 + 1] * n).refine(2)


# ---- Dim3 views ----------------------------------------------------------------------------------

def test_bounds_module_and_methods(amr):
    n = dim_of(amr)
    lo = [-1, 2, 5][:n]
    hi = [3, 7, 5][:n]
    b = amr.Box(lo, hi)
    pad = lambda v, fill: v + [fill] * (3 - n)
    exp = {
        "lbound": pad(lo, 0),
        "ubound": pad(hi, 0),
        "length": pad([h - l + 1 for l, h in zip(lo, hi)], 1),
        "begin": pad(lo, 0),
        "end": pad([h + 1 for h in hi], 1),
    }
    for name, want in exp.items():
        got = getattr(amr, name)(b)
        assert isinstance(got, amr.Dim3)
        assert [got.x, got.y, got.z] == want, name
    other = amr.Box([0] * n, [0] * n)
    for name in ("lbound", "ubound", "begin", "end"):
        got = getattr(other, name)(b)  # the argument's bounds, self ignored
        assert [got.x, got.y, got.z] == exp[name]
    e = other.begin(box=b)
    assert [e.x, e.y, e.z] == exp["begin"]
    with pytest.raises(TypeError):
        amr.lbound(box=b)  # positional only
    with pytest.raises(TypeError, match="must be a Box"):
        amr.ubound([0] * n)
    with pytest.raises(TypeError):
        amr.length()
    with pytest.raises(OverflowError):
        amr.end(amr.Box([0] * n, [INT_MAX] * n))


# ---- algebraic properties (hypothesis) ---------------------------------------------------------

coord = st.integers(-40, 40)


def box_strategy(n, lo_min=-40, lo_max=40, max_len=8):
    return st.tuples(st.lists(st.integers(lo_min, lo_max), min_size=n, max_size=n),
                     st.lists(st.integers(0, max_len), min_size=n, max_size=n),
                     st.lists(st.integers(0, 1), min_size=n, max_size=n))


@hyp
@given(data=st.data())
def test_refine_then_coarsen_is_identity(amr, data):
    n = dim_of(amr)
    lo, ext, typ = data.draw(box_strategy(n))
    ratio = data.draw(st.lists(st.integers(1, 5), min_size=n, max_size=n))
    b = amr.Box(lo, [l + e for l, e in zip(lo, ext)], typ)
    c = amr.Box(b.small_end, b.big_end, b.ix_type)
    c.refine(amr.IntVect(ratio)).coarsen(amr.IntVect(ratio))
    assert c == b


@hyp
@given(data=st.data())
def test_coarsen_floors_negative_indices(amr, data):
    n = dim_of(amr)
    lo, ext, _ = data.draw(box_strategy(n))
    r = data.draw(st.integers(1, 6))
    hi = [l + e for l, e in zip(lo, ext)]
    b = amr.Box(lo, hi).coarsen(r)
    assert list(b.small_end) == [l // r for l in lo]
    assert list(b.big_end) == [h // r for h in hi]
    # a nodal box keeps every fine node covered: the big end rounds up
    nb = amr.Box(lo, hi, [1] * n).coarsen(r)
    assert list(nb.small_end) == [l // r for l in lo]
    assert list(nb.big_end) == [-(-h // r) for h in hi]


@hyp
@given(data=st.data())
def test_intersection_commutes_and_matches_point_sets(amr, data):
    n = dim_of(amr)
    la, ea, _ = data.draw(box_strategy(n, -4, 4, 5))
    lb, eb, _ = data.draw(box_strategy(n, -4, 4, 5))
    a = amr.Box(la, [l + e for l, e in zip(la, ea)])
    b = amr.Box(lb, [l + e for l, e in zip(lb, eb)])
    ab, ba = a & b, b & a
    common = set(map(tuple, a)) & set(map(tuple, b))
    assert set(map(tuple, ab)) == common == set(map(tuple, ba))
    assert a.intersects(b) == b.intersects(a) == bool(common)
    if common:
        assert ab == ba
        assert all(a.contains(p) and b.contains(p) for p in ab)
        assert ab.numPts() == len(common)
    else:
        assert ab.is_empty and ba.is_empty


@hyp
@given(data=st.data())
def test_convert_cell_node_cell_is_identity(amr, data):
    n = dim_of(amr)
    lo, ext, typ = data.draw(box_strategy(n))
    b = amr.Box(lo, [l + e for l, e in zip(lo, ext)])
    c = amr.Box(b.small_end, b.big_end)
    c.convert(typ).convert(amr.IndexType.cell_type())
    assert c == b
    c.surrounding_nodes()
    assert list(c.big_end) == [l + e + 1 for l, e in zip(lo, ext)]
    c.enclosed_cells()
    assert c == b


@hyp
@given(data=st.data())
def test_grow_and_shift_match_point_sets(amr, data):
    n = dim_of(amr)
    lo, ext, _ = data.draw(box_strategy(n, -3, 3, 3))
    g = data.draw(st.integers(-1, 2))
    s = data.draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))
    hi = [l + e for l, e in zip(lo, ext)]
    b = amr.Box(lo, hi).grow(g).shift(amr.IntVect(s))
    want = ref_points([l - g + x for l, x in zip(lo, s)], [h + g + x for h, x in zip(hi, s)])
    assert [tuple(p) for p in b] == want
    assert b.numPts() == len(want)


def test_argument_errors_name_the_method(amr):
    n = dim_of(amr)
    b = amr.Box([0] * n, [3] * n)
    with pytest.raises(TypeError, match="Box.contains\\(\\): missing required argument 'p'"):
        b.contains()
    with pytest.raises(TypeError, match="Box.make_slab\\(\\): unexpected keyword argument 'dir'|"
                                        "Box.make_slab\\(\\): got an unexpected keyword argument 'dir'"):
        b.make_slab(dir=0, slab_index=1)
    with pytest.raises(TypeError, match="Box.intersects b must be a Box"):
        b.intersects(3)
    with pytest.raises(TypeError, match="Box.convert\\(\\): takes at most 1"):
        b.convert([0] * n, [0] * n)
    with pytest.raises(TypeError, match="lbound\\(\\)"):
        amr.lbound(b, b)


# ---- extensions from AMReX's Box API that pyAMReX does not bind -------------------------------------

def test_chop_extension(amr):
    # AMReX_Box.H Box::chop(dir, chop_pnt): this box keeps the low end, the returned box is the high end;
    # CELL: chop_pnt goes to the high end only; NODE: both hold it; asserts small < chop_pnt <= big (< big)
    n = dim_of(amr)
    b = amr.Box([0] * n, [7] * n)
    hi = b.chop(0, 3)
    assert corners(b) == ([0] * n, [2] + [7] * (n - 1)) and corners(hi) == ([3] + [0] * (n - 1), [7] * n)
    nb = amr.Box([0] * n, [7] * n, [1] * n)
    hi = nb.chop(dir=n - 1, chop_pnt=4)
    assert nb.big_end[n - 1] == 4 and hi.small_end[n - 1] == 4 and hi.big_end[n - 1] == 7 and hi.ix_type == nb.ix_type
    for box, pnt in ((amr.Box([0] * n, [7] * n), 0), (amr.Box([0] * n, [7] * n), 8),
                     (amr.Box([0] * n, [7] * n, [1] * n), 7)):
        before = corners(box)
        with pytest.raises(ValueError, match="chop point"):
            box.chop(0, pnt)
        assert corners(box) == before
    with pytest.raises(IndexError):
        b.chop(n, 1)


def test_adj_cell_and_bdry_extensions(amr):
    # AMReX_Box.H adjCellLo/Hi (cells next to a face, CELL in dir) and bdryLo/Hi (nodes on a face, NODE in dir)
    n = dim_of(amr)
    b = amr.Box([2] * n, [5] * n, [1] + [0] * (n - 1))  # nodal in direction 0
    lo = b.adj_cell_lo(0)
    assert (lo.small_end[0], lo.big_end[0], lo.type[0]) == (1, 1, 0)
    hi = b.adj_cell_hi(0, 2)  # starts at big + 1 - 1 for a nodal direction
    assert (hi.small_end[0], hi.big_end[0], hi.type[0]) == (5, 6, 0)
    assert corners(b) == ([2] * n, [5] * n)  # b unchanged: new boxes
    d = n - 1
    bl = b.bdry_lo(dir=d, len=2)  # small - len + 1 .. small
    assert (bl.small_end[d], bl.big_end[d], bl.type[d]) == (1, 2, 1)
    bh = b.bdry_hi(d)  # big + 1 (cell in d) or big (node in d)
    assert (bh.small_end[d], bh.big_end[d], bh.type[d]) == ((6, 6, 1) if n > 1 else (5, 5, 1))
    with pytest.raises(ValueError, match="positive"):
        b.adj_cell_hi(0, 0)
    # issue 21: bdry_lo/hi of len < 1 made an empty box (lo > hi) without a word, where
    # adj_cell_lo/hi (AMReX asserts len > 0) refuse; now both refuse
    for side in (b.bdry_lo, b.bdry_hi, b.adj_cell_lo, b.adj_cell_hi):
        for bad in (0, -1, -(2**31)):
            with pytest.raises(ValueError, match="len must be positive"):
                side(0, bad)
    assert corners(b) == ([2] * n, [5] * n)
    with pytest.raises(IndexError):
        b.bdry_hi(n)
    with pytest.raises(OverflowError):
        amr.Box([0] * n, [INT_MAX] * n).adj_cell_hi(0)
