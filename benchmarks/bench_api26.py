"""pyAMReX 26's data API against what it extends, side by side in one run (issue 23).

    .venv/bin/python benchmarks/bench_api26.py [--n 1e7] [--repeat 5]      # CPU: against NumPy
    BOXFAB_DEVICE=gpu python3 benchmarks/bench_api26.py --gpu             # H200: against CuPy

Copies into PODVectors (one C pass between any two memories), n float64 elements:
  * from_numpy(host array)      vs  numpy.copy (CPU) / cupy.asarray (GPU: host to device)
  * to_device() of a DeviceVector vs  ndarray.copy (CPU) / cupy's device-to-device copy
  * copy_from(device array)     vs  the same copy in the array library (cupy: dst[...] = src)
Ratios are reference time / boxfab time: >= 1 means boxfab is at least as fast.  Each copy's
result is compared with the reference's (a mismatch fails the run).

Per-call costs of the loop API, 3D, 64^3 cells in 32^3 boxes (8 boxes), microseconds per call:
  * len(mf)                     vs  mf.size (October)
  * for mfi in mf.tiles()       vs  for mfi in mf (October), per loop
  * a(bx) (Array4.__call__)     vs  a.to_numpy()[slices] written by hand
  * pti["x"] (when the container API has it) vs pti.soa().get_real_data(0).to_numpy()
"""
import argparse
import os
import sys
import time

import numpy as np


class _Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """--help shows the defaults and keeps the description's layout."""


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=_Formatter)
    p.add_argument("--n", type=float, default=1e7, help="elements of the copies")
    p.add_argument("--repeat", type=int, default=5, help="timed calls; the best is reported")
    p.add_argument("--calls", type=int, default=20000, help="calls of the per-call timings")
    p.add_argument("--gpu", action="store_true", help="device memory; references in CuPy")
    return p.parse_args(argv)


def best(fn, repeat, sync):
    fn()
    sync()
    t = float("inf")
    for _ in range(repeat):
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        t = min(t, time.perf_counter() - t0)
    return t


def per_call(fn, calls, repeat=5):
    """Microseconds per call of fn (best of repeat runs of calls calls, the loop's own cost included)."""
    import timeit

    fn()
    return min(timeit.repeat(fn, number=calls, repeat=repeat)) / calls * 1e6


def main(argv):
    args = parse_args(argv)
    if args.gpu:
        os.environ.setdefault("BOXFAB_DEVICE", "gpu")
    import boxfab.space3d as amr

    amr.initialize(["amrex.verbose=0"])
    n = int(args.n)
    host = np.random.default_rng(1).standard_normal(n)
    gb = n * 8 / 1e9
    rows = []
    if args.gpu:
        import cupy as cp

        if not amr.Config.have_gpu:
            sys.exit("--gpu: boxfab uses no GPU here (Config.have_gpu is False)")
        sync = cp.cuda.runtime.deviceSynchronize
        dev = cp.asarray(host)
        ref_h2d = best(lambda: cp.asarray(host), args.repeat, sync)
        t_h2d = best(lambda: amr.DeviceVector_real.from_numpy(host), args.repeat, sync)
        v = amr.DeviceVector_real.from_numpy(host)
        assert cp.array_equal(cp.from_dlpack(v), dev)
        ref_d2d = best(lambda: dev.copy(), args.repeat, sync)
        t_d2d = best(lambda: v.to_device(), args.repeat, sync)
        assert cp.array_equal(cp.from_dlpack(v.to_device()), dev)
        out = cp.empty_like(dev)

        def ref_in():
            out[...] = dev

        ref_cf = best(ref_in, args.repeat, sync)
        t_cf = best(lambda: v.copy_from(dev), args.repeat, sync)
        rows += [("from_numpy (H2D)", t_h2d, ref_h2d, "cupy.asarray"),
                 ("to_device (D2D)", t_d2d, ref_d2d, "cupy copy"),
                 ("copy_from(cupy) (D2D)", t_cf, ref_cf, "cupy dst[...] = src")]
    else:
        sync = lambda: None  # noqa: E731
        ref = best(lambda: host.copy(), args.repeat, sync)
        t = best(lambda: amr.PODVector_real_std.from_numpy(host), args.repeat, sync)
        v = amr.PODVector_real_std.from_numpy(host)
        assert np.array_equal(v.to_numpy(), host)
        t_dev = best(lambda: v.to_device(), args.repeat, sync)
        out = np.empty_like(host)

        def ref_in():
            out[...] = host

        ref_cf = best(ref_in, args.repeat, sync)
        t_cf = best(lambda: v.copy_from(host), args.repeat, sync)
        rows += [("from_numpy", t, ref, "numpy copy"), ("to_device", t_dev, ref, "numpy copy"),
                 ("copy_from(numpy)", t_cf, ref_cf, "numpy dst[...] = src")]
    print(f"copies of {n} float64 ({gb:.2f} GB), best of {args.repeat}:")
    print(f"  {'operation':<24} {'boxfab ms':>10} {'GB/s':>8} {'reference':<22} {'ref ms':>8} {'ratio':>6}")
    for name, t, r, rname in rows:
        print(f"  {name:<24} {t * 1e3:10.3f} {gb / t:8.1f} {rname:<22} {r * 1e3:8.3f} {r / t:6.2f}")

    # per-call costs (host data: the Python side is what is measured)
    bx = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(63, 63, 63))
    ba = amr.BoxArray(bx)
    ba.max_size(32)
    mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, 1)
    mf.set_val(1.0)
    calls = args.calls

    def loop_new():
        for _ in mf.tiles():
            pass

    def loop_old():
        for _ in mf:
            pass

    mfi = amr.MFIter(mf)
    a = mf.array(mfi)
    tb = mfi.tilebox()
    lo = amr.lbound(a)
    sl = (slice(tb.small_end[0] - lo.x, tb.big_end[0] - lo.x + 1), slice(tb.small_end[1] - lo.y, tb.big_end[1] - lo.y + 1),
          slice(tb.small_end[2] - lo.z, tb.big_end[2] - lo.z + 1), 0)
    del mfi
    pc_rows = []
    print(f"per call (microseconds, {calls} calls; loops: {len(mf)} boxes):")
    print(f"  {'pyAMReX 26':<26} {'us':>8}   {'October API':<34} {'us':>8} {'ratio':>6}")
    pc_rows.append(("len(mf)", per_call(lambda: len(mf), calls), "mf.size", per_call(lambda: mf.size, calls)))
    pc_rows.append(("for mfi in mf.tiles()", per_call(loop_new, calls // 20), "for mfi in mf",
                    per_call(loop_old, calls // 20)))
    pc_rows.append(("a(bx)", per_call(lambda: a(tb), calls), "a.to_xp()[slices]",
                    per_call(lambda: a.to_xp()[sl], calls)))
    pcls = getattr(amr, "ParticleContainer_pureSoA_8_0_default", None)
    if pcls is not None:
        geom = amr.Geometry(bx, amr.RealBox([0, 0, 0], [1, 1, 1]), 0, [1, 1, 1])
        pc = pcls(geom, mf.dm(), ba)
        init = amr.ParticleInitType_pureSoA_8_0()
        init.real_array_data = [0.0] * 8
        init.int_array_data = []
        pc.init_random(1000, 1, init, False, geom.ProbDomain())
        pti = next(iter(pc.iterator(level=0)))
        if hasattr(type(pti), "__getitem__"):
            pc_rows.append(('pti["x"]', per_call(lambda: pti["x"], calls), "pti.soa().get_real_data(0).to_xp()",
                            per_call(lambda: pti.soa().get_real_data(0).to_xp(), calls)))
        del pti
    for new, tn, old, to in pc_rows:
        print(f"  {new:<26} {tn:8.2f}   {old:<34} {to:8.2f} {to / tn:6.2f}")
    del a, mf
    amr.finalize()


if __name__ == "__main__":
    main(sys.argv[1:])
