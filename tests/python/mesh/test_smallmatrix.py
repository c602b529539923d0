"""SmallMatrix_<R>x<C>_F_SI1_<T> (pyAMReX 26, AMReX_SmallMatrix.H) against NumPy on the same values:
storage order, products, transposes, reductions, exports, errors."""
import sys

import numpy as np
import pytest

SHAPES = [(6, 6), (6, 1), (1, 6), (3, 6), (3, 1), (6, 3), (1, 3)]
TYPES = {"float": np.float32, "double": np.float64, "longdouble": np.longdouble}


def cls(amr, r, c, t="double"):
    return getattr(amr, f"SmallMatrix_{r}x{c}_F_SI1_{t}")


def rand(r, c, t, seed=0):
    """A matrix with random values and its NumPy twin (math layout [row, col])."""
    rng = np.random.default_rng(seed + 10 * r + c)
    return rng.integers(-9, 10, size=(r, c)).astype(TYPES[t]) / 4


def make(amr, a, t):
    r, c = a.shape
    # the constructor copies an array's C order into the column-major storage: pass the columns
    src = a.T.copy() if r > 1 and c > 1 else a.ravel()
    return cls(amr, r, c, t)(src)


@pytest.mark.parametrize("t", list(TYPES))
@pytest.mark.parametrize("shape", SHAPES)
def test_storage_indexing_and_reductions(amr, shape, t):
    r, c = shape
    a = rand(r, c, t)
    m = make(amr, a, t)
    assert (m.size, m.row_size, m.column_size, m.order, m.starting_index) == (r * c, r, c, "F", 1)
    for i in range(1, r + 1):
        for j in range(1, c + 1):
            assert m[i, j] == a[i - 1, j - 1]
    if r == 1 or c == 1:
        assert [m[k] for k in range(1, r * c + 1)] == list(a.ravel())
    v = m.to_numpy()
    assert v.shape == (r, c) and np.array_equal(v, a) and v.flags["F_CONTIGUOUS"]
    assert np.array_equal(m.to_numpy(order="C"), a.T)
    assert m.sum() == pytest.approx(float(a.sum(dtype=TYPES[t])))
    assert m.prod() == pytest.approx(float(np.prod(a.ravel(order="F"))))
    assert m.dot(m) == pytest.approx(float((a * a).sum()))
    if r == c:
        assert m.trace() == pytest.approx(float(np.trace(a)))
        assert np.array_equal(cls(amr, r, c, t).identity().to_numpy(), np.eye(r))
        assert m.transpose_in_place() is m and np.array_equal(m.to_numpy(), a.T)
    else:
        assert not hasattr(m, "trace") and not hasattr(m, "identity")
    assert np.array_equal(m.T.to_numpy(), m.to_numpy().T) and m.T.row_size == m.column_size
    m.set_val(2.5)
    assert np.all(m.to_numpy() == 2.5)
    z = cls(amr, r, c, t).zero()
    assert z.sum() == 0 and type(z) is cls(amr, r, c, t)


@pytest.mark.parametrize("t", ["float", "double"])
def test_arithmetic_matches_numpy(amr, t):
    dt = TYPES[t]
    for (r, k), (k2, c) in [((6, 6), (6, 6)), ((6, 6), (6, 1)), ((1, 6), (6, 6)), ((3, 6), (6, 1)),
                            ((3, 6), (6, 6)), ((6, 1), (1, 6)), ((6, 3), (3, 6)),
                            ((6, 3), (3, 1)), ((1, 3), (3, 6))]:
        a, b = rand(r, k, t, 1), rand(k2, c, t, 2)
        p = make(amr, a, t) * make(amr, b, t)
        # AMReX's loop order: r(i, j) = sum_l a(i, l) * b(l, j), summed in l order in the element type
        ref = np.zeros((r, c), dt)
        for i in range(r):
            for j in range(c):
                s = dt(0)
                for ll in range(k):
                    s = dt(s + a[i, ll] * b[ll, j])
                ref[i, j] = s
        assert np.array_equal(p.to_numpy(), ref)
    a, b = rand(6, 6, t, 3), rand(6, 6, t, 4)
    A, B = make(amr, a, t), make(amr, b, t)
    assert np.array_equal((A + B).to_numpy(), a + b)
    assert np.array_equal((A - B).to_numpy(), a - b)
    assert np.array_equal((-A).to_numpy(), -a)
    assert np.array_equal((A * 2.0).to_numpy(), a * dt(2)) and np.array_equal((2.0 * A).to_numpy(), a * dt(2))
    C = cls(amr, 6, 6, t)(A)
    C *= -1.0
    assert np.array_equal(C.to_numpy(), -a) and np.array_equal(A.to_numpy(), a)


def test_errors(amr):
    m = cls(amr, 6, 6)()
    v = cls(amr, 6, 1)()
    for bad in ((0, 1), (1, 0), (7, 1), (1, 7)):
        with pytest.raises(IndexError):
            m[bad]
        with pytest.raises(RuntimeError):  # pyAMReX's type too
            m[bad] = 1.0
    for bad in (0, 7, -1):
        with pytest.raises(IndexError):
            v[bad]
    with pytest.raises(TypeError):
        m[1]
    with pytest.raises(TypeError):
        m[1, 1] = "x"
    with pytest.raises(ValueError):
        cls(amr, 6, 6)(np.ones(36))
    with pytest.raises(ValueError):
        cls(amr, 6, 1)(np.ones(5))
    with pytest.raises(ValueError):
        cls(amr, 6, 1)(np.ones((6, 1)))
    with pytest.raises(TypeError):
        cls(amr, 6, 6)(cls(amr, 6, 1)())
    with pytest.raises(TypeError):
        cls(amr, 6, 1)() * cls(amr, 6, 1)()
    with pytest.raises(TypeError):
        m + v
    with pytest.raises(TypeError):
        m + cls(amr, 6, 6, "float")()
    with pytest.raises(TypeError):
        m.dot(v)
    with pytest.raises(TypeError):
        m * "2"
    with pytest.raises(TypeError):
        del m[1, 1]


def test_exports_and_lifetime(amr):
    m = cls(amr, 6, 6).identity()
    m[2, 1] = 7.0
    x = np.from_dlpack(m)
    assert np.array_equal(x, m.to_numpy(order="C")) and x[0, 1] == 7.0  # C view: [col, row]
    before = sys.getrefcount(m)
    y = np.from_dlpack(m)
    z = m.to_numpy()
    assert sys.getrefcount(m) >= before + 2
    y[0, 0] = 5.0
    assert m[1, 1] == 5.0 and z[0, 0] == 5.0
    assert m.__dlpack_device__() == (1, 0)
    del m
    assert y[0, 0] == 5.0 and z[1, 0] == 7.0
    ld = cls(amr, 6, 6, "longdouble").identity()
    assert not hasattr(ld, "__dlpack__") and np.asarray(ld).dtype == np.longdouble
    assert np.array_equal(np.asarray(ld), np.eye(6))
    assert "SmallMatrix_6x1_F_SI1_double" in repr(cls(amr, 6, 1)([1, 2, 3, 4, 5, 6]))


def test_almost_equal(amr):
    assert amr.almost_equal(1.0, 1.0 + 2**-52)
    assert not amr.almost_equal(1.0, 1.0 + 2**-48)
    assert amr.almost_equal(0.0, 1e-310)
    assert amr.almost_equal(1.0, 1.0 + 2**-49, 16)
    with pytest.raises(TypeError):
        amr.almost_equal("a", 1.0)
