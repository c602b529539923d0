"""Helpers for the MultiFab tests: layouts and gathering fab data into one global NumPy array."""
import numpy as np


def ensure_init(amr):
    if not amr.initialized():
        amr.initialize([])


def dim_of(amr):
    return int(amr.__name__[-2])


def make_ba(amr, n=16, max_size=8, lo=0):
    d = dim_of(amr)
    dom = amr.Box(amr.IntVect(*([lo] * d)), amr.IntVect(*([lo + n - 1] * d)))
    ba = amr.BoxArray(dom)
    ba.max_size(max_size)
    return dom, ba


def make_mf(amr, ncomp=2, ngrow=1, n=16, max_size=8, cls=None):
    ensure_init(amr)
    dom, ba = make_ba(amr, n, max_size)
    dm = amr.DistributionMapping(ba)
    cls = cls or amr.MultiFab
    return cls(ba, dm, ncomp, ngrow), dom


def box_lo_hi(b):
    return list(b.small_end), list(b.big_end)


def fill_random(mf, rng, ints=False):
    """Fill every cell (ghosts too) with random values; return nothing."""
    for mfi in mf:
        a = mf.array(mfi).to_numpy()
        if ints:
            a[...] = rng.integers(-50, 50, size=a.shape)
        else:
            a[...] = rng.standard_normal(a.shape)


def fabs(mf):
    """[(validbox lo, hi, fabbox lo, hi, view F-order [x,y,z,comp])] in MFIter order."""
    out = []
    for mfi in mf:
        vlo, vhi = box_lo_hi(mfi.validbox())
        flo, fhi = box_lo_hi(mfi.fabbox())
        out.append((vlo, vhi, flo, fhi, mf.array(mfi).to_numpy()))
    return out


def valid_part(view, vlo, vhi, flo, ng=None):
    """The valid cells grown by ng (list) of a fab view (F-order, [x,y,z,comp])."""
    d = len(vlo)
    ng = ng or [0] * d
    sl = []
    for k in range(3):
        if k < d:
            sl.append(slice(vlo[k] - ng[k] - flo[k], vhi[k] + ng[k] - flo[k] + 1))
        else:
            sl.append(slice(0, 1))
    return view[tuple(sl)]


def gather(mf, dom, ng=0):
    """Global array [x, y, z, comp] over dom (grown by ng) from the valid cells of every fab."""
    d = len(list(dom.small_end))
    lo = list(dom.small_end)
    hi = list(dom.big_end)
    shape = [hi[k] - lo[k] + 1 + 2 * ng if k < d else 1 for k in range(3)]
    out = np.full(shape + [mf.n_comp], np.nan)
    for vlo, vhi, flo, fhi, v in fabs(mf):
        part = valid_part(v, vlo, vhi, flo)
        sl = tuple(slice(vlo[k] - lo[k] + ng, vhi[k] - lo[k] + ng + 1) if k < d else slice(0, 1) for k in range(3))
        out[sl] = part
    return out
