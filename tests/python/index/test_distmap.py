"""DistributionMapping (API.md 1.11) and its strategy extension.

References: every box on a rank in [0, nprocs); loads against the bound
ideal + largest box; the SFC map checked against an independent Morton key
(bit interleaving in Python) along which the ranks must not decrease."""
import gc
import importlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

hyp = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

STRATEGIES = ("sfc", "roundrobin", "knapsack")


def dim_of(amr):
    return int(amr.__name__[-2])


def other_module(amr):
    return importlib.import_module(f"boxfab.space{dim_of(amr) % 3 + 1}d")


def chopped(amr, hi, ms):
    n = dim_of(amr)
    return amr.BoxArray(amr.Box([0] * n, list(hi))).max_size(amr.IntVect(list(ms)))


def ranks(dm):
    return [dm[i] for i in range(dm.size)]


# ---- construction and members -----------------------------------------------------------------

def test_empty(amr):
    dm = amr.DistributionMapping()
    assert dm.size == 0 and dm.capacity == 0 and dm.empty and len(dm) == 0
    assert dm.link_count == 1
    assert list(dm.ProcessorMap()) == []
    with pytest.raises(IndexError):
        dm[0]


def test_from_pmap_sequences(amr):
    pm = [0, 2, 1, 2, 0]
    for src in (pm, tuple(pm), iter(pm), (x for x in pm), range(3)):
        dm = amr.DistributionMapping(src)
        want = list(range(3)) if isinstance(src, range) else pm
        assert ranks(dm) == want and list(dm.ProcessorMap()) == want and list(dm) == want
    class OnlyIter:  # like a Vector_int that offers iteration only
        def __iter__(self):
            return iter(pm)

    assert ranks(amr.DistributionMapping(OnlyIter())) == pm
    dm = amr.DistributionMapping(pm)
    assert dm.size == 5 and dm.capacity >= 5 and not dm.empty
    assert dm[-1] == 0 and dm[-5] == 0 and dm[1] == 2
    with pytest.raises(IndexError):
        dm[5]
    with pytest.raises(IndexError):
        dm[-6]
    with pytest.raises(TypeError):
        dm["1"]


def test_from_vector_int_when_available(amr):
    if not hasattr(amr, "Vector_int"):
        pytest.skip("Vector_int is not built yet")
    v = amr.Vector_int([3, 1, 0])
    dm = amr.DistributionMapping(v)
    assert ranks(dm) == [3, 1, 0]
    pm = dm.ProcessorMap()
    assert isinstance(pm, amr.Vector_int) and list(pm) == [3, 1, 0]


def test_pmap_bad_values(amr):
    with pytest.raises(ValueError, match="negative"):
        amr.DistributionMapping([0, -1])
    with pytest.raises(TypeError):
        amr.DistributionMapping([0, 1.5])
    with pytest.raises(OverflowError):
        amr.DistributionMapping([2**40])
    with pytest.raises(TypeError, match="incompatible|signatures"):
        amr.DistributionMapping("01")
    with pytest.raises(TypeError, match="incompatible|signatures"):
        amr.DistributionMapping(3)


def test_copy_shares_and_counts_links(amr):
    dm = amr.DistributionMapping([0, 1, 1])
    assert dm.link_count == 1
    cp = amr.DistributionMapping(dm)
    assert ranks(cp) == [0, 1, 1] and cp == dm
    assert dm.link_count == 2 and cp.link_count == 2
    del cp
    gc.collect()
    assert dm.link_count == 1
    cp = amr.DistributionMapping(dm)
    cp.define([5])  # re-defining the copy leaves the original alone
    assert ranks(dm) == [0, 1, 1] and ranks(cp) == [5] and dm.link_count == 1
    assert amr.DistributionMapping(amr.DistributionMapping()).empty


def test_from_boxarray(amr):
    n = dim_of(amr)
    ba = chopped(amr, [15] * n, [4] * n)
    nprocs = amr.ParallelDescriptor.NProcs() if hasattr(amr, "ParallelDescriptor") else 1
    dm = amr.DistributionMapping(ba)
    assert dm.size == ba.size and set(ranks(dm)) <= set(range(nprocs))
    dm4 = amr.DistributionMapping(ba, 4)
    assert sorted(set(ranks(dm4))) == [0, 1, 2, 3]
    assert amr.DistributionMapping(boxes=ba, nprocs=4) == dm4
    assert amr.DistributionMapping(ba, nprocs=4) == dm4
    for s in STRATEGIES:
        d = amr.DistributionMapping(ba, 4, strategy=s)
        assert set(ranks(d)) == {0, 1, 2, 3}
    assert amr.DistributionMapping(ba, 4, strategy="sfc") == dm4
    assert amr.DistributionMapping(amr.BoxArray(), 3).empty


def test_from_boxarray_errors(amr):
    n = dim_of(amr)
    ba = chopped(amr, [7] * n, [4] * n)
    for bad in (0, -2):
        with pytest.raises(ValueError, match="nprocs must be >= 1"):
            amr.DistributionMapping(ba, bad)
    with pytest.raises(TypeError):
        amr.DistributionMapping(ba, 2.0)
    with pytest.raises(OverflowError):
        amr.DistributionMapping(ba, 2**40)
    with pytest.raises(ValueError, match="unknown strategy"):
        amr.DistributionMapping(ba, 2, strategy="random")
    with pytest.raises(TypeError, match="strategy must be a str"):
        amr.DistributionMapping(ba, 2, strategy=1)
    with pytest.raises(TypeError):
        amr.DistributionMapping(ba, 2, 3, 4)
    with pytest.raises(TypeError):
        amr.DistributionMapping(ba, procs=2)
    other = other_module(amr)
    m = dim_of(other)
    with pytest.raises(TypeError, match="dimension"):
        amr.DistributionMapping(other.BoxArray(other.Box([0] * m, [3] * m)), 2)
    with pytest.raises(TypeError, match="dimension"):
        amr.DistributionMapping(other.DistributionMapping([0]))


def test_define_overloads(amr):
    n = dim_of(amr)
    ba = chopped(amr, [15] * n, [8] * n)
    dm = amr.DistributionMapping()
    assert dm.define(ba) is None and dm.size == ba.size
    assert dm.define(ba, 2) is None and set(ranks(dm)) == {0, 1}
    assert dm.define(boxes=ba, nprocs=3) is None and dm.size == ba.size
    assert dm.define([1, 0]) is None and ranks(dm) == [1, 0]
    dm.define(ba, 2, strategy="knapsack")
    assert set(ranks(dm)) == {0, 1}
    with pytest.raises(TypeError):
        dm.define()
    with pytest.raises(TypeError, match="incompatible|signatures"):
        dm.define(amr.DistributionMapping([0]))  # no copy overload on define
    before = ranks(dm)
    with pytest.raises(ValueError):
        dm.define(ba, 0)
    assert ranks(dm) == before  # unchanged after the failure


def test_member_kinds_and_repr(amr):
    T = amr.DistributionMapping
    for prop in ("size", "capacity", "link_count", "empty"):
        assert type(getattr(T, prop)).__name__ == "getset_descriptor", prop
    assert callable(T.define) and callable(T.ProcessorMap)
    dm = amr.DistributionMapping([0, 1])
    assert "DistributionMapping" in repr(dm) and "2 boxes" in repr(dm)
    with pytest.raises(TypeError):
        hash(dm)
    assert dm == amr.DistributionMapping([0, 1]) and dm != amr.DistributionMapping([1, 0]) and dm != [0, 1]
    assert amr.DistributionMapping() == amr.DistributionMapping([])


# ---- balance and the SFC -------------------------------------------------------------------------

def morton_key(c, nbits=40):
    """Interleave the bits of the non-negative coordinates c, highest bit first,
    direction 0 first within a bit level."""
    key = 0
    for b in range(nbits - 1, -1, -1):
        for x in c:
            key = (key << 1) | ((x >> b) & 1)
    return key


@hyp
@given(data=st.data())
def test_balanced_maps(amr, data):
    n = dim_of(amr)
    hi = data.draw(st.lists(st.integers(0, 40 if n < 3 else 15), min_size=n, max_size=n))
    ms = data.draw(st.lists(st.integers(1, 8), min_size=n, max_size=n))
    ba = chopped(amr, hi, ms)
    if data.draw(st.booleans()):  # vary the weights: refine some boxes
        boxes = list(ba)
        k = data.draw(st.integers(0, len(boxes)))
        ba = amr.BoxArray([b if i >= k else amr.Box(b.small_end, b.big_end).refine(2).coarsen(1)
                           for i, b in enumerate(boxes)])
    nprocs = data.draw(st.integers(1, 20))
    weights = [b.numPts() for b in ba]
    ideal, wmax = sum(weights) / nprocs, max(weights)
    for s in STRATEGIES:
        dm = amr.DistributionMapping(ba, nprocs, strategy=s)
        r = ranks(dm)
        assert len(r) == ba.size and all(0 <= x < nprocs for x in r)
        load = [0] * nprocs
        for x, w in zip(r, weights):
            load[x] += w
        assert max(load) <= ideal + wmax + 1e-9, s
        if ba.size <= nprocs:
            assert len(set(r)) == ba.size, s  # one box per rank
        assert amr.DistributionMapping(ba, nprocs, strategy=s) == dm  # deterministic


@hyp
@given(data=st.data())
def test_sfc_follows_the_morton_curve(amr, data):
    n = dim_of(amr)
    hi = data.draw(st.lists(st.integers(0, 60 if n < 3 else 20), min_size=n, max_size=n))
    ms = data.draw(st.lists(st.integers(1, 8), min_size=n, max_size=n))
    ba = chopped(amr, hi, ms)
    nprocs = data.draw(st.integers(1, 12))
    if ba.size <= nprocs:
        return
    dm = amr.DistributionMapping(ba, nprocs)
    centres = [[l + h for l, h in zip(b.small_end, b.big_end)] for b in ba]
    cmin = [min(c[d] for c in centres) for d in range(n)]
    order = sorted(range(ba.size), key=lambda i: (morton_key([c - m for c, m in zip(centres[i], cmin)]), i))
    along = [dm[i] for i in order]
    assert along == sorted(along)  # contiguous chunks along the curve


def test_sfc_quadrants_2d():
    amr = importlib.import_module("boxfab.space2d")
    ba = chopped(amr, [63, 63], [8, 8])
    dm = amr.DistributionMapping(ba, 4)
    quad = {}
    for b, r in zip(ba, ranks(dm)):
        q = (b.small_end[0] >= 32, b.small_end[1] >= 32)
        assert quad.setdefault(r, q) == q
    assert len(quad) == 4 and sorted(ranks(dm).count(r) for r in range(4)) == [16] * 4


def test_knapsack_and_round_robin_exact():
    amr = importlib.import_module("boxfab.space1d")
    lens = [8, 4, 4, 2, 2]
    starts = [sum(lens[:i]) for i in range(5)]
    ba = amr.BoxArray([amr.Box([s], [s + l - 1]) for s, l in zip(starts, lens)])
    assert ranks(amr.DistributionMapping(ba, 2, strategy="knapsack")) == [0, 1, 1, 0, 1]
    assert ranks(amr.DistributionMapping(ba, 2, strategy="roundrobin")) == [0, 1, 0, 1, 0]
    assert ranks(amr.DistributionMapping(ba, 2, strategy="sfc")) == [0, 1, 1, 1, 1]
