"""Particle deposition (pc.deposit) against NumPy's np.add.at / np.bincount on the same data.

    .venv/bin/python benchmarks/bench_deposit.py [--ncell 64] [--max-size 32] [--particles 100000 1000000]
                                                 [--shapes ngp cic tsc] [--repeat 3] [--threads 1 2]
    .venv/bin/python benchmarks/bench_deposit.py --gpu     # device memory, against cupyx.scatter_add

(.venv is made by scripts/run.sh or scripts/test.sh; CuPy is installed separately.)

A periodic 3D domain of ncell^3 cells cut into boxes of max_size, a pure-SoA container
(ParticleContainer_pureSoA_7_0) with N particles at random positions (init_random) and random
weights in component "a".  boxfab: pc.deposit(mf, "a", shape=...) into a cell-centred MultiFab
with one ghost cell (zeroed, deposited, SumBoundary with the periodicity: the whole call).  The
references get the same positions and weights gathered into one array each (not timed) and do
the whole computation: the stencil cells and weights of every particle (vectorized, the shape
functions of boxfab's docs), periodic wrap, then np.add.at(rho, cells, values) and
np.bincount(cells, values, minlength) into one ncell^3 array; the inner loop over the stencil
(1, 8 or 27 cells) is a Python loop of vectorized calls.  Every timed result is compared with
boxfab's (relative error printed; a mismatch fails the run).  Ratios > 1: boxfab is faster.

--gpu: the container and the MultiFab in The_Arena (device memory where boxfab uses a GPU),
the reference cupyx.scatter_add on CuPy arrays of the same positions and weights; each timed call
is bracketed by cudaDeviceSynchronize.  Without CuPy or a GPU --gpu stops with a message.

--interpolate: also time pc.interpolate(mf, "b", shape=...) (the deposited field, ghost cells
filled) against the NumPy gather over the same stencils (sum of field[cells] * weights).

--threads: OpenMP threads of boxfab's CPU kernels (OMP_NUM_THREADS is read at start-up, so each
count runs in a subprocess of this script).
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np


class _Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """--help shows the defaults and keeps the description's layout."""


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=_Formatter)
    p.add_argument("--ncell", type=int, default=64, help="cells per direction of the periodic domain")
    p.add_argument("--max-size", type=int, default=32, help="largest box edge (BoxArray.max_size)")
    p.add_argument("--particles", type=float, nargs="+", default=[1e5, 1e6], help="particle counts")
    p.add_argument("--shapes", nargs="+", default=["ngp", "cic", "tsc"], choices=["ngp", "cic", "tsc"])
    p.add_argument("--repeat", type=int, default=3, help="timed calls; the best is reported")
    p.add_argument("--threads", type=int, nargs="*", default=None,
                   help="OpenMP thread counts to run (each in a subprocess); default: as the environment says")
    p.add_argument("--gpu", action="store_true", help="device memory and cupyx.scatter_add")
    p.add_argument("--interpolate", action="store_true", help="also time interpolate against a NumPy gather")
    p.add_argument("--seed", type=int, default=11)
    return p.parse_args(argv)


def best_time(fn, repeat, sync=lambda: None):
    fn()  # warm-up (plans, caches, allocations)
    sync()
    best = float("inf")
    for _ in range(repeat):
        sync()
        t = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - t)
    return best


def stencil_terms(xp, x, shape, n, dxi, plo):
    """[(flat cell index array, weight array)] over the stencil offsets; x is (np, 3)."""
    u = (x - plo) * dxi
    if shape == "ngp":
        start = xp.floor(u)
        ws = [xp.ones_like(u)]
    elif shape == "cic":
        L = u + 0.5
        start = xp.floor(L) - 1.0
        t = L - (start + 1.0)
        ws = [1.0 - t, t]
    else:
        start = xp.floor(u) - 1.0
        t = u - (start + 1.0) - 0.5
        ws = [0.5 * (0.5 - t) ** 2, 0.75 - t * t, 0.5 * (0.5 + t) ** 2]
    start = start.astype(xp.int64)
    m = len(ws)
    terms = []
    for k in range(m):
        for j in range(m):
            for i in range(m):
                cx = (start[:, 0] + i) % n
                cy = (start[:, 1] + j) % n
                cz = (start[:, 2] + k) % n
                terms.append((cx + n * (cy + n * cz), ws[i][:, 0] * ws[j][:, 1] * ws[k][:, 2]))
    return terms


def numpy_add_at(x, w, shape, n, dxi, plo, scale):
    rho = np.zeros(n**3)
    for cells, wt in stencil_terms(np, x, shape, n, dxi, plo):
        np.add.at(rho, cells, wt * w * scale)
    return rho


def numpy_bincount(x, w, shape, n, dxi, plo, scale):
    rho = np.zeros(n**3)
    for cells, wt in stencil_terms(np, x, shape, n, dxi, plo):
        rho += np.bincount(cells, weights=wt * w * scale, minlength=n**3)
    return rho


def xp_gather(xp, field, x, shape, n, dxi, plo):
    out = xp.zeros(x.shape[0])
    for cells, wt in stencil_terms(xp, x, shape, n, dxi, plo):
        out += field[cells] * wt
    return out


def cupy_scatter_add(cp, cpx, x, w, shape, n, dxi, plo, scale):
    rho = cp.zeros(n**3)
    for cells, wt in stencil_terms(cp, x, shape, n, dxi, plo):
        cpx.scatter_add(rho, cells, wt * w * scale)
    return rho


def gather_mf(mf, n, to_host):
    """The valid cells of component 0 as one flat array, x fastest (index = x + n*(y + n*z))."""
    g = np.zeros((n, n, n))  # [z, y, x]
    for mfi in mf:
        vb, fb = mfi.validbox(), mfi.fabbox()
        lo, hi, flo = list(vb.small_end), list(vb.big_end), list(fb.small_end)
        a = to_host(mf.array(mfi))  # [comp, z, y, x]
        g[lo[2]:hi[2] + 1, lo[1]:hi[1] + 1, lo[0]:hi[0] + 1] = a[0, lo[2] - flo[2]:hi[2] - flo[2] + 1,
                                                                   lo[1] - flo[1]:hi[1] - flo[1] + 1,
                                                                   lo[0] - flo[0]:hi[0] - flo[0] + 1]
    return g.reshape(-1)


def run(args):
    import boxfab.space3d as amr

    if not amr.initialized():
        amr.initialize([])
    cp = cpx = None
    if args.gpu:
        try:
            import cupy as cp
            import cupyx as cpx
        except ImportError:
            sys.exit("--gpu needs CuPy (pip install cupy-cuda12x)")
        if not amr.Config.have_gpu:
            sys.exit("--gpu: boxfab uses no GPU here")
    n = args.ncell
    dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(n - 1, n - 1, n - 1))
    rb = amr.RealBox([0.0] * 3, [1.0] * 3)
    geom = amr.Geometry(dom, rb, 0, [1, 1, 1])
    ba = amr.BoxArray(dom)
    ba.max_size(args.max_size)
    dm = amr.DistributionMapping(ba)
    dxi, plo, scale = float(n), 0.0, float(n) ** 3
    threads = os.environ.get("OMP_NUM_THREADS", "default")
    where = "GPU (device memory) vs cupyx.scatter_add" if args.gpu else f"CPU, OMP_NUM_THREADS={threads}"
    print(f"# {where}; {n}^3 cells, boxes <= {args.max_size}^3 ({ba.size} boxes), best of {args.repeat}")
    hdr = f"{'particles':>10} {'shape':>5} {'boxfab ms':>10}"
    hdr += f" {'scatter_add ms':>15} {'ratio':>7}" if args.gpu else \
        f" {'add.at ms':>10} {'ratio':>7} {'bincount ms':>12} {'ratio':>7}"
    print(hdr + f" {'max rel err':>12}")
    bad = False
    for npart in [int(p) for p in args.particles]:
        pc = amr.ParticleContainer_pureSoA_7_0_default(geom, dm, ba)
        init = amr.ParticleInitType_pureSoA_7_0()
        init.real_array_data = [0.0] * 7
        pc.init_random(npart, args.seed, init, False, rb)
        rng = np.random.default_rng(args.seed)
        xs, ws = [], []
        for pti in pc.iterator(pc, level=0):
            soa = pti.soa()
            if args.gpu:
                real = soa.to_cupy().real
                real["a"][:] = cp.asarray(0.5 + rng.random(real["a"].shape[0]))
                xs.append(cp.stack([real["x"], real["y"], real["z"]], axis=1))
                ws.append(real["a"].copy())
            else:
                real = soa.to_numpy().real
                real["a"][:] = 0.5 + rng.random(real["a"].shape[0])
                xs.append(np.stack([real["x"], real["y"], real["z"]], axis=1))
                ws.append(real["a"].copy())
        xpm = cp if args.gpu else np
        x, w = xpm.concatenate(xs), xpm.concatenate(ws)
        mf = amr.MultiFab(ba, dm, 1, 1)
        for shape in args.shapes:
            sync = (lambda: cp.cuda.runtime.deviceSynchronize()) if args.gpu else (lambda: None)
            t_bf = best_time(lambda: pc.deposit(mf, "a", shape=shape), args.repeat, sync)
            to_host = (lambda a4: cp.asnumpy(a4.to_cupy(order="C"))) if args.gpu else \
                (lambda a4: a4.to_numpy(order="C"))
            got = gather_mf(mf, n, to_host)
            row = f"{npart:>10} {shape:>5} {t_bf * 1e3:>10.2f}"
            errs = []
            if args.gpu:
                ref = None

                def f():
                    nonlocal ref
                    ref = cupy_scatter_add(cp, cpx, x, w, shape, n, dxi, plo, scale)

                t_ref = best_time(f, args.repeat, sync)
                errs.append(cp.asnumpy(ref))
                row += f" {t_ref * 1e3:>15.2f} {t_ref / t_bf:>7.2f}"
            else:
                out = {}
                t_at = best_time(lambda: out.__setitem__("at", numpy_add_at(x, w, shape, n, dxi, plo, scale)),
                                 args.repeat)
                t_bc = best_time(lambda: out.__setitem__("bc", numpy_bincount(x, w, shape, n, dxi, plo, scale)),
                                 args.repeat)
                errs += [out["at"], out["bc"]]
                row += f" {t_at * 1e3:>10.2f} {t_at / t_bf:>7.2f} {t_bc * 1e3:>12.2f} {t_bc / t_bf:>7.2f}"
            err = max(float(np.max(np.abs(got - r)) / np.max(np.abs(r))) for r in errs)
            bad |= not err < 1e-12
            print(row + f" {err:>12.1e}", flush=True)
            if args.interpolate:
                mf.fill_boundary(geom.periodicity())
                t_bi = best_time(lambda: pc.interpolate(mf, "b", shape=shape), args.repeat, sync)
                field = xpm.asarray(got)
                ref_i = {}
                t_ni = best_time(lambda: ref_i.__setitem__("v", xp_gather(xpm, field, x, shape, n, dxi, plo)),
                                 args.repeat, sync)
                vals = xpm.concatenate([(pti.soa().to_cupy() if args.gpu else pti.soa().to_numpy()).real["b"]
                                        for pti in pc.iterator(pc, level=0)])
                ierr = float(xpm.max(xpm.abs(vals - ref_i["v"])) / xpm.max(xpm.abs(ref_i["v"])))
                bad |= not ierr < 1e-12
                lib = "CuPy" if args.gpu else "NumPy"
                print(f"{'':>10} {'':>5} interpolate: boxfab {t_bi * 1e3:.2f} ms, {lib} gather {t_ni * 1e3:.2f} ms, "
                      f"ratio {t_ni / t_bi:.2f}, max rel err {ierr:.1e}", flush=True)
    if bad:
        sys.exit("a result differs from the reference")


def main(argv=None):
    args = parse_args(argv)
    if args.threads:
        rest = [a for a in (argv if argv is not None else sys.argv[1:])]
        i = rest.index("--threads")
        j = i + 1
        while j < len(rest) and not rest[j].startswith("--"):
            j += 1
        rest = rest[:i] + rest[j:]
        for t in args.threads:
            env = dict(os.environ, OMP_NUM_THREADS=str(t))
            r = subprocess.run([sys.executable, __file__] + rest, env=env)
            if r.returncode:
                sys.exit(r.returncode)
        return
    run(args)


if __name__ == "__main__":
    main()
