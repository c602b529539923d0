"""IndexType with IndexType.CellIndex (API.md 1.7) and Direction (1.8)."""
import enum
import importlib
import itertools
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


def dim_of(amr):
    return len(amr.IntVect())


def bits_of(t):
    """Bit pattern of an IndexType from its public item access."""
    return sum(t[d] << d for d in range(len(t)))


def make(amr, bits):
    d = dim_of(amr)
    T = amr.IndexType
    return T(*[T.NODE if (bits >> k) & 1 else T.CELL for k in range(d)])


def all_types(amr):
    return [make(amr, b) for b in range(2 ** dim_of(amr))]


# ---- CellIndex ---------------------------------------------------------------------

def test_cellindex_enum(amr):
    CI = amr.IndexType.CellIndex
    assert issubclass(CI, enum.IntEnum)
    assert [m.name for m in CI] == ["CELL", "NODE"]
    assert CI.CELL.value == 0 and CI.NODE.value == 1
    assert int(CI.NODE) == 1 and [10, 20][CI.NODE] == 20  # __int__, __index__
    assert CI.NODE == 1 and hash(CI.NODE) == hash(1)
    assert amr.IndexType.CELL is CI.CELL and amr.IndexType.NODE is CI.NODE
    assert CI.__qualname__ == "IndexType.CellIndex"


def test_cellindex_pickles(amr):
    for m in amr.IndexType.CellIndex:
        assert pickle.loads(pickle.dumps(m)) is m


# ---- constructors ------------------------------------------------------------------

def test_default_is_all_cell(amr):
    t = amr.IndexType()
    assert list(t) == [0] * dim_of(amr)
    assert t.cell_centered() and not t.any()


def test_copy_constructor(amr):
    t = amr.IndexType.node_type()
    c = amr.IndexType(t)
    assert c == t and c is not t
    c.clear()
    assert t.node_centered()


def test_per_direction_constructor(amr):
    d = dim_of(amr)
    for b in range(2 ** d):
        t = make(amr, b)
        assert bits_of(t) == b
        assert [t[k] for k in range(d)] == [(b >> k) & 1 for k in range(d)]


def test_per_direction_accepts_plain_ints(amr):
    d = dim_of(amr)
    assert list(amr.IndexType(*([1] * d))) == [1] * d


def test_constructor_errors(amr):
    d = dim_of(amr)
    T = amr.IndexType
    with pytest.raises(TypeError, match="IndexType"):
        T(*([T.CELL] * (d + 1)))
    if d > 1:
        with pytest.raises(TypeError, match="IndexType"):
            T(T.CELL)
    with pytest.raises(ValueError, match="CELL .0. or NODE .1."):
        T(*([2] * d))
    with pytest.raises(TypeError, match="CellIndex"):
        T(*(["NODE"] * d))
    with pytest.raises(TypeError, match="CellIndex"):
        T(*([1.0] * d))
    with pytest.raises(TypeError, match="positional"):
        T(other=T())
    with pytest.raises(TypeError):
        T(amr.IntVect())


def test_copy_from_other_dimension_is_type_error():
    m2, m3 = importlib.import_module("boxfab.space2d"), importlib.import_module("boxfab.space3d")
    with pytest.raises(TypeError, match="dimension"):
        m3.IndexType(m2.IndexType())


def test_static_types(amr):
    d = dim_of(amr)
    T = amr.IndexType
    assert list(T.cell_type()) == [0] * d and list(T.node_type()) == [1] * d
    assert isinstance(T.__dict__["cell_type"], staticmethod)
    assert isinstance(T.__dict__["node_type"], staticmethod)
    assert type(T().node_type()) is T


# ---- item access and predicates ------------------------------------------------------

def test_getitem_negative_and_out_of_range(amr):
    d = dim_of(amr)
    t = make(amr, 1)  # direction 0 nodal
    assert len(t) == d
    assert t[0] == 1 and t[-d] == 1
    assert t[-1] == (1 if d == 1 else 0)
    for i in (d, -d - 1, 2**80):
        with pytest.raises(IndexError, match="out of range"):
            t[i]
    with pytest.raises(TypeError):
        t["0"]


def test_set_unset_flip_test(amr):
    d = dim_of(amr)
    t = amr.IndexType()
    assert t.set(-1) is None
    assert t.test(d - 1) and t.test(-1)
    if d > 1:
        assert not t.test(0)
    t.unset(d - 1)
    assert not t.test(-1)
    t.flip(0)
    assert t.test(0)
    t.flip(0)
    assert not t.test(0)
    for f in (t.set, t.unset, t.flip, t.test):
        with pytest.raises(IndexError):
            f(d)
        with pytest.raises(IndexError):
            f(-d - 1)
        with pytest.raises(TypeError):
            f(0.0)
        with pytest.raises(TypeError):
            f()


def test_setall_clear_any_ok(amr):
    t = amr.IndexType()
    assert t.setall() is None and t.node_centered() and t.any() and t.ok()
    assert t.clear() is None and t.cell_centered() and not t.any() and t.ok()


def test_centered_whole_and_per_direction(amr):
    d = dim_of(amr)
    for b in range(2 ** d):
        t = make(amr, b)
        assert t.cell_centered() == (b == 0)
        assert t.node_centered() == (b == 2**d - 1)
        for k in range(-d, d):
            nodal = bool((b >> (k % d)) & 1)
            assert t.node_centered(k) == nodal and t.cell_centered(k) == (not nodal)
    with pytest.raises(IndexError):
        amr.IndexType().cell_centered(d)
    with pytest.raises(TypeError):
        amr.IndexType().node_centered(0, 1)


def test_set_type(amr):
    d = dim_of(amr)
    T = amr.IndexType
    t = T()
    t.set_type(-1, T.NODE)
    assert t[d - 1] == 1
    t.set_type(d - 1, T.CellIndex.CELL)
    assert t.cell_centered()
    with pytest.raises(IndexError):
        t.set_type(d, T.NODE)
    with pytest.raises(ValueError):
        t.set_type(0, 5)
    with pytest.raises(TypeError):
        t.set_type(0, "NODE")
    with pytest.raises(TypeError):
        t.set_type(0)


def test_ix_type_and_to_intvect(amr):
    d = dim_of(amr)
    T = amr.IndexType
    for b in range(2 ** d):
        t = make(amr, b)
        iv = t.ix_type()
        assert type(iv) is amr.IntVect and list(iv) == [(b >> k) & 1 for k in range(d)]
        assert t.to_IntVect() == iv
        for k in range(-d, d):
            ci = t.ix_type(k)
            assert type(ci) is T.CellIndex and ci is (T.NODE if (b >> (k % d)) & 1 else T.CELL)
    with pytest.raises(IndexError):
        T().ix_type(d)


# ---- comparison, hashing, text ------------------------------------------------------

def test_comparison_is_bit_pattern_order(amr):
    ts = all_types(amr)
    for (a, x), (b, y) in itertools.product(enumerate(ts), repeat=2):
        assert (x == y) == (a == b) and (x != y) == (a != b) and (x < y) == (a < b)


def test_comparison_errors():
    m2, m3 = importlib.import_module("boxfab.space2d"), importlib.import_module("boxfab.space3d")
    with pytest.raises(TypeError, match="dimension"):
        m3.IndexType() == m2.IndexType()
    assert (m3.IndexType() == 0) is False
    with pytest.raises(TypeError):
        m3.IndexType() < 0


def test_unhashable(amr):
    assert amr.IndexType.__hash__ is None
    with pytest.raises(TypeError, match="unhashable"):
        hash(amr.IndexType())


def test_repr_and_str(amr):
    d = dim_of(amr)
    t = make(amr, 1)
    expect = "(" + ",".join(["N"] + ["C"] * (d - 1)) + ")"
    assert t.__str() == str(t) == expect
    assert "IndexType" in repr(t) and expect in repr(t)


def test_types_per_dimension():
    mods = [importlib.import_module(f"boxfab.space{d}d") for d in (1, 2, 3)]
    assert len({m.IndexType for m in mods}) == 3
    assert len({m.IndexType.CellIndex for m in mods}) == 3
    assert len({m.Direction for m in mods}) == 3


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_random_mutations_match_a_bit_model(data):
    d = data.draw(st.sampled_from([1, 2, 3]))
    amr = importlib.import_module(f"boxfab.space{d}d")
    t, model = amr.IndexType(), 0
    steps = data.draw(st.lists(st.tuples(st.sampled_from(["set", "unset", "flip", "set_type"]),
                                         st.integers(-d, d - 1), st.integers(0, 1)), max_size=12))
    for op, k, v in steps:
        bit = 1 << (k % d)
        if op == "set":
            t.set(k)
            model |= bit
        elif op == "unset":
            t.unset(k)
            model &= ~bit
        elif op == "flip":
            t.flip(k)
            model ^= bit
        else:
            t.set_type(k, amr.IndexType.CellIndex(v))
            model = (model & ~bit) | (bit if v else 0)
        assert bits_of(t) == model
    assert t.any() == (model != 0) and t.ok()


# ---- Direction -----------------------------------------------------------------------

def test_direction_is_opaque(amr):
    D = amr.Direction
    assert isinstance(D, type)
    assert [n for n in dir(D) if not n.startswith("_")] == []
    x = D()
    assert isinstance(x, D)
    with pytest.raises(TypeError):
        D(0)
    with pytest.raises(TypeError):
        D(x=0)
