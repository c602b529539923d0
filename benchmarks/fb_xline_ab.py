"""fill_boundary on the GPU with and without the x-line kernel (issue 14), one run each:

    .venv/bin/python benchmarks/fb_xline_ab.py          # runs both settings in subprocesses

512^3 doubles, 2 ghost layers, 1 component, periodic, boxes of 128^3 and 32^3, in device memory;
time per call (best of 20 after 3 warm-ups, each call synchronized) and as a multiple of the time
of its ghost bytes (read + write) at the device-to-device memcpy bandwidth measured in the same
process.  BOXFAB_FB_XLINE=0 is the exchange tasks alone; the default uses the x-line kernel for
the x faces and, these boxes being a uniform lattice, for every other ghost cell as whole rows in
the same launch.  Before timing, every ghost cell is checked against its periodic source."""
import argparse
import os
import subprocess
import sys
import time

CHILD = os.environ.get("FB_AB_CHILD") == "1"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--n", type=int, default=512, help="domain cells per direction (a multiple of 128)")
    p.add_argument("--ng", type=int, default=2, help="ghost layers")
    p.add_argument("--repeat", type=int, default=20, help="timed calls, the best counts")
    a = p.parse_args(argv)
    if a.n < 128 or a.n % 128 or a.ng < 1 or a.ng > 32 or a.repeat < 1:
        p.error("--n must be a positive multiple of 128, --ng in 1..32, --repeat positive")
    return a


def child(args):
    import cupy as cp
    import boxfab.space3d as amr
    amr.initialize(["amrex.verbose=0"])
    n, ng = args.n, args.ng
    a = cp.empty(1 << 27)
    b = cp.empty_like(a)
    ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
    best = 1e30
    for _ in range(10):
        ev0.record(); b[...] = a; ev1.record(); ev1.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(ev0, ev1) * 1e-3)
    bw = 2 * a.nbytes / best
    del a, b
    for box in (128, 32):
        dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(n - 1, n - 1, n - 1))
        ba = amr.BoxArray(dom)
        ba.max_size(box)
        mf = amr.MultiFab(ba, amr.DistributionMapping(ba), 1, ng)
        P = amr.Periodicity(amr.IntVect(n, n, n))
        def fab_and_formula(mfi):
            """The fab's view and, at every point, global x + 1000 y + 1e6 z of its periodic image."""
            v = mf.array(mfi).to_cupy()[..., 0]
            lo = [x - ng for x in mfi.validbox().small_end]
            i, j, k = cp.meshgrid(*[cp.arange(lo[d], lo[d] + v.shape[d]) for d in range(3)], indexing="ij")
            return v, ((i % n) + 1000 * (j % n) + 1e6 * (k % n)).astype(cp.float64)

        for mfi in mf:  # valid cells the formula, ghosts -1
            v, want = fab_and_formula(mfi)
            v[...] = want
            v[:ng], v[-ng:], v[:, :ng], v[:, -ng:], v[:, :, :ng], v[:, :, -ng:] = (-1,) * 6
        cp.cuda.Device().synchronize()
        mf.fill_boundary(P)
        bad = 0
        for mfi in mf:
            v, want = fab_and_formula(mfi)
            bad += int((v != want).sum())
        times = []
        for r in range(args.repeat + 3):
            cp.cuda.Device().synchronize()
            t0 = time.perf_counter()
            mf.fill_boundary(P)
            cp.cuda.Device().synchronize()
            if r >= 3:
                times.append(time.perf_counter() - t0)
        ghosts = ((box + 2 * ng) ** 3 - box ** 3) * (n // box) ** 3
        t_mc = 2 * 8 * ghosts / bw
        t = min(times)
        print(f"  {box}^3 boxes: {t * 1e3:.3f} ms = {t / t_mc:.2f}x its ghost bytes at memcpy "
              f"({t_mc * 1e3:.3f} ms); wrong ghost cells: {bad}", flush=True)
        del mf
    amr.finalize()


def gpu_usable():
    try:
        import boxfab.space3d as amr
        if not amr.Config.have_gpu:
            return "boxfab uses no GPU here"
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return "CuPy sees no GPU"
    except Exception as e:  # no CuPy, no driver
        return f"{type(e).__name__}: {e}"
    return None


args = parse_args()
if CHILD:
    child(args)
elif gpu_usable():
    print(f"fb_xline_ab.py: skipped ({gpu_usable()})")
else:
    for mode in ("0", "default"):
        env = dict(os.environ, FB_AB_CHILD="1")
        if mode == "0":
            env["BOXFAB_FB_XLINE"] = "0"
        else:
            env.pop("BOXFAB_FB_XLINE", None)
        print(f"BOXFAB_FB_XLINE={mode} ({'exchange tasks only' if mode == '0' else 'x-line kernel: x faces, and whole rows'})",
              flush=True)
        r = subprocess.run([sys.executable, __file__] + sys.argv[1:], env=env)
        if r.returncode:
            sys.exit(r.returncode)
