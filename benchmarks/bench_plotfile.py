"""Plotfile write and read speed against the disk's own speed (issue 11), side by side in one run.

    .venv/bin/python benchmarks/bench_plotfile.py [--n 256] [--ncomp 4] [--max-grid 64] [--repeat 3] [--dir /tmp]

A MultiFab of n^3 cells with ncomp float64 components in boxes of max_grid^3:

  write   amr.write_single_level_plotfile(...) followed by os.sync(), against numpy.ndarray.tofile
          of the same number of bytes followed by os.sync() (the disk's speed; issue 11's target:
          boxfab no slower than that; pyAMReX 24.10 measured on this machine: 1.16 s against
          tofile's 1.41 s for 256^3 x 4);
  read    amr.PlotFileData(path).get(0, name) of one component (a MultiFab read back), against
          numpy.fromfile of the same number of bytes (pyAMReX: 0.16 s for 128 MB).

The best of --repeat runs is printed with the ratio (boxfab time / NumPy time: <= 1 meets the
target).  Reads come from the page cache after the write (so does fromfile's), writes include
os.sync(); before each timed write the previous files are removed and synced (not timed).  Every written plotfile is checked: one component read back equals the data.
"""
import argparse
import os
import shutil
import sys
import tempfile
import time

import numpy as np


class _Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """--help shows the defaults and keeps the description's layout."""


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=_Formatter)
    p.add_argument("--n", type=int, default=256, help="cells per direction")
    p.add_argument("--ncomp", type=int, default=4, help="components")
    p.add_argument("--max-grid", type=int, default=64, help="box size")
    p.add_argument("--repeat", type=int, default=3, help="timed runs; the best is reported")
    p.add_argument("--dir", default=tempfile.gettempdir(), help="where the files go (removed afterwards)")
    return p.parse_args(argv)


def best(fn, repeat, before=lambda: None):
    t = float("inf")
    for _ in range(repeat):
        before()  # not timed
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t


def main(argv=None):
    args = parse_args(argv)
    import boxfab.space3d as amr

    n, nc = args.n, args.ncomp
    work = tempfile.mkdtemp(prefix="bench_plotfile.", dir=args.dir)
    amr.initialize(["amrex.verbose=0"])
    try:
        dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(n - 1, n - 1, n - 1))
        geom = amr.Geometry(dom, amr.RealBox([0.0] * 3, [1.0] * 3), 0, [1, 1, 1])
        ba = amr.BoxArray(dom)
        ba.max_size(args.max_grid)
        dm = amr.DistributionMapping(ba)
        mf = amr.MultiFab(ba, dm, nc, 0)
        for mfi in mf:  # distinct values per cell and component
            a = mf.array(mfi).to_numpy()
            a[...] = np.random.default_rng(mfi.index).random(a.shape)
        names = [f"c{i}" for i in range(nc)]
        nbytes = n ** 3 * nc * 8
        plt = os.path.join(work, "plt")

        def write_boxfab():
            amr.write_single_level_plotfile(plt, mf, names, geom, 0.0, 0)
            os.sync()

        raw = np.random.default_rng(0).random(nbytes // 8)
        rawfile = os.path.join(work, "raw.bin")

        def write_numpy():
            raw.tofile(rawfile)
            os.sync()

        def fresh():  # each write goes to a new name, as each tofile replaces its file (no .old copies kept)
            shutil.rmtree(plt, ignore_errors=True)
            for name in os.listdir(work):
                if name.startswith("plt.old."):
                    shutil.rmtree(os.path.join(work, name), ignore_errors=True)
            os.sync()

        t_wb = best(write_boxfab, args.repeat, fresh)
        t_wn = best(write_numpy, args.repeat, os.sync)
        # check: one component read back equals the data
        back = amr.PlotFileData(plt).get(0, names[nc - 1])
        ok = all(np.array_equal(back.array(mfi).to_numpy()[..., 0], mf.array(mfi).to_numpy()[..., nc - 1])
                 for mfi in mf)
        comp_bytes = nbytes // nc
        compfile = os.path.join(work, "comp.bin")
        raw[: comp_bytes // 8].tofile(compfile)
        t_rb = best(lambda: amr.PlotFileData(plt).get(0, names[0]), args.repeat)
        t_rn = best(lambda: np.fromfile(compfile, dtype=np.float64), args.repeat)
        print(f"bench_plotfile.py: {n}^3 cells x {nc} components (float64, {nbytes / 2**20:.0f} MiB), "
              f"{ba.size} boxes, files in {args.dir}")
        print(f"  write + sync   boxfab {t_wb * 1e3:9.1f} ms   tofile + sync {t_wn * 1e3:9.1f} ms   "
              f"ratio {t_wb / t_wn:5.2f}  ({'ok' if t_wb <= t_wn else 'MISS'}; pyAMReX 1.16 s vs 1.41 s at 256^3 x 4)")
        print(f"  read one comp  boxfab {t_rb * 1e3:9.1f} ms   fromfile      {t_rn * 1e3:9.1f} ms   "
              f"ratio {t_rb / t_rn:5.2f}  (pyAMReX 0.16 s for 128 MB)")
        print(f"  check: read-back {'equals' if ok else 'DIFFERS from'} the data")
        return 0 if ok else 1
    finally:
        amr.finalize()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
