"""BoxArray (API.md 1.10) and its extensions.

References are brute force: point sets of small domains (itertools), corner
arithmetic with Python's `//`, and loops over every box for the queries."""
import importlib
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

INT_MAX = 2**31 - 1
INT_MIN = -(2**31)

hyp = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def dim_of(amr):
    return int(amr.__name__[-2])


def other_module(amr):
    return importlib.import_module(f"boxfab.space{dim_of(amr) % 3 + 1}d")


def corners(b):
    return tuple(b.small_end), tuple(b.big_end)


def points(lo, hi):
    return set(itertools.product(*[range(l, h + 1) for l, h in zip(lo, hi)]))


def box_points(b):
    return points(*corners(b))


def box_strategy(n, span=12, max_len=6):
    return st.tuples(st.lists(st.integers(-span, span), min_size=n, max_size=n),
                     st.lists(st.integers(0, max_len - 1), min_size=n, max_size=n))


def boxes_strategy(n, count_max=12, span=12, max_len=6):
    return st.lists(box_strategy(n, span, max_len), min_size=0, max_size=count_max)


def make_boxes(amr, spec, typ=None):
    out = []
    for lo, ext in spec:
        hi = [l + e for l, e in zip(lo, ext)]
        out.append(amr.Box(lo, hi) if typ is None else amr.Box(lo, hi, typ))
    return out


def domain(amr, lo, hi):
    return amr.Box(list(lo), list(hi))


# ---- construction -------------------------------------------------------------------------------

def test_default_is_empty(amr):
    ba = amr.BoxArray()
    assert ba.size == 0 and ba.empty and len(ba) == 0 and list(ba) == []
    assert ba.numPts == 0 and ba.d_numPts == 0.0 and isinstance(ba.d_numPts, float)
    assert ba.capacity >= 0
    assert ba.ix_type() == amr.IndexType.cell_type()
    assert not ba.minimal_box().ok


def test_construct_from_box_and_pointer_form(amr):
    n = dim_of(amr)
    b = amr.Box([0] * n, [7] * n)
    for ba in (amr.BoxArray(b), amr.BoxArray(b, 1)):
        assert ba.size == 1 and not ba.empty and ba[0] == b and ba.numPts == 8**n
    assert amr.BoxArray(b, 0).size == 0
    with pytest.raises(ValueError, match="only 0 or 1"):
        amr.BoxArray(b, 2)
    with pytest.raises(TypeError, match="positional"):
        amr.BoxArray(b=b)
    with pytest.raises(TypeError, match="incompatible|signatures"):
        amr.BoxArray(3)
    with pytest.raises(TypeError):
        amr.BoxArray(b, "x")


def test_construct_from_list_and_other_extension(amr):
    n = dim_of(amr)
    bs = [amr.Box([i * 4] + [0] * (n - 1), [i * 4 + 3] + [3] * (n - 1)) for i in range(3)]
    ba = amr.BoxArray(bs)
    assert list(ba) == bs and amr.BoxArray(tuple(bs)) == ba and amr.BoxArray(iter(bs)) == ba
    copy = amr.BoxArray(ba)
    assert copy == ba
    ba.refine(2)  # copy on write: the copy keeps its boxes
    assert list(copy) == bs and ba[0] != bs[0]
    with pytest.raises(TypeError, match="one index type"):
        amr.BoxArray([bs[0], amr.Box([0] * n, [3] * n, [1] * n)])
    with pytest.raises(TypeError):
        amr.BoxArray([bs[0], 5])
    with pytest.raises(TypeError):
        amr.BoxArray("abc")


def test_dims_never_mix(amr):
    n = dim_of(amr)
    other = other_module(amr)
    m = dim_of(other)
    ob = other.Box([0] * m, [3] * m)
    with pytest.raises(TypeError, match="dimension"):
        amr.BoxArray(ob)
    with pytest.raises(TypeError, match="dimension"):
        amr.BoxArray([ob])
    ba = amr.BoxArray(amr.Box([0] * n, [3] * n))
    with pytest.raises(TypeError, match="dimension"):
        ba.define(ob)
    with pytest.raises(TypeError, match="dimension"):
        ba.cell_equal(other.BoxArray(ob))
    with pytest.raises(TypeError, match="dimension"):
        ba.intersections(ob)
    with pytest.raises(TypeError, match="dimension"):
        ba.max_size(other.IntVect([2] * m))
    with pytest.raises(TypeError, match="dimension"):
        amr.BoxArray(other.BoxArray(ob))


def test_member_kinds(amr):
    T = amr.BoxArray
    for prop in ("size", "capacity", "empty", "numPts", "d_numPts"):
        assert type(getattr(T, prop)).__name__ == "getset_descriptor", prop
    for meth in ("define", "clear", "resize", "cell_equal", "max_size", "refine", "coarsen", "coarsenable",
                 "enclosed_cells", "get", "minimal_box", "ix_type"):
        assert callable(getattr(T, meth)), meth


def test_unhashable_repr_eq(amr):
    n = dim_of(amr)
    ba = amr.BoxArray(amr.Box([0] * n, [15] * n)).max_size(4)
    with pytest.raises(TypeError):
        hash(ba)
    r = repr(ba)
    assert "BoxArray" in r and f"{ba.size} boxes" in r
    assert ba == amr.BoxArray(list(ba)) and not (ba != amr.BoxArray(list(ba)))
    assert ba != amr.BoxArray() and ba != "x"


# ---- simple members -------------------------------------------------------------------------------

def test_define_clear_resize(amr):
    n = dim_of(amr)
    b = amr.Box([1] * n, [4] * n)
    ba = amr.BoxArray()
    assert ba.define(b) is None and list(ba) == [b]
    assert ba.resize(3) is None and ba.size == 3 and ba[0] == b
    assert all(not x.ok for x in list(ba)[1:])  # new boxes are empty (AMReX's Box())
    ba.resize(1)
    assert list(ba) == [b]
    with pytest.raises(ValueError, match=">= 0"):
        ba.resize(-1)
    with pytest.raises(TypeError):
        ba.resize(1.5)
    with pytest.raises(OverflowError):
        ba.resize(2**70)
    assert ba.clear() is None and ba.empty
    # AMReX_BoxArray.cpp BoxArray::clear(): m_bat = BATransformer(), i.e. the index type is CELL again
    nodal = amr.BoxArray(amr.Box([0] * n, [4] * n, [1] * n))
    nodal.clear()
    assert nodal.ix_type() == amr.IndexType.cell_type() and nodal.capacity == 0
    # BoxArray::resize keeps the transformer; the new entries are Box() = (1..0) cells, which a nodal
    # BoxArray shows converted: big end 1 in nodal directions (one node, not an empty box)
    mixed = [1] + [0] * (n - 1)
    nb = amr.BoxArray(amr.Box([0] * n, [4] * n, mixed))
    nb.resize(3)
    assert list(nb)[1:] == [amr.Box([1] * n, [1] + [0] * (n - 1), mixed)] * 2
    assert nb.ix_type() == nb[0].ix_type
    nb.resize(0)
    assert nb.empty and list(nb.ix_type().to_IntVect()) == mixed


def test_getitem_and_get(amr):
    n = dim_of(amr)
    ba = amr.BoxArray(amr.Box([0] * n, [11] * n)).max_size(4)
    boxes = list(ba)
    assert len(boxes) == 3**n and all(isinstance(b, amr.Box) for b in boxes)
    assert ba[-1] == boxes[-1] and ba[-len(boxes)] == boxes[0] and ba.get(1) == boxes[1]
    with pytest.raises(IndexError):
        ba[len(boxes)]
    with pytest.raises(IndexError):
        ba[-len(boxes) - 1]
    with pytest.raises(IndexError):
        ba.get(-1)
    with pytest.raises(IndexError):
        ba.get(len(boxes))
    with pytest.raises(TypeError):
        ba["0"]
    with pytest.raises(TypeError):
        ba[0:2]
    with pytest.raises(IndexError):
        amr.BoxArray()[0]


def test_minimal_box_and_counts(amr):
    n = dim_of(amr)
    bs = [amr.Box([0] * n, [3] * n), amr.Box([-5] + [2] * (n - 1), [-1] + [9] * (n - 1))]
    ba = amr.BoxArray(bs)
    mb = ba.minimal_box()
    assert corners(mb) == (tuple([-5] + [0] * (n - 1)), tuple([3] + [9] * (n - 1)))
    assert ba.numPts == sum(b.numPts() for b in bs) and ba.d_numPts == float(ba.numPts)


def test_num_pts_overflow():
    amr = importlib.import_module("boxfab.space3d")
    ba = amr.BoxArray([amr.Box([0, 0, 0], [INT_MAX, INT_MAX, 0]), amr.Box([0, 0, 1], [INT_MAX, INT_MAX, 1])])
    with pytest.raises(OverflowError, match="overflow"):
        ba.numPts
    assert ba.d_numPts == 2.0 * 2.0**62


def test_ix_type_is_a_method(amr):
    n = dim_of(amr)
    ba = amr.BoxArray(amr.Box([0] * n, [3] * n, [1] + [0] * (n - 1)))
    t = ba.ix_type()
    assert isinstance(t, amr.IndexType) and t.node_centered(0)


# ---- max_size -------------------------------------------------------------------------------------

def expected_pieces(length, n):
    """Piece lengths of one side of `length` cells, AMReX_BoxList.cpp BoxList::maxSize: halve the length
    and the chunk while both are even (doubling a unit), then ceil(len/chunk) blocks of len // blocks units,
    the first len % blocks of them one unit longer."""
    if length <= n:
        return [length]
    unit = 1
    while n % 2 == 0 and length % 2 == 0:
        unit, n, length = unit * 2, n // 2, length // 2
    k = -(-length // n)
    size, extra = divmod(length, k)
    return [(size + 1) * unit] * extra + [size * unit] * (k - extra)


def test_expected_pieces_is_amrex():
    # AMReX answers worked by hand from BoxList::maxSize (AMReX_BoxList.cpp)
    assert expected_pieces(14, 6) == [6, 4, 4]
    assert expected_pieces(6, 4) == [4, 2]
    assert expected_pieces(10, 4) == [4, 4, 2]
    assert expected_pieces(7, 3) == [3, 2, 2]
    assert expected_pieces(12, 8) == [8, 4]
    assert expected_pieces(64, 32) == [32, 32]


def test_max_size_amrex_chunks_and_returns_self(amr):
    n = dim_of(amr)
    ba = amr.BoxArray(amr.Box([0] * n, [9] * n))
    assert ba.max_size(4) is ba
    assert ba.size == 3**n
    # BoxList::maxSize: 10 cells with chunk 4 -> 4, 4, 2 (not 4, 3, 3), direction 0 fastest
    assert [b.length(0) for b in ba][:3] == [4, 4, 2]
    assert [(b.small_end[0], b.big_end[0]) for b in ba][:3] == [(0, 3), (4, 7), (8, 9)]
    ba = amr.BoxArray(amr.Box([-7] * n, [6] * n)).max_size(6)  # 14 cells from -7: 6, 4, 4
    assert [(b.small_end[n - 1], b.big_end[n - 1]) for b in ba][::3 ** (n - 1)] == [(-7, -2), (-1, 2), (3, 6)]
    ba = amr.BoxArray(amr.Box([0] * n, [5] * n, [1] * n)).max_size(4)  # 6 nodes = 5 cells: 3, 2 (+ shared node)
    assert [(b.small_end[0], b.big_end[0]) for b in ba][:2] == [(0, 3), (3, 5)]


def test_max_size_intvect_and_bad_values(amr):
    n = dim_of(amr)
    ba = amr.BoxArray(amr.Box([0] * n, [7] * n))
    ba.max_size(amr.IntVect([8] * (n - 1) + [2]))
    assert ba.size == 4 and all(list(b.size) == [8] * (n - 1) + [2] for b in ba)
    for bad in (0, -3, amr.IntVect([1] * (n - 1) + [0])):
        with pytest.raises(ValueError, match="positive"):
            ba.max_size(bad)
    assert ba.size == 4
    with pytest.raises(TypeError):
        ba.max_size(2.5)
    with pytest.raises(OverflowError):
        ba.max_size(2**40)


@hyp
@given(data=st.data())
def test_max_size_tiles_exactly(amr, data):
    n = dim_of(amr)
    # disjoint source boxes: shifted apart in direction 0
    spec = data.draw(boxes_strategy(n, count_max=3, span=3, max_len=9))
    spec = [([lo[0] + 40 * i] + lo[1:], ext) for i, (lo, ext) in enumerate(spec)]
    nodal = data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    src = make_boxes(amr, spec)
    ms = data.draw(st.lists(st.integers(1, 5), min_size=n, max_size=n))
    ba = amr.BoxArray(src).max_size(amr.IntVect(ms))
    want = set().union(*[box_points(b) for b in src]) if src else set()
    got = [box_points(b) for b in ba]
    assert sum(len(p) for p in got) == len(want)  # no overlap ...
    assert (set().union(*got) if got else set()) == want  # ... and no hole
    assert all(b.length(d) <= ms[d] for b in ba for d in range(n))
    for s in src:  # near-equal pieces per direction
        for d in range(n):
            lens = sorted({b.length(d) for b in ba if s.contains(b.small_end)})
            assert set(lens) <= set(expected_pieces(s.length(d), ms[d]))
    # nodal: the enclosed cells tile the same way and pieces share boundary nodes
    nsrc = [amr.Box(b.small_end, b.big_end).convert(amr.IntVect(nodal)) for b in src]
    nba = amr.BoxArray(nsrc).max_size(amr.IntVect(ms))
    cells = amr.BoxArray(list(nba)).enclosed_cells()
    assert cells == ba
    if src:
        assert nba.ix_type() == amr.IndexType(*[amr.IndexType.CellIndex(t) for t in nodal])


# ---- refine, coarsen, coarsenable, conversions -----------------------------------------------------

@hyp
@given(data=st.data())
def test_refine_coarsen_match_corner_formulas(amr, data):
    n = dim_of(amr)
    spec = data.draw(boxes_strategy(n))
    r = data.draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    src = make_boxes(amr, spec)
    ba = amr.BoxArray(src)
    assert ba.refine(amr.IntVect(r)) is ba
    for b, (lo, ext) in zip(ba, spec):
        hi = [l + e for l, e in zip(lo, ext)]
        assert corners(b) == (tuple(l * q for l, q in zip(lo, r)), tuple((h + 1) * q - 1 for h, q in zip(hi, r)))
    assert ba.coarsen(amr.IntVect(r)) is ba and list(ba) == src
    ba.coarsen(r[0])
    for b, s in zip(ba, src):
        assert corners(b) == (tuple(x // r[0] for x in s.small_end), tuple(x // r[0] for x in s.big_end))


def test_refine_coarsen_bad_ratio_and_overflow(amr):
    n = dim_of(amr)
    ba = amr.BoxArray([amr.Box([0] * n, [3] * n), amr.Box([0] * n, [INT_MAX // 2 + 5] * n)])
    for bad in (0, -2):
        with pytest.raises(ValueError, match="positive"):
            ba.refine(bad)
        with pytest.raises(ValueError, match="positive"):
            ba.coarsen(bad)
    with pytest.raises(OverflowError):
        ba.refine(2)
    assert ba[0] == amr.Box([0] * n, [3] * n)  # all or nothing
    with pytest.raises(TypeError):
        ba.refine("2")
    with pytest.raises(TypeError):
        ba.refine(2, 2)


def ref_coarsenable(boxes, r, w):
    if not boxes:
        return False
    for b in boxes:
        lo, hi = corners(b)
        for d in range(len(lo)):
            if hi[d] - lo[d] + 1 < r[d] * w[d] or lo[d] % r[d] or (hi[d] + 1) % r[d]:
                return False
    return True


@hyp
@given(data=st.data())
def test_coarsenable_against_reference(amr, data):
    n = dim_of(amr)
    spec = data.draw(boxes_strategy(n, count_max=4, span=8, max_len=8))
    src = make_boxes(amr, spec)
    ba = amr.BoxArray(src)
    r = data.draw(st.integers(1, 4))
    w = data.draw(st.integers(0, 3))
    assert ba.coarsenable(r, w) == ref_coarsenable(src, [r] * n, [w] * n)
    assert ba.coarsenable(amr.IntVect([r] * n), w) == ref_coarsenable(src, [r] * n, [w] * n)
    assert ba.coarsenable(amr.IntVect([r] * n), amr.IntVect([w] * n)) == ref_coarsenable(src, [r] * n, [w] * n)
    assert ba.coarsenable(r) == ref_coarsenable(src, [r] * n, [1] * n)  # min_width defaults to 1


def test_coarsenable_errors(amr):
    n = dim_of(amr)
    ba = amr.BoxArray(amr.Box([0] * n, [7] * n))
    assert ba.coarsenable(2, 4) and not ba.coarsenable(2, 5) and not ba.coarsenable(3, 1)
    assert not amr.BoxArray().coarsenable(2, 1)
    with pytest.raises(ValueError, match="positive"):
        ba.coarsenable(0, 1)
    # AMReX_Box.H Box::coarsenable: size() >= refrat * min_width, then coarsen/refine round trip;
    # a negative min_width passes that test for every box: refused (issue 21), 0 means no minimum
    assert ba.coarsenable(2, 0) and not ba.coarsenable(3, 0)
    with pytest.raises(TypeError):
        ba.coarsenable(2.0, 1)


def test_coarsenable_refuses_a_negative_min_width(amr):
    """Issue 21: coarsenable(2, -1) answered True (AMReX's size >= ratio * min_width holds for
    every box when min_width < 0); a width is never negative: ValueError in every overload,
    per component too, and the array is unchanged. 0 (no minimum) stays allowed."""
    n = dim_of(amr)
    ba = amr.BoxArray([amr.Box([0] * n, [7] * n), amr.Box([8] + [0] * (n - 1), [9] + [7] * (n - 1))])
    before = [corners(b) for b in ba]
    bad = [lambda: ba.coarsenable(2, -1), lambda: ba.coarsenable(amr.IntVect([2] * n), -1),
           lambda: ba.coarsenable(amr.IntVect([2] * n), amr.IntVect([1] * (n - 1) + [-1])),
           lambda: ba.coarsenable([2] * n, [-5] * n), lambda: ba.coarsenable(2, -(2**31))]
    for call in bad:
        with pytest.raises(ValueError, match="min_width must be >= 0"):
            call()
    assert [corners(b) for b in ba] == before
    assert ba.coarsenable(2, 0) and ba.coarsenable(2, 1) and not ba.coarsenable(2, 2)
    # the ratio: >= 1 (AMReX asserts through IntVect::coarsen)
    for r in (0, -1, -2, [1] * (n - 1) + [0]):
        with pytest.raises(ValueError, match="positive"):
            ba.coarsenable(r, 1)


def test_ratios_and_sizes_below_one_are_refused_and_change_nothing(amr):
    """Siblings of coarsenable: refine / coarsen by 0 or a negative ratio, max_size 0 or negative
    (AMReX asserts or divides by zero); growing past C int: OverflowError. Nothing changes."""
    n = dim_of(amr)
    ba = amr.BoxArray(amr.Box([0] * n, [15] * n))
    ba.max_size(8)
    before = [corners(b) for b in ba]
    for bad in (0, -1, -(2**31), [1] * (n - 1) + [0]):
        for call, match in ((ba.refine, "positive"), (ba.coarsen, "positive"), (ba.max_size, "positive")):
            with pytest.raises(ValueError, match=match):
                call(bad)
    for call in (lambda: ba.grow(INT_MAX), lambda: ba.grow_high(0, INT_MAX), lambda: ba.refine(INT_MAX),
                 lambda: ba.shift(0, INT_MAX), lambda: ba.grow([0] * (n - 1) + [INT_MAX])):
        with pytest.raises(OverflowError):
            call()
    assert [corners(b) for b in ba] == before


def test_enclosed_cells_and_conversions(amr):
    n = dim_of(amr)
    cell = amr.BoxArray(amr.Box([0] * n, [15] * n)).max_size(8)
    nodal = amr.BoxArray(cell).surrounding_nodes()
    assert nodal.ix_type() == amr.IndexType(*[amr.IndexType.CellIndex.NODE] * n)
    assert all(corners(b)[1] == tuple(h + 1 for h in corners(c)[1]) for b, c in zip(nodal, cell))
    assert nodal.cell_equal(cell) and cell.cell_equal(nodal) and nodal != cell
    one = amr.BoxArray(nodal).enclosed_cells(n - 1)
    assert one.ix_type().node_centered(0) == (n > 1) and one.ix_type().cell_centered(n - 1)
    assert nodal.enclosed_cells() is nodal and nodal == cell
    # pyAMReX 26's spellings are the same methods
    assert amr.BoxArray(cell).surroundingNodes() == amr.BoxArray(cell).surrounding_nodes()
    assert amr.BoxArray(cell).surroundingNodes(0) == amr.BoxArray(cell).surrounding_nodes(0)
    assert amr.BoxArray(cell).surroundingNodes().enclosedCells() == cell
    assert amr.BoxArray(cell).convert(amr.IntVect([1] * n)).cell_equal(cell)
    assert amr.BoxArray(cell).convert(amr.IndexType.node_type()).ix_type() == amr.IndexType.node_type()
    with pytest.raises(ValueError, match="0 \\(CELL\\) or 1"):
        amr.BoxArray(cell).convert(amr.IntVect([2] * n))
    for bad in (n, -1):
        with pytest.raises(IndexError, match="direction"):
            cell.enclosed_cells(bad)
    refined = amr.BoxArray(cell).refine(2)
    assert not refined.cell_equal(cell)
    assert not amr.BoxArray(list(cell)[:1]).cell_equal(cell)


# ---- queries ---------------------------------------------------------------------------------------

def ref_intersections(boxes, q):
    out = []
    qlo, qhi = corners(q)
    for i, b in enumerate(boxes):
        lo, hi = corners(b)
        ilo = tuple(max(a, c) for a, c in zip(lo, qlo))
        ihi = tuple(min(a, c) for a, c in zip(hi, qhi))
        if all(l <= h for l, h in zip(ilo, ihi)):
            out.append((i, (ilo, ihi)))
    return out


@hyp
@given(data=st.data())
def test_intersections_match_brute_force(amr, data):
    n = dim_of(amr)
    spec = data.draw(boxes_strategy(n, count_max=25, span=15, max_len=8))
    src = make_boxes(amr, spec)
    ba = amr.BoxArray(src)
    for _ in range(5):
        qlo, qext = data.draw(box_strategy(n, span=20, max_len=15))
        q = amr.Box(qlo, [l + e for l, e in zip(qlo, qext)])
        got = [(i, corners(b)) for i, b in ba.intersections(q)]
        want = ref_intersections(src, q)
        assert got == want
        assert ba.intersects(q) == bool(want)


@hyp
@given(data=st.data())
def test_contains_matches_point_sets(amr, data):
    n = dim_of(amr)
    spec = data.draw(boxes_strategy(n, count_max=6, span=4, max_len=5))
    src = make_boxes(amr, spec)
    ba = amr.BoxArray(src)
    covered = set().union(*[box_points(b) for b in src]) if src else set()
    qlo, qext = data.draw(box_strategy(n, span=5, max_len=4))
    q = amr.Box(qlo, [l + e for l, e in zip(qlo, qext)])
    assert ba.contains(q) == (box_points(q) <= covered)
    p = data.draw(st.lists(st.integers(-6, 6), min_size=n, max_size=n))
    assert ba.contains(amr.IntVect(p)) == (tuple(p) in covered)


def test_query_requires_same_type(amr):
    n = dim_of(amr)
    ba = amr.BoxArray(amr.Box([0] * n, [7] * n))
    with pytest.raises(TypeError, match="index type"):
        ba.intersections(amr.Box([0] * n, [7] * n, [1] * n))
    with pytest.raises(TypeError):
        ba.intersections([0] * n)
    assert ba.intersections(amr.Box([8] * n, [9] * n)) == []


def test_queries_follow_changes(amr):
    n = dim_of(amr)
    ba = amr.BoxArray(amr.Box([0] * n, [31] * n)).max_size(8)
    q = amr.Box([7] * n, [8] * n)
    assert len(ba.intersections(q)) == 2**n
    held = amr.BoxArray(ba)
    ba.refine(2)  # the hash of the changed array is rebuilt; the held one is unchanged
    assert [i for i, _ in ba.intersections(q)] == [0]
    assert len(held.intersections(q)) == 2**n


# ---- AMReX details: capacity, Box() entries, minimal_box -------------------------------------------

def test_capacity_follows_amrex_vector(amr):
    n = dim_of(amr)
    # AMReX_BoxArray.H capacity() = m_ref->m_abox.capacity(); BoxArray() holds an empty std::vector
    assert amr.BoxArray().capacity == 0
    b = amr.Box([0] * n, [9] * n)
    ba = amr.BoxArray(b)  # BARef::define(bx): one push_back
    assert ba.capacity == 1
    ba.max_size(4)  # BoxList::maxSize pushes 3**n boxes into a new vector: capacity 4, 16, 32
    assert ba.size == 3**n and ba.capacity == {1: 4, 2: 16, 3: 32}[n]
    ba.refine(2)  # in place (uniqify of an unshared array copies nothing)
    assert ba.capacity == {1: 4, 2: 16, 3: 32}[n]
    one = amr.BoxArray(b)
    one.resize(3)  # std::vector::resize past the capacity: max(2 * size, n) = 3
    assert one.capacity == 3
    one.resize(4)  # 3 -> 4 boxes: max(2 * 3, 4) = 6
    assert one.capacity == 6
    one.resize(1)  # shrinking keeps the capacity
    assert one.capacity == 6 and one.size == 1
    one.define(b)  # clear() then one push_back
    assert one.capacity == 1
    one.clear()
    assert one.capacity == 0
    assert amr.BoxArray([b, b]).capacity == 2 and amr.BoxArray(b, 0).capacity == 0


def test_pointer_form_with_zero_boxes_keeps_the_type(amr):
    # AMReX_BoxArray.cpp BoxArray(const Box* bxvec, int nbox): m_bat(bxvec->ixType()), nbox boxes
    n = dim_of(amr)
    nodal = amr.Box([0] * n, [4] * n, [1] * n)
    ba = amr.BoxArray(nodal, 0)
    assert ba.empty and ba.ix_type() == amr.IndexType.node_type()
    # and its minimal box is Box() in that type: (1..0) cells converted, (1..1) nodes
    assert corners(ba.minimal_box()) == (tuple([1] * n), tuple([1] * n))


def test_minimal_box_counts_empty_boxes(amr):
    # AMReX_BoxArray.cpp BoxArray::minimalBox: minBox over every box, ok() or not
    n = dim_of(amr)
    ba = amr.BoxArray([amr.Box([0] * n, [3] * n), amr.Box([10] * n, [9] * n)])
    assert corners(ba.minimal_box()) == (tuple([0] * n), tuple([9] * n))
    ba = amr.BoxArray(amr.Box([-5] * n, [-3] * n))
    ba.resize(2)  # Box() = (1..0) joins the minimum
    assert corners(ba.minimal_box()) == (tuple([-5] * n), tuple([0] * n))
    # an empty array remembers AMReX's lazy coarsening ratio: Box() coarsened by 2 is (0..0)
    e = amr.BoxArray()
    assert corners(e.minimal_box()) == (tuple([1] * n), tuple([0] * n))
    e.coarsen(2)
    assert corners(e.minimal_box()) == (tuple([0] * n), tuple([0] * n))
    held = amr.BoxArray(e)  # shared: the holder keeps the ratio when e drops it (uniqify)
    e.refine(2)
    assert corners(e.minimal_box()) == (tuple([1] * n), tuple([0] * n))
    assert corners(held.minimal_box()) == (tuple([0] * n), tuple([0] * n))


def test_grow_and_shift_extensions(amr):
    # AMReX_BoxArray.cpp BoxArray::grow / growLo / growHi / shift apply the Box operation to every box
    n = dim_of(amr)
    src = [amr.Box([0] * n, [3] * n, [1] + [0] * (n - 1)), amr.Box([4] + [0] * (n - 1), [9] + [3] * (n - 1),
                                                                [1] + [0] * (n - 1))]
    ba = amr.BoxArray(src)
    assert ba.grow(1) is ba
    assert [corners(b) for b in ba] == [corners(amr.Box(b.small_end, b.big_end, b.ix_type).grow(1)) for b in src]
    ba = amr.BoxArray(src).grow(amr.IntVect(list(range(n))))
    assert [corners(b) for b in ba] == [corners(amr.Box(b.small_end, b.big_end, b.ix_type)
                                                .grow(amr.IntVect(list(range(n))))) for b in src]
    ba = amr.BoxArray(src).grow(n - 1, 2).grow_low(0, 3).grow_high(0).shift(0, -4).shift(amr.IntVect([1] * n))
    for b, s in zip(ba, src):
        want = amr.Box(s.small_end, s.big_end, s.ix_type).grow(n - 1, 2).grow_low(0, 3).grow_high(0)
        want.shift(0, -4).shift(amr.IntVect([1] * n))
        assert b == want
    before = list(ba)
    with pytest.raises(OverflowError):
        ba.shift(0, INT_MAX)
    with pytest.raises(OverflowError):
        ba.grow(INT_MAX)
    assert list(ba) == before  # all or nothing
    with pytest.raises(TypeError, match="signatures"):
        ba.shift(1)
    with pytest.raises(TypeError, match="positional"):
        ba.grow(n=1)
    with pytest.raises(TypeError, match="dimension"):
        ba.grow(other_module(amr).IntVect([1] * dim_of(other_module(amr))))
    with pytest.raises(IndexError, match="direction"):
        ba.grow_low(n)
