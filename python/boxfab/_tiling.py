"""Loops over the tiles of a MultiFab, as pyAMReX 26 spells them:
``TilingIfNotGPU(tile=None)``, ``mf.tiles(tile=None)``, the decorator
``for_each_tile(mf, *others, tile=None, threads=1)`` (``mf.tiles(tile=None)`` is C) and the lazily resolved
array module ``amr.xp`` (NumPy, or CuPy when ``Config.have_gpu``).

Only composition happens here: the iterator (MFIter, MFItInfo), the tile
boxes and the Array4 views (``a(bx, comp, di=...)``) are C.  An MFIter left
early (break, exception) finalizes itself when it is dropped, so ``tiles()``
returns the MFIter itself (no generator in between).
"""
from concurrent.futures import ThreadPoolExecutor


def attach(namespace):
    """Add the members to one space-module namespace (boxfab._space.populate)."""
    Config, MFItInfo, MFIter, IntVect, FabArrayBase = (
        namespace[n] for n in ("Config", "MFItInfo", "MFIter", "IntVect", "FabArrayBase"))

    def TilingIfNotGPU(tile=None):
        """MFItInfo that tiles with tile size ``tile`` on the CPU and never on the GPU.

        As C++ ``amrex::TilingIfNotGPU()``, except that ``tile`` has no default
        (pyAMReX): ``None`` iterates whole boxes.
        """
        info = MFItInfo()
        if tile is not None:
            iv = tile if isinstance(tile, IntVect) else IntVect(*tile)
            if not Config.have_gpu:
                info.enable_tiling(iv)
        return info

    def for_each_tile(mfab, *others, tile=None, threads=1):
        """Decorator: run the kernel over every tile of ``mfab`` now, and return it unchanged.

        The kernel gets ``(tilebox, mfab.array(mfi), *[o.array(mfi) for o in others])``
        per tile; index those with the box: ``f(bx)``, ``p(bx, di=-1)``.  One
        serial MFIter pass collects the arguments; with ``threads`` > 1 (CPU
        only) the kernels then run in a thread pool (NumPy releases the GIL).
        On the GPU the array library's stream is synchronized at the end.
        """
        if isinstance(threads, bool) or not isinstance(threads, int):
            raise TypeError(f"for_each_tile: threads must be an int, not {type(threads).__name__}")
        if threads < 1:
            raise ValueError(f"for_each_tile: threads must be >= 1, not {threads}")
        if threads > 2**31 - 1:
            raise OverflowError(f"for_each_tile: threads={threads} does not fit in a C int")
        for i, o in enumerate((mfab,) + others):
            if not isinstance(o, FabArrayBase):
                raise TypeError(f"for_each_tile: field {i} must be a MultiFab or iMultiFab, not {type(o).__name__}")
        ba, dm = mfab.box_array(), mfab.dm()
        for i, o in enumerate(others):
            if o.box_array() != ba or o.dm() != dm:
                raise ValueError(
                    f"for_each_tile: field {i + 1} has another BoxArray or DistributionMapping than the first")

        def decorate(kernel):
            if not callable(kernel):
                raise TypeError("for_each_tile(...) decorates a callable")
            ixt = mfab.ix_type
            work = [(mfi.tilebox(ixt), mfab.array(mfi), *[o.array(mfi) for o in others])
                    for mfi in mfab.tiles(tile)]
            gpu = Config.have_gpu
            if gpu or threads == 1 or len(work) < 2:
                for args in work:
                    kernel(*args)
            else:
                with ThreadPoolExecutor(max_workers=min(threads, len(work))) as pool:
                    for _ in pool.map(lambda args: kernel(*args), work):  # re-raises a kernel's exception
                        pass
            if gpu and work:
                import cupy

                cupy.cuda.get_current_stream().synchronize()
            return kernel

        return decorate

    def module_getattr(name):
        if name == "xp":
            if Config.have_gpu:
                import cupy as xp
            else:
                import numpy as xp
            return xp
        raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")

    namespace["TilingIfNotGPU"] = TilingIfNotGPU
    namespace["for_each_tile"] = for_each_tile
    namespace["__getattr__"] = module_getattr
