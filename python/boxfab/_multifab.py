"""Python-level members of MultiFab / iMultiFab (API.md 2.8): to_numpy, to_cupy,
to_xp, imesh, shape, shape_with_ghosts and global indexing (``mf[...]``).

Only composition of C calls happens here: the views come from
``mf.array(mfi)`` (C), copies from ``dtoh_memcpy`` (C); NumPy does the
slicing.  ``attach(namespace)`` adds the members to the classes of one space
module (called by ``boxfab._space.populate``).

Global indexing (``mf[index]``, ``mf[index] = value``), the rules of API.md 2.8:

* positions: the N spatial indices (x first) then the component; absolute
  index-space values; the valid range of an axis is the minimal box's
  ``small_end[d] .. big_end[d]`` (component: ``0 .. n_comp - 1``);
* keys: ``...`` alone, one int / slice / imaginary number (first axis), or a
  tuple (at most one ``Ellipsis``, expanded to full slices; missing trailing
  entries mean the full valid range); more than N+1 entries raise
  ``Exception("Too many indices given")``, any other key type
  ``Exception("MultiFab.__getitem__: unexpected index type")``;
* slice ``start`` / ``stop`` ``None`` = the valid bounds; a purely imaginary
  number ``kj`` is a ghost position: ``-kj`` = k cells below the lower valid
  bound, ``+kj`` = k cells above the upper valid bound (a non-zero real part
  raises AssertionError); a negative int ``i`` means ``i + (hi - lo) + 1``;
  slice steps are ignored; slice stops are exclusive (Python's rule), and a
  slice range is clipped to the ghost-extended range (boxfab's choice: pyAMReX
  does not say);
* ``()`` as an axis entry selects the valid and ghost range of that axis
  (any other tuple raises AssertionError);
* a scalar entry (int or imaginary) selects one plane and must lie in the
  ghost-extended range, else ``AssertionError("Index out of range")``;
* in 1D / 2D the missing spatial axes are index 0;
* read: every local fab contributes the intersection of the selection with
  its valid box plus the ghost cells that lie outside the domain's minimal
  box (``with_internal_ghosts=True``: its whole fab box, then valid data on
  top, so valid data always win); when the boxes do not cover the minimal box
  the internal ghost cells are read first as well and valid data overwrite
  them.  The result is ``array.squeeze()[()]``; ``np.zeros(0)`` when nothing
  matched.  With MPI (``Config.have_mpi`` and more than one rank) the pieces
  are ``allgather``-ed with mpi4py;
* write: local only; ``value`` is a scalar or an array whose shape
  broadcasts to the selection with the single-index axes dropped; every local
  fab cell in the selection is written, ghost cells included.
"""
import numpy as np

_NAMES = ("to_numpy", "to_cupy", "to_xp", "imesh", "shape", "shape_with_ghosts", "__getitem__", "__setitem__")


def _module_of(mf):
    import importlib
    name = type(mf).__module__  # "boxfab.space3d"
    return importlib.import_module(name)


def _check_order(order):
    if order not in ("F", "C"):
        raise ValueError("The order argument must be F or C.")


# ---- views ------------------------------------------------------------------------
def to_numpy(self, copy=False, order="F"):
    """List of NumPy arrays, one per local tile in MFIter order, ghost cells included.

    order="F": indexed [x, y, z, comp]; order="C": [comp, z, y, x].  copy=False:
    views of the data (they keep the memory alive after ``del mf`` / ``mf.clear()``;
    ValueError for device memory, which NumPy cannot view: use to_cupy or copy=True);
    copy=True: views of a copy in pinned host memory made with ``dtoh_memcpy``
    (which waits for the GPU), also for device data."""
    _check_order(order)
    src = self
    if copy:
        amr = _module_of(self)
        info = amr.MFInfo().set_arena(amr.The_Pinned_Arena())
        try:
            src = type(self)(self.box_array(), self.dm(), self.n_comp, self.n_grow_vect, info)
            amr.dtoh_memcpy(src, self)
        except TypeError:  # a FabArray kind dtoh_memcpy does not take: copy each view instead
            return [self.array(mfi).to_numpy(copy=True, order=order) for mfi in self]
    return [src.array(mfi).to_numpy(copy=False, order=order) for mfi in src]


def to_cupy(self, copy=False, order="F"):
    """CuPy analogue of to_numpy (ImportError without CuPy): for device and managed
    memory zero-copy CuPy views (through ``__cuda_array_interface__``; they keep the
    memory alive); copy=True: CuPy copies.  Host memory has no CuPy view (ValueError
    unless copy=True)."""
    _check_order(order)
    import cupy  # noqa: F401  (ImportError without CuPy, also when there are no local fabs)
    return [self.array(mfi).to_cupy(copy=copy, order=order) for mfi in self]


def to_xp(self, copy=False, order="F"):
    """to_cupy when Config.have_gpu, else to_numpy."""
    amr = _module_of(self)
    if amr.Config.have_gpu:
        return self.to_cupy(copy=copy, order=order)
    return self.to_numpy(copy=copy, order=order)


# ---- mesh and shape --------------------------------------------------------------------
def _dim(self):
    return _module_of(self).Config.spacedim


def imesh(self, idir, include_ghosts=False):
    """Integer mesh along direction idir of box_array().minimal_box():
    arange(lo, hi + 1) + 0.5 when cell-centered in idir (+ 0 when nodal);
    include_ghosts extends it by n_grow_vect[idir] at both ends."""
    dim = _dim(self)
    if isinstance(idir, bool) or not isinstance(idir, (int, np.integer)):
        raise TypeError(f"imesh: idir must be an int, not {type(idir).__name__}")
    if not 0 <= idir < dim:
        raise IndexError(f"imesh: idir must be in [0, {dim}), got {idir}")
    mini = self.box_array().minimal_box()
    lo = mini.small_end[idir]
    hi = mini.big_end[idir]
    if include_ghosts:
        ng = self.n_grow_vect[idir]
        lo -= ng
        hi += ng
    mesh = np.arange(lo, hi + 1, dtype=np.float64)
    if not self.is_nodal(idir):
        mesh += 0.5
    return mesh


def shape(self):
    """Global shape: minimal_box().size per direction, then nComp."""
    mini = self.box_array().minimal_box()
    return tuple(mini.size) + (self.nComp,)


def shape_with_ghosts(self):
    """Global shape with 2 * n_grow_vect added to each spatial extent."""
    mini = self.box_array().minimal_box()
    ng = self.n_grow_vect
    return tuple(n + 2 * g for n, g in zip(mini.size, ng)) + (self.nComp,)


# ---- global indexing -------------------------------------------------------------------
def _is_int(v):
    return isinstance(v, (int, np.integer))


def _is_imag(v):
    return isinstance(v, (complex, np.complexfloating))


class _Selection:
    """A key turned into 4 internal axes [x, y, z, comp]: start (inclusive),
    stop (exclusive) and whether the axis was given as a single index."""

    def __init__(self, mf, index):
        dim = _dim(mf)
        mini = mf.box_array().minimal_box()
        ncomp = mf.nComp
        ngv = mf.n_grow_vect
        lo = [mini.small_end[d] for d in range(dim)] + [0]
        hi = [mini.big_end[d] for d in range(dim)] + [ncomp - 1]
        ng = [ngv[d] for d in range(dim)] + [0]
        entries = self._entries(index, dim + 1)
        starts, stops, scalar = [], [], []
        for ax, e in enumerate(entries):
            a, b, s = self._axis(e, lo[ax], hi[ax], ng[ax])
            starts.append(a)
            stops.append(b)
            scalar.append(s)
        # internal layout: x, y, z, comp (missing spatial axes fixed to 0)
        self.user_scalar = list(scalar)
        pad = 3 - dim
        self.start = starts[:dim] + [0] * pad + [starts[dim]]
        self.stop = stops[:dim] + [1] * pad + [stops[dim]]
        self.scalar = scalar[:dim] + [True] * pad + [scalar[dim]]
        self.lo, self.hi, self.ng, self.dim = lo, hi, ng, dim

    @staticmethod
    def _entries(index, n):
        if index is Ellipsis:
            return [slice(None)] * n
        if isinstance(index, tuple):
            items = list(index)
        elif _is_int(index) or _is_imag(index) or isinstance(index, slice):
            items = [index]
        else:
            raise Exception("MultiFab.__getitem__: unexpected index type")
        nell = sum(1 for e in items if e is Ellipsis)
        if nell > 1:
            raise Exception("MultiFab.__getitem__: only one Ellipsis is allowed")
        if nell == 1:
            at = next(i for i, e in enumerate(items) if e is Ellipsis)
            fill = max(0, n - (len(items) - 1))
            items = items[:at] + [slice(None)] * fill + items[at + 1:]
        if len(items) > n:
            raise Exception("Too many indices given")
        for e in items:
            if not (_is_int(e) or _is_imag(e) or isinstance(e, (slice, tuple))):
                raise Exception("MultiFab.__getitem__: unexpected index type")
        return items + [slice(None)] * (n - len(items))

    @staticmethod
    def _position(v, lo, hi):
        if _is_imag(v):
            assert v.real == 0, "Only purely imaginary numbers select ghost cells"
            k = int(v.imag)
            return lo + k if k < 0 else hi + k
        if not _is_int(v):
            raise Exception("MultiFab.__getitem__: unexpected index type")
        v = int(v)
        return v + (hi - lo) + 1 if v < 0 else v

    def _axis(self, e, lo, hi, ng):
        glo, ghi = lo - ng, hi + ng  # ghost-extended range, inclusive
        if isinstance(e, tuple):
            assert len(e) == 0, "Only the empty tuple () is accepted as an axis entry (valid and ghost range)"
            return glo, ghi + 1, False
        if isinstance(e, slice):
            a = lo if e.start is None else self._position(e.start, lo, hi)
            b = hi + 1 if e.stop is None else self._position(e.stop, lo, hi)
            a = min(max(a, glo), ghi + 1)
            b = min(max(b, a), ghi + 1)
            return a, b, False
        p = self._position(e, lo, hi)
        assert glo <= p <= ghi, "Index out of range"
        return p, p + 1, True

    @property
    def shape(self):
        return tuple(b - a for a, b in zip(self.start, self.stop))

    def intersect(self, box_lo, box_hi, ncomp):
        """Overlap of the selection with a region [box_lo, box_hi] (3 spatial
        entries, inclusive) and all components: (lo4, hi4) exclusive, or None."""
        lo4 = [max(self.start[d], box_lo[d]) for d in range(3)] + [max(self.start[3], 0)]
        hi4 = [min(self.stop[d], box_hi[d] + 1) for d in range(3)] + [min(self.stop[3], ncomp)]
        if any(b <= a for a, b in zip(lo4, hi4)):
            return None
        return lo4, hi4


def _corners(box, dim):
    lo = [box.small_end[d] for d in range(dim)] + [0] * (3 - dim)
    hi = [box.big_end[d] for d in range(dim)] + [0] * (3 - dim)
    return lo, hi


def _host(a):
    """A host NumPy array from a view (device data copied with .get())."""
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else a


def _like(view, arr):
    """`arr` (host) as an array of the kind of `view` (CuPy for device views)."""
    if isinstance(view, np.ndarray):
        return arr
    import cupy
    return cupy.asarray(arr)


def _fab_views(mf):
    """(validbox, fabbox, F-ordered view [x, y, z, comp]) per local fab: a NumPy view
    of host-accessible memory (host, pinned, managed), a CuPy view of device memory."""
    out = []
    for mfi in mf:
        arr = mf.array(mfi)
        if _host_accessible(arr):
            view = arr.to_numpy(copy=False, order="F")
        else:
            view = arr.to_cupy(copy=False, order="F")
        out.append((mfi.validbox(), mfi.fabbox(), view))
    return out


def _host_accessible(arr):
    try:
        arr.__array_interface__
    except AttributeError:
        return False
    return True


def _covered(mf):
    ba = mf.box_array()
    return ba.numPts == ba.minimal_box().numPts()


def _getitem(self, index, with_internal_ghosts=False):
    sel = _Selection(self, index)
    dim = sel.dim
    ncomp = self.nComp
    mini_lo = sel.lo[:dim]
    mini_hi = sel.hi[:dim]
    views = _fab_views(self)
    dtype = views[0][2].dtype if views else np.float64
    result = np.zeros(sel.shape, dtype=dtype)
    matched = np.zeros(sel.shape[:3], dtype=bool) if views else None
    pieces = []  # (lo4, hi4, data) for the MPI gather

    def put(region_lo, region_hi, fab_lo, view):
        r = sel.intersect(region_lo, region_hi, ncomp)
        if r is None:
            return
        lo4, hi4 = r
        src = tuple(slice(lo4[d] - fab_lo[d], hi4[d] - fab_lo[d]) for d in range(3)) + (slice(lo4[3], hi4[3]),)
        dst = tuple(slice(lo4[d] - sel.start[d], hi4[d] - sel.start[d]) for d in range(4))
        data = _host(view[src])
        result[dst] = data
        matched[dst[:3]] = True
        pieces.append((lo4, hi4, np.array(data)))

    first_internal = with_internal_ghosts or not _covered(self)
    if first_internal:
        for vb, fb, view in views:
            flo, fhi = _corners(fb, dim)
            put(flo, fhi, flo, view)
    for vb, fb, view in views:
        flo, fhi = _corners(fb, dim)
        vlo, vhi = _corners(vb, dim)
        # valid box, grown only where it touches the outer boundary of the minimal box
        rlo = [flo[d] if d < dim and vlo[d] == mini_lo[d] else vlo[d] for d in range(3)]
        rhi = [fhi[d] if d < dim and vhi[d] == mini_hi[d] else vhi[d] for d in range(3)]
        put(rlo, rhi, flo, view)

    amr = _module_of(self)
    if amr.Config.have_mpi and amr.ParallelDescriptor.NProcs() > 1:
        try:
            from mpi4py import MPI
        except ImportError as e:
            raise Exception("MultiFab.__getitem__: reading a distributed MultiFab needs mpi4py") from e
        everything = MPI.COMM_WORLD.allgather(pieces)
        result = np.zeros(sel.shape, dtype=dtype)
        matched = np.zeros(sel.shape[:3], dtype=bool)
        for rank_pieces in everything:
            for lo4, hi4, data in rank_pieces:
                dst = tuple(slice(lo4[d] - sel.start[d], hi4[d] - sel.start[d]) for d in range(4))
                result[dst] = data
                matched[dst[:3]] = True
    if matched is None or not matched.any():
        return np.zeros(0)
    return result.squeeze()[()]


def _setitem(self, index, value):
    sel = _Selection(self, index)
    dim = sel.dim
    ncomp = self.nComp
    full = sel.shape
    reduced = tuple(n for n, s in zip(full, sel.scalar) if not s)
    if np.isscalar(value) or (isinstance(value, np.ndarray) and value.ndim == 0):
        v = None
        scalar_value = value
    else:
        arr = _host(value) if not isinstance(value, np.ndarray) else value
        arr = np.asarray(arr)
        try:
            arr = np.broadcast_to(arr, reduced)
        except ValueError:
            raise ValueError(f"MultiFab.__setitem__: a value of shape {np.shape(value)} does not fit the "
                             f"selection of shape {reduced}") from None
        v = arr.reshape(full)
    for vb, fb, view in _fab_views(self):
        flo, fhi = _corners(fb, dim)
        r = sel.intersect(flo, fhi, ncomp)
        if r is None:
            continue
        lo4, hi4 = r
        dst = tuple(slice(lo4[d] - flo[d], hi4[d] - flo[d]) for d in range(3)) + (slice(lo4[3], hi4[3]),)
        if v is None:
            view[dst] = scalar_value
        else:
            src = tuple(slice(lo4[d] - sel.start[d], hi4[d] - sel.start[d]) for d in range(4))
            view[dst] = _like(view, v[src])


def __getitem__(self, index, with_internal_ghosts=False):
    """Global-index read (API.md 2.8; see the module documentation for the rules)."""
    return _getitem(self, index, with_internal_ghosts)


def __setitem__(self, index, value):
    """Global-index write (local, ghost cells included)."""
    _setitem(self, index, value)


def attach(namespace):
    """Add the members to MultiFab and iMultiFab of a space-module namespace."""
    for cls_name in ("MultiFab", "iMultiFab"):
        cls = namespace.get(cls_name)
        if cls is None:
            continue
        cls.to_numpy = to_numpy
        cls.to_cupy = to_cupy
        cls.to_xp = to_xp
        cls.imesh = imesh
        cls.shape = property(shape, doc=shape.__doc__)
        cls.shape_with_ghosts = property(shape_with_ghosts, doc=shape_with_ghosts.__doc__)
        cls.__getitem__ = __getitem__
        cls.__setitem__ = __setitem__
