"""Python-level members of MultiFab / iMultiFab (API.md 2.8): to_numpy, to_cupy,
to_xp, their one-array forms to_numpy_stacked, to_cupy_stacked, to_xp_stacked
(over ``mf.stacked()``, C), imesh, shape, shape_with_ghosts and global indexing (``mf[...]``).

Only composition of C calls happens here: the views come from
``mf.array(mfi)`` (C), copies from ``dtoh_memcpy`` (C); NumPy does the
slicing.  ``attach(namespace)`` adds the members to the classes of one space
module (called by ``boxfab._space.populate``).

Global indexing (``mf[index]``, ``mf[index] = value``) follows pyAMReX's
extension (src/amrex/extensions/MultiFab.py), with exceptions where pyAMReX
asserts or would return wrong data:

* positions: the N spatial indices (x first) then the component; absolute
  index-space values; the valid range of an axis is the minimal box's
  ``small_end[d] .. big_end[d]`` (component: ``0 .. n_comp - 1``);
* keys: ``...`` alone, one int / slice / imaginary number (first axis), or a
  tuple (at most one ``Ellipsis``, expanded to full slices, else IndexError;
  missing trailing entries mean the full valid range); more than N+1 entries
  raise ``IndexError("Too many indices given")``, any other key or entry type
  ``TypeError("MultiFab.__getitem__: unexpected index type ...")``;
* slice ``start`` / ``stop`` ``None`` = the valid bounds; a purely imaginary
  number ``kj`` is a ghost position: ``kj`` with k <= 0 = k cells below the
  lower valid bound, k > 0 = k cells above the upper valid bound (a non-zero
  real part or a fractional k raises IndexError); a negative int ``i`` means
  ``i + (hi - lo) + 1``; slice stops are exclusive; steps other than 1 raise
  ValueError (pyAMReX ignores them); spatial slices may reach past the ghost
  cells (as pyAMReX: such cells read as 0 and are not written), but a
  non-empty spatial slice wholly outside the ghost-extended range raises
  IndexError (pyAMReX reads ``np.zeros(0)`` and writes nothing); component
  slices outside ``[0, n_comp]`` raise IndexError;
* ``()`` as an axis entry selects the valid and ghost range of that axis
  (any other tuple raises IndexError);
* a scalar entry (int or imaginary) selects one plane and must lie in the
  ghost-extended range, else ``IndexError("Index out of range ...")`` (also
  under ``python -O``);
* in 1D / 2D the missing spatial axes are index 0;
* read: every local fab contributes, in MFIter order, the intersection of the
  selection with its valid box grown by its ghost cells only where it touches
  the outside of the minimal box; when the cells of the BoxArray do not fill
  the minimal box, a first pass reads the whole fab boxes (internal ghosts
  included) and the valid pass overwrites it.  ``with_internal_ghosts=True``:
  only that first pass, and the 4-D (x, y, z, component) result is returned
  unsqueezed; otherwise ``array.squeeze()[()]``; ``np.zeros(0)`` when no fab
  matched.  With MPI (``Config.have_mpi`` and more than one rank) the pieces
  are ``allgather``-ed with mpi4py over the communicator of the MultiFab's
  runtime instance (``mf._communicator()``; pyAMReX: COMM_WORLD) and placed in
  global box order (pyAMReX: rank order), so every rank gets the one-rank
  result; a read is collective (every rank must make it);
* write: local only (pyAMReX): each rank writes the cells of its own fabs, so
  a write reaches the owning rank when every rank makes it with the same value
  (a write made on one rank only changes that rank's fabs); every local fab
  cell in the selection is written, ghost cells included.  ``value``: a real number (None, str, complex raise
  TypeError; in an iMultiFab a fractional or non-finite value raises
  ValueError, one out of range OverflowError); a NumPy array gets pyAMReX's
  shape rule (each length-1 axis of the 4-D selection is inserted into its
  shape, then NumPy broadcasting against the whole selection); lists and
  other arrays broadcast against the 4-D selection as they are.  A value
  that does not broadcast raises ValueError.
"""
import numpy as np

_NAMES = ("to_numpy", "to_cupy", "to_xp", "to_numpy_stacked", "to_cupy_stacked", "to_xp_stacked", "imesh", "shape",
          "shape_with_ghosts", "__getitem__", "__setitem__")


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


# ---- one array over all boxes ------------------------------------------------------
def to_numpy_stacked(self, copy=False, order="F"):
    """One NumPy array over every local box, ghost cells included: order="F" indexed
    [box, x, y, z, comp], order="C" [box, comp, z, y, x]; the box axis in MFIter order, so
    that ``a[b]`` is ``to_numpy()[b]``.  Needs local boxes of one shape (boxes of one size:
    a domain whose sides are multiples of max_grid_size), else ValueError naming two boxes
    that differ.  copy=False: a zero-copy view (keeps the memory alive; ValueError for
    device memory); copy=True: a host copy.  ``stacked()`` gives the view object itself
    (for torch.from_dlpack, jax.dlpack, numba.cuda.as_cuda_array)."""
    _check_order(order)
    return self.stacked().to_numpy(copy=copy, order=order)


def to_cupy_stacked(self, copy=False, order="F"):
    """CuPy analogue of to_numpy_stacked (ImportError without CuPy): a zero-copy CuPy view of
    device or managed memory, one kernel's worth of every box; copy=True: a CuPy copy.  Host
    memory has no CuPy view (ValueError unless copy=True)."""
    _check_order(order)
    return self.stacked().to_cupy(copy=copy, order=order)


def to_xp_stacked(self, copy=False, order="F"):
    """to_cupy_stacked when Config.have_gpu, else to_numpy_stacked."""
    amr = _module_of(self)
    if amr.Config.have_gpu:
        return self.to_cupy_stacked(copy=copy, order=order)
    return self.to_numpy_stacked(copy=copy, order=order)


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
# pyAMReX's extension (src/amrex/extensions/MultiFab.py: _process_index,
# _get_intersect_slice, __getitem__, __setitem__) decides the rules; boxfab
# raises IndexError / TypeError / ValueError where pyAMReX asserts (its checks
# vanish under ``python -O``) or returns silently wrong data.
_KEY_TYPE = "MultiFab.__getitem__: unexpected index type"


def _is_int(v):
    return isinstance(v, (int, np.integer))


def _is_imag(v):
    return isinstance(v, (complex, np.complexfloating))


def _position(v, lo, hi):
    """An int or imaginary index of an axis with valid range lo..hi as an absolute
    position: ``kj`` (k <= 0) = lo + k, ``kj`` (k > 0) = hi + k, a negative int i =
    i + (hi - lo) + 1 (pyAMReX's _handle_imaginary_negative_index)."""
    if _is_imag(v):
        if v.real != 0:
            raise IndexError(f"Ghost indices must be purely imaginary, got {v!r}")
        k = float(v.imag)
        if not k.is_integer():
            raise IndexError(f"Ghost indices must be whole multiples of 1j, got {v!r}")
        k = int(k)
        return lo + k if k <= 0 else hi + k
    if _is_int(v):
        v = int(v)
        return v + (hi - lo) + 1 if v < 0 else v
    raise TypeError(f"{_KEY_TYPE} ({type(v).__name__} in an index)")


class _Selection:
    """A key as 4 internal axes [x, y, z, comp]: start (inclusive) and stop
    (exclusive), absolute positions (pyAMReX's _process_index)."""

    def __init__(self, mf, index):
        dim = _dim(mf)
        mini = mf.box_array().minimal_box()
        ncomp = mf.nComp
        ngv = mf.n_grow_vect
        lo = [mini.small_end[d] for d in range(dim)] + [0]
        hi = [mini.big_end[d] for d in range(dim)] + [ncomp - 1]
        ng = [ngv[d] for d in range(dim)] + [0]
        entries = self._entries(index, dim + 1)
        starts, stops = [], []
        for ax, e in enumerate(entries):
            a, b = self._axis(e, lo[ax], hi[ax], ng[ax], ax == dim)
            starts.append(a)
            stops.append(b)
        # missing spatial axes (1D / 2D) are the index 0
        pad = 3 - dim
        self.start = starts[:dim] + [0] * pad + [starts[dim]]
        self.stop = stops[:dim] + [1] * pad + [stops[dim]]
        self.lo, self.hi, self.dim = lo, hi, dim

    @staticmethod
    def _entries(index, n):
        if index is Ellipsis:
            return [slice(None)] * n
        if isinstance(index, tuple):
            items = list(index)
        elif _is_int(index) or _is_imag(index) or isinstance(index, slice):
            items = [index]  # pyAMReX: slice or int; boxfab also takes an imaginary number
        else:
            raise TypeError(f"{_KEY_TYPE} ({type(index).__name__})")
        at = [i for i, e in enumerate(items) if e is Ellipsis]
        if len(at) > 1:
            raise IndexError("MultiFab global index: an index can only have a single ellipsis ('...')")
        if at:
            i = at[0]
            items = items[:i] + [slice(None)] * max(0, n + 1 - len(items)) + items[i + 1:]
        if len(items) > n:
            raise IndexError("Too many indices given")
        for e in items:
            if not (_is_int(e) or _is_imag(e) or isinstance(e, (slice, tuple))):
                raise TypeError(f"{_KEY_TYPE} ({type(e).__name__} in an index)")
        return items + [slice(None)] * (n - len(items))

    @staticmethod
    def _axis(e, lo, hi, ng, comp):
        glo, ghi = lo - ng, hi + ng  # ghost-extended range, inclusive
        if isinstance(e, tuple):
            if len(e) != 0:
                raise IndexError("Indicator to include all ghost cells must be an empty tuple")
            return glo, ghi + 1
        if isinstance(e, slice):
            if e.step is not None and not (_is_int(e.step) and e.step == 1):
                raise ValueError(f"MultiFab global index: slice steps other than 1 are not supported, got {e.step!r}")
            a = lo if e.start is None else _position(e.start, lo, hi)
            b = hi + 1 if e.stop is None else _position(e.stop, lo, hi)
            # spatial slices may reach past the ghost cells (cells without data read as 0),
            # but not lie wholly outside them: such a selection names no cell at all (pyAMReX
            # returns np.zeros(0) and writes nothing, without a word); a component outside
            # [0, n_comp) does not exist
            if comp and not (0 <= a <= ghi + 1 and 0 <= b <= ghi + 1):
                raise IndexError(f"Component slice {e.start!r}:{e.stop!r} reaches outside [0, {ghi + 1}]")
            if not comp and a < b and (b <= glo or a > ghi):
                raise IndexError(f"Index out of range: slice {e.start!r}:{e.stop!r} selects cells {a}..{b - 1}, "
                                 f"all outside {glo}..{ghi}")
            return a, b
        p = _position(e, lo, hi)
        if not glo <= p <= ghi:
            what = "component" if comp else "cell"
            raise IndexError(f"Index out of range: {what} {p} (from {e!r}) is outside {glo}..{ghi}")
        return p, p + 1

    @property
    def shape(self):
        return tuple(max(0, b - a) for a, b in zip(self.start, self.stop))

    def pieces(self, rlo, rhi, flo):
        """The overlap of the selection's cells with the region [rlo, rhi] (3 entries,
        inclusive) of a fab whose data start at flo: (fab slices, result slices), or
        None when the spatial overlap is empty (pyAMReX's _get_intersect_slice)."""
        i1 = [max(self.start[d], rlo[d]) for d in range(3)]
        i2 = [min(self.stop[d], rhi[d] + 1) for d in range(3)]
        if any(b <= a for a, b in zip(i1, i2)):
            return None
        comp = slice(self.start[3], self.stop[3])
        fab = tuple(slice(i1[d] - flo[d], i2[d] - flo[d]) for d in range(3)) + (comp,)
        res = tuple(slice(i1[d] - self.start[d], i2[d] - self.start[d]) for d in range(3))
        return fab, res + (slice(0, max(0, self.stop[3] - self.start[3])),)


def _corners(box, dim):
    lo = [box.small_end[d] for d in range(dim)] + [0] * (3 - dim)
    hi = [box.big_end[d] for d in range(dim)] + [0] * (3 - dim)
    return lo, hi


def _host(a):
    """A host NumPy array from a view (device data copied with .get())."""
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else a


def _like(view, arr):
    """`arr` as an array of the kind of `view` (NumPy for host views, CuPy for device views)."""
    if isinstance(view, np.ndarray):
        return _host(arr)
    import cupy
    return cupy.asarray(arr)


def _fab_views(mf):
    """(global box index, validbox, fabbox, F-ordered view [x, y, z, comp]) per
    local fab: a NumPy view of host-accessible memory (host, pinned, managed), a
    CuPy view of device memory."""
    out = []
    for mfi in mf:
        arr = mf.array(mfi)
        if _host_accessible(arr):
            view = arr.to_numpy(copy=False, order="F")
        else:
            view = arr.to_cupy(copy=False, order="F")
        out.append((mfi.index, mfi.validbox(), mfi.fabbox(), view))
    return out


def _host_accessible(arr):
    try:
        arr.__array_interface__
    except AttributeError:
        return False
    return True


def _complete(mf):
    """pyAMReX's test: the cells of the BoxArray fill its minimal box."""
    cells = mf.box_array().enclosed_cells()
    return cells.numPts == cells.minimal_box().numPts()


def _read_pieces(sel, views, dim, mini_lo, mini_hi, internal):
    """[(global box index, result slices, host data)] in MFIter order:
    internal=True the whole fab boxes, else the valid boxes grown only where they
    touch the outside of the minimal box."""
    out = []
    for index, vb, fb, view in views:
        flo, fhi = _corners(fb, dim)
        if internal:
            rlo, rhi = flo, fhi
        else:
            vlo, vhi = _corners(vb, dim)
            rlo = [flo[d] if d < dim and vlo[d] == mini_lo[d] else vlo[d] for d in range(3)]
            rhi = [fhi[d] if d < dim and vhi[d] == mini_hi[d] else vhi[d] for d in range(3)]
        p = sel.pieces(rlo, rhi, flo)
        if p is not None:
            out.append((index, p[1], _host(view[p[0]])))
    return out


def _communicator(mf):
    """The mpi4py communicator of the MultiFab's runtime instance when it has
    several ranks, else None (pyAMReX: ``Config.have_mpi`` and ``NProcs() > 1``)."""
    amr = _module_of(mf)
    if not amr.Config.have_mpi:
        return None
    # the MultiFab's own instance (pyAMReX uses COMM_WORLD, wrong on a split
    # communicator; ParallelDescriptor is the top instance's, wrong for a
    # MultiFab of an outer instance while a nested one runs on another
    # communicator: each group then gathered only its own pieces)
    try:
        return mf._communicator()
    except ImportError as e:
        raise Exception("MultiFab.__getitem__ requires mpi4py") from e


def _getitem(self, index, with_internal_ghosts=False):
    sel = _Selection(self, index)
    if not self.ok() and self.size > 0:
        # raised on every rank alike (array(mfi) would raise only where fabs are,
        # leaving the other ranks in the gather)
        raise RuntimeError("MultiFab.__getitem__: the MultiFab holds no data (made with alloc=False, or cleared, "
                           "or made before finalize())")
    dim = sel.dim
    views = _fab_views(self)
    mini_lo, mini_hi = sel.lo[:dim], sel.hi[:dim]
    # pyAMReX: when the boxes leave holes in the minimal box the internal ghost
    # cells are read first, then the valid data (later pieces overwrite earlier ones)
    passes = [True] if with_internal_ghosts else ([False] if _complete(self) else [True, False])
    phases = [_read_pieces(sel, views, dim, mini_lo, mini_hi, internal) for internal in passes]
    comm = _communicator(self)
    if comm is not None:
        # collective: every rank gets every rank's pieces (pyAMReX's allgather),
        # placed in global box order, the order one rank places them in, so that
        # overlapping ghost cells read the same on any number of ranks
        ranks = comm.allgather(phases)
        phases = [sorted((p for r in ranks for p in r[i]), key=lambda p: p[0]) for i in range(len(passes))]
    result = None
    for phase in phases:
        for _, dst, data in phase:
            if result is None:
                result = np.zeros(sel.shape, dtype=data.dtype)
            result[dst] = data
    if result is None:
        return np.zeros(0)  # nothing matched (pyAMReX)
    if with_internal_ghosts:
        return result  # pyAMReX: not squeezed
    return result.squeeze()[()]


def _target_dtype(views, mf):
    if views:
        return views[0][3].dtype
    return np.dtype(np.int32) if type(mf).__name__ == "iMultiFab" else np.dtype(np.float64)


def _check_values(arr, dtype, xp=np):
    """TypeError / ValueError / OverflowError where NumPy's assignment would store
    something else than the value (None as NaN, a complex number's real part, a
    truncated float or a wrapped integer in an integer MultiFab)."""
    kind = arr.dtype.kind
    if kind not in "biuf":
        what = "complex numbers" if kind == "c" else "not real numbers"
        raise TypeError(f"MultiFab.__setitem__: cannot store values of dtype {arr.dtype} ({what}) "
                        f"in a MultiFab of {dtype}")
    if dtype.kind not in "iu" or kind == "b" or arr.size == 0:
        return
    if kind == "f":
        if not bool(xp.all(xp.isfinite(arr))):
            raise ValueError(f"MultiFab.__setitem__: cannot store NaN or infinity in a MultiFab of {dtype}")
        if not bool(xp.all(arr == xp.trunc(arr))):
            raise ValueError(f"MultiFab.__setitem__: cannot store a non-integral value in a MultiFab of {dtype}")
    info = np.iinfo(dtype)
    lo, hi = arr.min().item(), arr.max().item()
    if lo < info.min or hi > info.max:
        raise OverflowError(f"MultiFab.__setitem__: values {lo}..{hi} do not fit a MultiFab of {dtype}")


def _scalar(value, dtype):
    """The value when it is a real number that the MultiFab's dtype holds exactly
    (TypeError / ValueError / OverflowError otherwise), None when not a number."""
    if isinstance(value, (bool, np.bool_)):
        return value
    if isinstance(value, (complex, np.complexfloating)):
        raise TypeError(f"MultiFab.__setitem__: cannot store a complex number in a MultiFab of {dtype}")
    if isinstance(value, (int, np.integer)):
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            if not info.min <= int(value) <= info.max:
                raise OverflowError(f"MultiFab.__setitem__: {value} does not fit a MultiFab of {dtype}")
        else:
            float(value)  # OverflowError when too large for a double
        return value
    if isinstance(value, (float, np.floating)):
        if dtype.kind in "iu":
            _check_values(np.asarray(value, dtype=np.float64), dtype)
        return value
    return None


def _value(value, sel, dtype):
    """('scalar', v) or ('array', a) with a.shape == sel.shape (a broadcast view)."""
    if value is None or isinstance(value, (str, bytes, bytearray)):
        raise TypeError(f"MultiFab.__setitem__: the value must be a number or an array, not {type(value).__name__}")
    s = _scalar(value, dtype)
    if s is not None:
        return "scalar", s
    shape = sel.shape
    xp = np
    tries = []
    if isinstance(value, np.ndarray):
        arr = value
        if arr.ndim > 0:
            # pyAMReX: each length-1 axis of the selection (x, y, z in turn, then the
            # component when it has length 1 or the value has fewer than 4 axes) is
            # inserted into the value's shape
            gshape = list(arr.shape)
            for ax in range(3):
                if shape[ax] == 1:
                    gshape[ax:ax] = [1]
            if shape[3] == 1 or len(gshape) < 4:
                gshape[3:3] = [1]
            tries.append(arr.reshape(gshape))
    elif hasattr(value, "__cuda_array_interface__"):
        import cupy
        xp = cupy
        arr = cupy.asarray(value)  # pyAMReX: other arrays broadcast as they are
    else:
        arr = np.asarray(value)
    _check_values(arr, dtype, xp)
    if arr.ndim == 0:
        return "scalar", arr.item()
    tries.append(arr)  # NumPy's own rule (also for an array of the whole 4-D shape)
    for a in tries:
        while a.ndim > 4 and a.shape[0] == 1:  # NumPy's assignment drops leading length-1 axes
            a = a[0]
        if a.ndim <= 4:
            try:
                return "array", xp.broadcast_to(a, shape)
            except ValueError:
                pass
    raise ValueError(f"MultiFab.__setitem__: a value of shape {tuple(np.shape(value))} does not fit the "
                     f"selection of shape {shape} (x, y, z, component)")


def _setitem(self, index, value):
    sel = _Selection(self, index)
    views = _fab_views(self)
    kind, v = _value(value, sel, _target_dtype(views, self))
    for _, vb, fb, view in views:
        flo, fhi = _corners(fb, sel.dim)
        p = sel.pieces(flo, fhi, flo)  # every cell of the fab, ghost cells included
        if p is None:
            continue
        if kind == "scalar":
            view[p[0]] = v
        else:
            view[p[0]] = _like(view, v[p[1]])


def __getitem__(self, index, with_internal_ghosts=False):
    """Global-index read (pyAMReX's MultiFab extension; see the module documentation)."""
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
        cls.to_numpy_stacked = to_numpy_stacked
        cls.to_cupy_stacked = to_cupy_stacked
        cls.to_xp_stacked = to_xp_stacked
        cls.imesh = imesh
        cls.shape = property(shape, doc=shape.__doc__)
        cls.shape_with_ghosts = property(shape_with_ghosts, doc=shape_with_ghosts.__doc__)
        cls.__getitem__ = __getitem__
        cls.__setitem__ = __setitem__
