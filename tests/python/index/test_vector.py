"""Vector_* containers (API.md 1.18): typed lists, checked against a Python list as the reference.

Element kinds whose Python type comes from another family (BoxArray, DistributionMapping,
Geometry) are skipped until that family is on this branch."""
import gc

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from conftest import run_python

ALL = ["Real", "int", "Long", "string", "IntVect", "BoxArray", "DistributionMapping", "Geometry", "Box"]
NUMERIC = {"Real": (np.float64, "<f8"), "int": (np.int32, "<i4"), "Long": (np.int64, "<i8")}
COMPARABLE = [k for k in ALL if k != "Geometry"]


def make(amr, kind, i):
    """The i-th sample element of `kind` in the module's dimension (distinct for distinct i)."""
    d = amr.Config.spacedim
    if kind == "Real":
        return i + 0.25
    if kind == "int":
        return i * 1000 - 7
    if kind == "Long":
        return i * 2**33 - 5
    if kind == "string":
        return f"s{i}é"
    if kind == "IntVect":
        return amr.IntVect(*[i + k for k in range(d)])
    if kind == "Box":
        return amr.Box([i] * d, [2 * i + k for k in range(d)])
    if kind == "BoxArray":
        return amr.BoxArray(amr.Box([0] * d, [i] * d))
    if kind == "DistributionMapping":
        return amr.DistributionMapping(amr.Vector_int([0] * (i + 1)))
    if kind == "Geometry":
        return amr.Geometry(amr.Box([0] * d, [i + 1] * d), amr.RealBox(*([0.0] * d + [1.0 + i] * d)), 0, [0] * d)
    raise AssertionError(kind)


def key(e):
    """A comparable value of an element, independent of boxfab's own == (the reference)."""
    name = type(e).__name__
    if name.startswith("IntVect"):
        return tuple(e)
    if name == "Box":
        return (tuple(e.small_end), tuple(e.big_end), str(e.ix_type))
    if name == "BoxArray":
        return tuple(str(e[i]) for i in range(e.size))
    if name == "DistributionMapping":
        return tuple(e.ProcessorMap())
    if name == "Geometry":
        return repr(e)
    return e


def keys(seq):
    return [key(e) for e in seq]


def need(amr, kind):
    base = {"BoxArray": "BoxArray", "DistributionMapping": "DistributionMapping", "Geometry": "Geometry"}.get(kind)
    if base and not hasattr(amr, base):
        pytest.skip(f"{base} is not on this branch yet")


@pytest.fixture(params=ALL)
def kind(request, amr):
    need(amr, request.param)
    return request.param


def V(amr, kind):
    return getattr(amr, f"Vector_{kind}")


# ---- construction and the list protocol ------------------------------------------------
def test_construct_empty_copy_iterable(amr, kind):
    T = V(amr, kind)
    elems = [make(amr, kind, i) for i in range(4)]
    assert len(T()) == 0 and not T() and T().size() == 0
    v = T(elems)
    assert len(v) == 4 and bool(v) and v.size() == 4
    assert keys(v) == keys(elems)
    assert keys(T(v)) == keys(elems)                      # copy
    assert keys(T(iter(elems))) == keys(elems)           # any iterable
    assert keys(T(tuple(elems))) == keys(elems)
    c = T(v)
    c.append(make(amr, kind, 9))
    assert len(v) == 4                                     # the copy is independent
    assert type(v).__name__ == f"Vector_{kind}" and type(v).__module__ == amr.__name__
    assert repr(v).startswith(f"Vector_{kind}[")


def test_getitem_negative_and_slices(amr, kind):
    T = V(amr, kind)
    elems = [make(amr, kind, i) for i in range(7)]
    v = T(elems)
    for i in range(-7, 7):
        assert key(v[i]) == key(elems[i])
    for s in (slice(None), slice(1, 5), slice(None, None, -1), slice(-2, 1, -2), slice(0, 7, 3), slice(5, 2),
              slice(-100, 100)):
        sub = v[s]
        assert type(sub) is T and keys(sub) == keys(elems[s])
    for bad in (7, -8, 2**62):
        with pytest.raises(IndexError, match="out of range"):
            v[bad]
    with pytest.raises(TypeError, match="integers or slices"):
        v["0"]
    with pytest.raises(TypeError, match="integers or slices"):
        v[1.0]


def test_iteration(amr, kind):
    elems = [make(amr, kind, i) for i in range(5)]
    v = V(amr, kind)(elems)
    assert keys(iter(v)) == keys(elems)
    assert keys(list(v)) == keys(elems)
    assert hasattr(v, "__iter__") and hasattr(v, "__bool__") and hasattr(v, "__len__")


# A random program of list operations, run on a Vector and on a Python list.
OPS = st.lists(st.tuples(st.sampled_from(["append", "insert", "extend", "pop", "popi", "del", "delslice",
                                          "set", "setslice", "setext", "clear"]),
                         st.integers(-12, 12), st.integers(-12, 12), st.integers(-3, 3).filter(bool),
                         st.integers(0, 4)), max_size=25)


@settings(max_examples=60, deadline=None)
@given(ops=OPS)
def test_random_programs_match_python_list(ops):
    import boxfab.space2d as amr
    for kind in ("int", "string", "IntVect"):
        T = V(amr, kind)
        v, ref = T(), []
        counter = iter(range(1000))
        fresh = lambda: make(amr, kind, next(counter))  # noqa: E731
        for op, a, b, step, n in ops:
            if op == "append":
                x = fresh(); v.append(x); ref.append(x)
            elif op == "insert":
                x = fresh(); v.insert(a, x); ref.insert(a, x)
            elif op == "extend":
                xs = [fresh() for _ in range(n)]; v.extend(xs); ref.extend(xs)
            elif op in ("pop", "popi", "del", "set"):
                if op == "pop":
                    args = ()
                else:
                    args = (a,)
                try:
                    if op in ("pop", "popi"):
                        expect = ref.pop(*args)
                    elif op == "del":
                        del ref[a]
                    else:
                        x = fresh(); ref[a] = x
                except IndexError:
                    with pytest.raises(IndexError):
                        if op in ("pop", "popi"):
                            v.pop(*args)
                        elif op == "del":
                            del v[a]
                        else:
                            v[a] = x
                    continue
                if op in ("pop", "popi"):
                    assert key(v.pop(*args)) == key(expect)
                elif op == "del":
                    del v[a]
                else:
                    v[a] = x
            elif op == "delslice":
                del v[a:b:step]; del ref[a:b:step]
            elif op == "setslice":
                xs = [fresh() for _ in range(n)]; v[a:b] = xs; ref[a:b] = xs
            elif op == "setext":
                m = len(ref[a:b:step])
                xs = [fresh() for _ in range(m)]
                v[a:b:step] = T(xs); ref[a:b:step] = xs
                if m != n and step != 1:
                    with pytest.raises(ValueError, match="extended slice"):
                        v[a:b:step] = [fresh() for _ in range(n)]
            elif op == "clear":
                v.clear(); ref.clear()
            assert keys(v) == keys(ref), (kind, op, a, b, step, n)
            assert len(v) == len(ref) == v.size()


def test_methods_match_list(amr, kind):
    T = V(amr, kind)
    e = [make(amr, kind, i) for i in range(6)]
    v, ref = T(e[:3]), e[:3]
    v.append(e[3]); ref.append(e[3])
    v.insert(0, e[4]); ref.insert(0, e[4])
    v.insert(-1, e[5]); ref.insert(-1, e[5])
    v.insert(100, e[0]); ref.insert(100, e[0])
    v.insert(-100, e[1]); ref.insert(-100, e[1])
    v.extend(T(e[2:4])); ref.extend(e[2:4])
    v.extend(v); ref.extend(list(ref))                  # extending by itself
    assert keys(v) == keys(ref)
    assert key(v.pop()) == key(ref.pop()) and key(v.pop(0)) == key(ref.pop(0)) and key(v.pop(-2)) == key(ref.pop(-2))
    assert key(v.pop(i=1)) == key(ref.pop(1))
    assert keys(v) == keys(ref)
    v[::2] = v[1::2][: len(v[::2])] if len(v) % 2 == 0 else v[::2]
    ref[::2] = ref[1::2][: len(ref[::2])] if len(ref) % 2 == 0 else ref[::2]
    assert keys(v) == keys(ref)
    v[1:3] = v                                              # assigning itself
    ref[1:3] = list(ref)
    assert keys(v) == keys(ref)
    v.clear()
    assert len(v) == 0 and not v
    with pytest.raises(IndexError, match="empty"):
        v.pop()


def test_bad_indices_and_arguments(amr, kind):
    T = V(amr, kind)
    v = T([make(amr, kind, i) for i in range(3)])
    with pytest.raises(IndexError):
        v.pop(3)
    with pytest.raises(IndexError):
        del v[-4]
    with pytest.raises(IndexError):
        v[5] = make(amr, kind, 0)
    with pytest.raises(TypeError):
        v.pop("1")
    with pytest.raises(TypeError):
        v.insert("0", make(amr, kind, 0))
    with pytest.raises(TypeError):
        v.insert(0)
    with pytest.raises(ValueError, match="step"):
        v[::0]
    with pytest.raises(TypeError, match="iterable"):
        T(5)
    with pytest.raises(TypeError, match="iterable"):
        v.extend(5)
    with pytest.raises(TypeError, match="keyword"):
        T(other=v)
    with pytest.raises(TypeError):
        T(v, v)
    with pytest.raises(TypeError, match="unhashable"):
        hash(v)
    assert len(v) == 3


# ---- element type checks ---------------------------------------------------------------------
WRONG = {
    "Real": ["1.0", None, [1.0], 1j],
    "int": [1.5, "1", None, [1]],
    "Long": [1.5, "1", None],
    "string": [1, b"abc", None, ["a"]],
    "IntVect": [1, "12", None, "FLOATS"],
    "BoxArray": [1, None, "x"],
    "DistributionMapping": [1, None, [0, 0]],
    "Geometry": [1, None, "g"],
    "Box": [1, None, "b", "FLOATS"],
}


def test_elements_are_type_checked(amr, kind):
    T = V(amr, kind)
    good = make(amr, kind, 1)
    v = T([good])
    for bad in WRONG[kind]:
        if bad == "FLOATS":
            bad = [1.5] * amr.Config.spacedim
        for op in (lambda: v.append(bad), lambda: v.insert(0, bad), lambda: v.extend([good, bad]),
                   lambda: T([good, bad]), lambda: v.__setitem__(0, bad), lambda: v.__setitem__(slice(0, 1), [bad])):
            with pytest.raises(TypeError, match=f"Vector_{kind} element|must be"):
                op()
    assert keys(v) == keys([good])                      # nothing changed, not even by the failed extend
    if kind == "IntVect":
        with pytest.raises(ValueError, match="components"):
            v.append([1] * (amr.Config.spacedim + 1))


def test_int_ranges(amr):
    vi, vl = amr.Vector_int(), amr.Vector_Long()
    vi.extend([-2**31, 2**31 - 1])
    vl.extend([-2**63, 2**63 - 1])
    assert list(vi) == [-2**31, 2**31 - 1] and list(vl) == [-2**63, 2**63 - 1]
    for bad in (2**31, -2**31 - 1):
        with pytest.raises(OverflowError, match="C int"):
            vi.append(bad)
    for bad in (2**63, -2**63 - 1):
        with pytest.raises(OverflowError, match="64-bit"):
            vl.append(bad)
    assert list(amr.Vector_int([np.int32(3), True])) == [3, 1]          # int-likes
    assert list(amr.Vector_Real([1, np.float32(0.5), 2**70])) == [1.0, 0.5, float(2**70)]


def test_string_elements(amr):
    v = amr.Vector_string(["a", "ünï", ""])
    assert list(v) == ["a", "ünï", ""]
    with pytest.raises(ValueError, match="NUL"):
        v.append("a\0b")
    with pytest.raises(UnicodeEncodeError):
        v.append("\ud800")
    assert list(amr.Vector_string("ab")) == ["a", "b"]                 # a str is an iterable, like list("ab")


def test_dimensions_do_not_mix(amr):
    import boxfab.space1d as a1
    import boxfab.space3d as a3
    other = a3 if amr.Config.spacedim != 3 else a1
    v = amr.Vector_IntVect()
    with pytest.raises(TypeError, match="dimension"):
        v.append(other.IntVect(*[1] * other.Config.spacedim))
    with pytest.raises(TypeError, match="dimension"):
        amr.Vector_IntVect(other.Vector_IntVect([other.IntVect(*[1] * other.Config.spacedim)]))
    assert type(amr.Vector_Real) is not type(other.Vector_Real) or amr.Vector_Real is not other.Vector_Real
    assert amr.Vector_int([1]) != other.Vector_int([1])                 # different types never compare equal


# ---- comparison ------------------------------------------------------------------------------
@pytest.mark.parametrize("ckind", COMPARABLE)
def test_eq_contains_count_remove(amr, ckind):
    kind = ckind
    need(amr, kind)
    T = V(amr, kind)
    e = [make(amr, kind, i) for i in range(4)]
    v = T([e[0], e[1], e[0], e[2]])
    assert v == T([e[0], e[1], e[0], e[2]]) and not (v != T(v))
    assert v != T([e[0], e[1], e[0]]) and v != T([e[0], e[1], e[0], e[3]])
    assert (v == [e[0]]) is False and v != "x"
    # an equal but distinct element object is found
    assert make(amr, kind, 1) in v and make(amr, kind, 3) not in v
    assert v.count(make(amr, kind, 0)) == 2 and v.count(e[3]) == 0
    v.remove(make(amr, kind, 0))
    assert keys(v) == keys([e[1], e[0], e[2]])
    with pytest.raises(ValueError, match="not in"):
        v.remove(e[3])
    # foreign objects are simply not there
    assert "not-an-element" not in v or kind == "string"
    assert v.count(object()) == 0
    with pytest.raises(ValueError, match="not in"):
        v.remove(object())


def test_geometry_has_no_comparisons(amr):
    need(amr, "Geometry")
    T = amr.Vector_Geometry
    for name in ("count", "remove"):
        assert not hasattr(T, name)
    g = make(amr, "Geometry", 0)
    v = T([g])
    assert v == v and T([g]) != T([g])                                 # identity only
    with pytest.raises(TypeError):
        hash(v)


def test_comparable_kinds_have_methods(amr):
    for k in COMPARABLE:
        T = V(amr, k)
        assert hasattr(T, "count") and hasattr(T, "remove") and hasattr(T, "__contains__")


# ---- element semantics of handle kinds -----------------------------------------------------------
def test_boxarray_elements_are_values(amr):
    need(amr, "BoxArray")
    d = amr.Config.spacedim
    ba = amr.BoxArray(amr.Box([0] * d, [7] * d))
    v = amr.Vector_BoxArray([ba])
    before = key(v[0])
    ba.refine(2)                                      # copy on write: the vector keeps its value
    assert key(v[0]) == before and key(ba) != before
    x = v[0]
    x.refine(2)                                       # an element read out is a copy too
    assert key(v[0]) == before
    del ba, x
    gc.collect()
    assert key(v[0]) == before                        # still alive through the vector


def test_distmap_and_geometry_elements(amr):
    need(amr, "DistributionMapping")
    dm = amr.DistributionMapping(amr.Vector_int([0, 0, 0]))
    v = amr.Vector_DistributionMapping([dm, amr.DistributionMapping()])
    assert tuple(v[0].ProcessorMap()) == (0, 0, 0) and v[1].empty
    del dm
    assert tuple(v[0].ProcessorMap()) == (0, 0, 0)


# ---- zero-copy ------------------------------------------------------------------------------------
@pytest.fixture(params=list(NUMERIC))
def num(request):
    return request.param


def test_array_interface(amr, num):
    dtype, typestr = NUMERIC[num]
    v = V(amr, num)([1, 2, 3])
    ai = v.__array_interface__
    assert ai["shape"] == (3,) and ai["typestr"] == typestr and ai["strides"] is None and ai["version"] == 3
    assert isinstance(ai["data"][0], int) and ai["data"][1] is False
    a = np.asarray(v)
    assert a.dtype == dtype and a.tolist() == [1, 2, 3]
    assert np.shares_memory(a, np.asarray(v))
    assert a.__array_interface__["data"][0] == ai["data"][0]
    assert V(amr, num)().__array_interface__["shape"] == (0,)
    assert np.asarray(V(amr, num)()).shape == (0,)
    with pytest.raises(AttributeError, match="host memory"):
        v.__cuda_array_interface__
    assert not hasattr(v, "__cuda_array_interface__")
    assert not hasattr(amr.Vector_string(), "__array_interface__")


def test_zero_copy_both_directions(amr, num):
    v = V(amr, num)([0, 0, 0, 0])
    a = np.asarray(v)
    a[1] = 7                                          # numpy writes, the vector sees
    assert v[1] == 7
    v[2] = 9                                          # the vector writes, numpy sees
    assert a[2] == 9
    m = memoryview(v)
    assert m.format == np.dtype(NUMERIC[num][0]).char or m.itemsize == np.dtype(NUMERIC[num][0]).itemsize
    assert m.shape == (4,) and not m.readonly and m.tolist() == [0, 7, 9, 0]
    m.release()


def test_resizing_is_refused_while_a_view_exists(amr, num):
    v = V(amr, num)([1, 2, 3])
    a = np.asarray(v)
    for op in (lambda: v.append(4), lambda: v.insert(0, 4), lambda: v.extend([4]), lambda: v.pop(),
               lambda: v.clear(), lambda: v.__delitem__(0), lambda: v.__setitem__(slice(0, 1), [1, 2]),
               lambda: v.remove(1), lambda: v.__init__([5])):
        with pytest.raises(BufferError, match="delete the view"):
            op()
    v[0] = 10                                         # same size: allowed, visible through the view
    v[0:2] = [11, 12]
    v.extend([])
    assert a.tolist() == [11, 12, 3] and len(v) == 3
    del a
    gc.collect()
    v.append(4)                                       # no view any more
    assert list(v) == [11, 12, 3, 4]


def test_view_outlives_the_vector(amr, num):
    v = V(amr, num)(range(100))
    a = np.asarray(v)
    del v
    gc.collect()
    junk = [V(amr, num)([-1] * 100) for _ in range(20)]  # reuse of freed memory would show here
    assert a.tolist() == list(range(100))
    del junk


def test_array_interface_reader_keeps_data_valid_when_vector_grows(amr, num):
    """A consumer going through __array_interface__ only (no buffer export): the block stays allocated."""
    v = V(amr, num)([1, 2, 3])

    class OnlyInterface:
        def __init__(self, v):
            self.v = v
            self.__array_interface__ = v.__array_interface__

    a = np.asarray(OnlyInterface(v))
    assert np.shares_memory(a, np.asarray(v))
    for i in range(1000):
        v.append(i)                                   # several reallocations
    assert a.tolist() == [1, 2, 3] and len(v) == 1003
    assert list(v[:3]) == [1, 2, 3]


def test_lifetimes_in_a_subprocess():
    r = run_python("""
        import gc
        import numpy as np
        import boxfab.space3d as amr
        amr.initialize([])
        v = amr.Vector_Real([0.5 * i for i in range(1000)])
        a = np.asarray(v)
        b = a[::7]
        del v
        gc.collect()
        for _ in range(50):
            amr.Vector_Real([-1.0] * 1000)
        assert a[10] == 5.0 and b[1] == 3.5
        w = amr.Vector_int([1, 2])
        s = amr.Vector_string(["x"])
        iv = amr.Vector_IntVect([amr.IntVect(1, 2, 3)])
        amr.finalize()
        # pure containers stay usable after finalize
        w.append(3); s.append("y"); iv.append(amr.IntVect(0, 0, 0))
        assert list(w) == [1, 2, 3] and list(s) == ["x", "y"] and len(iv) == 2
        assert a.sum() == sum(0.5 * i for i in range(1000))
        amr.initialize([])
        amr.finalize()
    """)
    assert r.returncode == 0, r.stderr


def test_boxarray_from_vector_box(amr):
    d = amr.Config.spacedim
    boxes = [amr.Box([32 * i] * d, [32 * i + 31] * d) for i in range(3)]
    ba = amr.BoxArray(amr.Vector_Box(boxes))
    assert ba.size == 3 and [ba[i] for i in range(3)] == boxes and ba.numPts == 3 * 32**d
