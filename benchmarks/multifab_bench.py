"""MultiFab operations against NumPy, side by side.

    .venv/bin/python benchmarks/multifab_bench.py [--n 256] [--box 64] [--repeat 5]

(.venv is made by scripts/run.sh or scripts/test.sh.)

1. set_val, saxpy, lin_comb, sum, norm2 on an n^3 double MultiFab with box^3
   boxes (no ghost cells) against NumPy doing the same on one (n, n, n)
   array; the ratio numpy_time / boxfab_time (> 1: boxfab is faster).
2. fill_boundary of 2 ghost layers, 1 component, periodic 128^3 domain with
   32^3 boxes: absolute time and as a fraction of one copy of the whole
   MultiFab (copy_mfab of all cells incl. ghosts, into an existing MultiFab).
3. Per-box overhead of `for mfi in mf: mf.array(mfi).to_numpy()` minus
   NumPy's own cost of making a view of the same shape (arr[...].T on a 4-D
   array, and np.lib.stride_tricks.as_strided for comparison), microseconds
   per box; and of `mf.array(mfi).__array_interface__` (what a consumer
   asks for per box) against NumPy making a view and its interface dict.

Timing: best of --repeat runs (time.perf_counter) of each operation, after
one warm-up run.  OpenMP threads: whatever OMP_NUM_THREADS says (the
default: all cores); NumPy's element-wise operations are single-threaded.
"""
import argparse
import os
import time

import numpy as np

import boxfab
import boxfab.space3d as amr


def best_of(fn, repeat):
    fn()  # warm-up (first touch, plan caches)
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def make(n, box, ncomp=1, ngrow=0):
    ba = amr.BoxArray(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(n - 1, n - 1, n - 1)))
    ba.max_size(box)
    return amr.MultiFab(ba, amr.DistributionMapping(ba), ncomp, ngrow)


def ops_table(n, box, repeat):
    x, y, z = make(n, box), make(n, box), make(n, box)
    x.set_val(1.5)
    y.set_val(0.25)
    z.set_val(0.0)
    rng = np.random.default_rng(0)
    for a in x.to_numpy():
        a[...] = rng.random(a.shape)
    ax = rng.random((n, n, n))
    ay = np.full((n, n, n), 0.25)
    az = np.zeros((n, n, n))

    cases = [
        ("set_val", lambda: x.set_val(2.0), lambda: ax.fill(2.0)),
        ("saxpy", lambda: amr.MultiFab.saxpy(y, 1e-3, x, 0, 0, 1, 0), lambda: np.add(ay, 1e-3 * ax, out=ay)),
        ("lin_comb", lambda: amr.MultiFab.lin_comb(z, 0.5, x, 0, 2.0, y, 0, 0, 1, 0),
         lambda: (np.multiply(ax, 0.5, out=az), np.add(az, 2.0 * ay, out=az))),
        ("sum", lambda: x.sum(0), lambda: ax.sum()),
        ("norm2", lambda: x.norm2(0), lambda: np.linalg.norm(ax.ravel())),
        ("dot", lambda: amr.MultiFab.dot(x, 0, y, 0, 1, 0), lambda: np.dot(ax.ravel(), ay.ravel())),
    ]
    # boxfab's operations first, then NumPy's: NumPy's BLAS calls (linalg.norm, dot) leave OpenBLAS
    # threads spinning for a while, which took the cores from the next boxfab timing (dot measured
    # 8 ms instead of 5.5 ms right after linalg.norm)
    tbs = [best_of(fb, repeat) for _, fb, _ in cases]
    tns = [best_of(fn, repeat) for _, _, fn in cases]
    rows = [(name, tb, tn) for (name, _, _), tb, tn in zip(cases, tbs, tns)]
    # the results agree (same data in both): a quick sanity check of what was timed
    x_sum = x.sum(0)
    assert abs(x_sum - 2.0 * n ** 3) < 1e-6 * n ** 3, x_sum
    return rows


def fill_boundary_case(repeat):
    n, box, ng = 128, 32, 2
    geom = amr.Geometry(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(n - 1, n - 1, n - 1)),
                        amr.RealBox([0.0] * 3, [1.0] * 3), amr.CoordSys.cartesian, [1, 1, 1])
    period = geom.periodicity()
    mf = make(n, box, 1, ng)
    dst = make(n, box, 1, ng)
    mf.set_val(1.0)
    t_fb = best_of(lambda: mf.fill_boundary(period), repeat)
    ngv = amr.IntVect(ng, ng, ng)
    t_copy = best_of(lambda: amr.copy_mfab(dst, mf, 0, 0, 1, ngv), repeat)
    t_clone = best_of(lambda: mf.copy(), repeat)
    return t_fb, t_copy, t_clone


def per_box_case(repeat):
    n, box = 128, 8  # 4096 boxes of 8^3 (+1 ghost: 10^3)
    mf = make(n, box, 1, 1)
    nbox = mf.size

    def boxfab_views():
        for mfi in mf:
            mf.array(mfi).to_numpy()

    base = np.zeros((1, 10, 10, 10))  # the shape of one fab, [comp, z, y, x]

    def numpy_views():
        for _ in range(nbox):
            base[...].T

    def numpy_strided():
        as_strided = np.lib.stride_tricks.as_strided
        for _ in range(nbox):
            as_strided(base, shape=(10, 10, 10, 1), strides=(8, 80, 800, 8000))

    def loop_only():
        for _ in range(nbox):
            pass

    def mfiter_only():
        for _ in mf:
            pass

    def boxfab_interface():
        for mfi in mf:
            mf.array(mfi).__array_interface__

    def numpy_interface():
        for _ in range(nbox):
            base[...].__array_interface__

    t_bf = best_of(boxfab_views, repeat) / nbox
    t_np = best_of(numpy_views, repeat) / nbox
    t_as = best_of(numpy_strided, repeat) / nbox
    t_loop = best_of(loop_only, repeat) / nbox
    t_it = best_of(mfiter_only, repeat) / nbox
    t_ai = best_of(boxfab_interface, repeat) / nbox
    t_npai = best_of(numpy_interface, repeat) / nbox
    return nbox, t_bf, t_np, t_as, t_loop, t_it, t_ai, t_npai


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--n", type=int, default=256, help="domain of n^3 cells (table 1)")
    p.add_argument("--box", type=int, default=64, help="largest box side (table 1)")
    p.add_argument("--repeat", type=int, default=5, help="timed runs of each operation, the best counts")
    args = p.parse_args(argv)
    if args.n < 1 or args.box < 1 or args.repeat < 1:
        p.error("--n, --box and --repeat must be positive")
    with amr.initialize(["amrex.verbose=0"]):
        print(f"boxfab {boxfab.__version__}, build {boxfab.build_info()}, NumPy {np.__version__}, "
              f"{os.cpu_count()} cores, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '(unset)')}")
        print(f"\n1. {args.n}^3 doubles, boxes of {args.box}^3, best of {args.repeat}")
        print(f"   {'operation':10s} {'boxfab ms':>10s} {'NumPy ms':>10s} {'NumPy/boxfab':>13s}")
        for name, tb, tn in ops_table(args.n, args.box, args.repeat):
            print(f"   {name:10s} {tb * 1e3:10.2f} {tn * 1e3:10.2f} {tn / tb:13.2f}")

        t_fb, t_copy, t_clone = fill_boundary_case(args.repeat)
        print("\n2. fill_boundary, 2 ghost layers, 1 component, periodic 128^3, 32^3 boxes (64 boxes)")
        print(f"   fill_boundary            {t_fb * 1e3:8.3f} ms")
        print(f"   copy_mfab (all + ghosts) {t_copy * 1e3:8.3f} ms   fill_boundary / copy = {t_fb / t_copy:.2f}")
        print(f"   MultiFab.copy() (alloc)  {t_clone * 1e3:8.3f} ms   fill_boundary / copy() = {t_fb / t_clone:.2f}")
        print("   (AMReX C++ through pyAMReX 24.10: about 1.2 ms, about 0.4 of a copy; target: half of that)")

        nbox, t_bf, t_np, t_as, t_loop, t_it, t_ai, t_npai = per_box_case(args.repeat)
        print(f"\n3. per-box cost of `for mfi in mf: mf.array(mfi).to_numpy()`, {nbox} boxes of 8^3 + 1 ghost")
        print(f"   boxfab loop              {t_bf * 1e6:8.3f} us/box")
        print(f"     of which MFIter alone  {t_it * 1e6:8.3f} us/box")
        print(f"   NumPy arr[...].T         {t_np * 1e6:8.3f} us/box  (as_strided: {t_as * 1e6:.3f}; empty loop "
              f"{t_loop * 1e6:.3f})")
        print(f"   overhead over NumPy      {(t_bf - t_np) * 1e6:8.3f} us/box  (target: < 2)")
        print(f"   mf.array(mfi).__array_interface__ {t_ai * 1e6:8.3f} us/box  (target: <= 0.3; pyAMReX 24.10: 1.05)")
        print(f"     NumPy arr[...].__array_interface__ {t_npai * 1e6:6.3f} us/box  (ratio boxfab/NumPy "
              f"{t_ai / t_npai:.2f})")


if __name__ == "__main__":
    main()
