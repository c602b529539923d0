"""The heat equation on a periodic 3D domain, with boxfab's MultiFab.

    .venv/bin/python examples/heat_equation.py [--n 64] [--max-grid 32] [--steps 200]
                                               [--print-every 20] [--png heat_slice.png]
                                               [--plotfile plt_heat] [--tracers 1000]
                                               [--path auto|stacked|boxes]

(scripts/run.sh makes .venv, installs boxfab there and runs this example.)

    du/dt = D (d2u/dx2 + d2u/dy2 + d2u/dz2)   on [0, 1]^3, periodic,

explicit Euler in time, 7-point stencil in space.  The field lives in a
MultiFab with one ghost layer; every step `fill_boundary` fills the ghost
cells (from the neighbouring boxes and across the periodic boundaries), then
the stencil runs over zero-copy views (no Python loop over cells): NumPy
views of host memory, or CuPy views of device memory on a GPU machine.

Two ways to apply the stencil (--path):

* stacked: `mf.to_xp_stacked()` views all boxes of the MultiFab as one
  array [box, x, y, z, comp], so one kernel covers every box: one CuPy
  RawKernel per step on a GPU, one NumPy expression per step on the CPU.
  It needs boxes of one shape (e.g. n a multiple of --max-grid);
* boxes: a loop over the boxes, each through its own view (`to_xp`), as
  any layout allows (one kernel per box and operation on a GPU).

The default (auto) is stacked on a GPU when the boxes allow it (one launch
per step instead of one per box and operation), and boxes on the CPU, where
a box's working set stays in cache while NumPy's whole-array passes over
all boxes at once go to memory nine times per step.

Both compute the same operations in the same order: their results agree
bit for bit (benchmarks/heat_gpu.py times them against one plain array).

Initial condition: u = 1 + sin(2 pi x) sin(2 pi y) cos(2 pi z), one Fourier
mode on a constant.  That makes two honest checks possible at the end:

* conservation: the periodic heat equation conserves the sum of u (the
  discrete scheme does too, to round-off);
* decay: the mode's amplitude must follow the discrete scheme's exact
  factor (1 + dt D lambda_h)^steps to round-off, and the continuous
  solution exp(-3 (2 pi)^2 D t) up to the O(dx^2) discretization error.

The script exits with status 1 if a check fails.  A PNG of the z-mid slice
(gathered with global indexing, mf[:, :, n // 2, 0]) is written at the end
when matplotlib is available.

The same script runs on several MPI ranks (mpirun -n 4 ...): each rank
steps the boxes it owns, fill_boundary exchanges the ghost cells between
ranks, the sums are global, and only rank 0 prints.

At the end the field is written as an AMReX plotfile (--plotfile, the same
format and bytes AMReX writes; yt opens it with yt.load), together with
tracer particles (--tracers): a particle container with a named component
"u" that holds the field interpolated (CIC) at each tracer's position,
written into the plotfile as AMReX writes particles ("tracers" folder).
Both are read back and checked: the plotfile's slice equals the MultiFab's
bit for bit, and every tracer's value lies between the field's min and max.
"""
import argparse
import math
import os
import sys
import time

import numpy as np

import boxfab.space3d as amr


IO_RANK = [True]  # this process prints (set after initialize: the I/O rank of the run)


def say(*args):
    """print() on the I/O rank only (every rank computes the same values)."""
    if IO_RANK[0]:
        print(*args, flush=True)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter,
                                epilog="HEAT_N, HEAT_MAX_GRID, HEAT_STEPS and HEAT_PNG in the environment change "
                                       "the defaults of --n, --max-grid, --steps and --png.")
    p.add_argument("--n", type=int, default=int(os.environ.get("HEAT_N", 64)), help="cells per direction")
    p.add_argument("--max-grid", type=int, default=int(os.environ.get("HEAT_MAX_GRID", 32)),
                   help="largest box side")
    p.add_argument("--steps", type=int, default=int(os.environ.get("HEAT_STEPS", 200)), help="time steps")
    p.add_argument("--print-every", type=int, default=20, help="progress line every this many steps")
    p.add_argument("--cfl", type=float, default=0.9, help="dt as a fraction of the stability limit dx^2/(6D)")
    p.add_argument("--png", default=os.environ.get("HEAT_PNG", "heat_slice.png"), help="output image ('' = none)")
    p.add_argument("--plotfile", default=os.environ.get("HEAT_PLOTFILE", "plt_heat"),
                   help="AMReX plotfile written at the end ('' = none)")
    p.add_argument("--tracers", type=int, default=1000, help="tracer particles written into the plotfile")
    p.add_argument("--verbose", type=int, default=0,
                   help="amrex.verbose: 1 prints AMReX's initialization and finalization lines")
    p.add_argument("--path", choices=("auto", "stacked", "boxes"), default=os.environ.get("HEAT_PATH", "auto"),
                   help="stencil over one stacked array of all boxes, box by box, or auto: stacked on a GPU "
                        "when every box has the same shape, else box by box")
    return p.parse_args(argv)


# ---- the stencil: w = u + c (sum of the 6 neighbours - 6 u) on the interior of each fab -----------------
# Every form below does the same operations in the same order, (((((x+ + x-) + y+) + y-) + z+) + z-),
# minus 6 u, times c, plus u, each rounded to double, so that their results agree bit for bit.
def step_boxes(xp, views_u, views_w, c):
    """One step box by box: views_u / views_w are per-box views [x, y, z] with one ghost layer."""
    for u, w in zip(views_u, views_w):
        step_stacked_array(xp, u[None], w[None], c)


def step_stacked_array(xp, u, w, c):
    """One step over a stacked view [box, x, y, z] (NumPy or CuPy array expressions)."""
    core = u[:, 1:-1, 1:-1, 1:-1]
    out = w[:, 1:-1, 1:-1, 1:-1]
    xp.add(u[:, 2:, 1:-1, 1:-1], u[:, :-2, 1:-1, 1:-1], out=out)
    out += u[:, 1:-1, 2:, 1:-1]
    out += u[:, 1:-1, :-2, 1:-1]
    out += u[:, 1:-1, 1:-1, 2:]
    out += u[:, 1:-1, 1:-1, :-2]
    out -= 6.0 * core
    out *= c
    out += core


_HEAT_KERNEL = r"""
extern "C" __global__ void heat_step(const double* __restrict__ u, double* __restrict__ w, long long nbox,
                                     int nx, int ny, int nz, long long box_stride, double c) {
  // one thread per interior cell of every box; (nx, ny, nz) is a fab with its ghost layer, x fastest
  const long long ni = nx - 2, nj = ny - 2, nk = nz - 2, per_box = ni * nj * nk;
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= per_box * nbox) return;
  const long long b = t / per_box;
  long long r = t - b * per_box;
  const long long i = r % ni + 1;
  r /= ni;
  const long long j = r % nj + 1, k = r / nj + 1;
  const long long js = nx, ks = (long long)nx * ny;
  const long long p = b * box_stride + i + j * js + k * ks;
  const double uc = u[p];
  double s = u[p + 1] + u[p - 1];
  s += u[p + js];
  s += u[p - js];
  s += u[p + ks];
  s += u[p - ks];
  s -= 6.0 * uc;
  s *= c;
  w[p] = s + uc;
}
"""
_kernels = {}


def step_stacked_kernel(cp, u, w, c, threads=256):
    """One step as one CUDA kernel over every box: u, w are C-ordered stacked CuPy views (nbox, 1, nz, ny, nx)
    of one-component MultiFabs (their box stride is the fabs' distance in the MultiFab's memory)."""
    k = _kernels.get("heat")
    if k is None:  # no FMA contraction: the same roundings as the array expressions
        k = _kernels["heat"] = cp.RawKernel(_HEAT_KERNEL, "heat_step", options=("--fmad=false",))
    nbox, _, nz, ny, nx = u.shape
    assert u.strides == w.strides and u.strides[4] == 8 and u.dtype == w.dtype == cp.float64
    n = nbox * (nx - 2) * (ny - 2) * (nz - 2)
    if n == 0:
        return
    k(((n + threads - 1) // threads,), (threads,),
      (u, w, np.int64(nbox), np.int32(nx), np.int32(ny), np.int32(nz), np.int64(u.strides[0] // 8), np.float64(c)))


def stacked_layout_error(mf):
    """None when mf's local boxes share one shape (mf.stacked() works), else the ValueError saying why."""
    try:
        mf.stacked()
    except ValueError as e:
        return e
    return None


def main(argv=None):
    args = parse_args(argv)
    n, D = args.n, 1.0
    dx = 1.0 / n
    dt = args.cfl * dx * dx / (6.0 * D)
    c = D * dt / (dx * dx)

    t_start = time.perf_counter()
    with amr.initialize([f"amrex.verbose={args.verbose}"]):
        domain = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(n - 1, n - 1, n - 1))
        geom = amr.Geometry(domain, amr.RealBox([0.0] * 3, [1.0] * 3), amr.CoordSys.cartesian, [1, 1, 1])
        period = geom.periodicity()
        ba = amr.BoxArray(domain)
        ba.max_size(args.max_grid)
        dm = amr.DistributionMapping(ba)
        old = amr.MultiFab(ba, dm, 1, 1)
        new = amr.MultiFab(ba, dm, 1, 1)

        # Views are made once: they stay valid as long as the MultiFabs' data.
        # F order: [x, y, z, comp]; cell (i, j, k) of a box is at [i - lo + 1, ...].
        # On a GPU machine the data are in device memory: CuPy views (to_xp), and
        # since boxfab and CuPy work on different streams, a synchronization
        # between boxfab's operations and the stencil.
        gpu = amr.Config.have_gpu
        if gpu:
            import cupy as xp

            def sync():
                xp.cuda.runtime.deviceSynchronize()
        else:
            xp = np

            def sync():
                pass

        boxes = [(mfi.validbox(), mfi.fabbox()) for mfi in old]
        v_old = [a[..., 0] for a in old.to_xp()]
        v_new = [a[..., 0] for a in new.to_xp()]
        pd = amr.ParallelDescriptor
        # the stacked path needs boxes of one shape on every rank, decided together (every rank steps
        # alike): a rank that went on alone would wait in fill_boundary for one that raised
        stacked = args.path == "stacked" or (args.path == "auto" and gpu)
        if stacked:
            err = stacked_layout_error(old)
            if not pd.ReduceBoolAnd(err is None):
                if args.path == "stacked":  # ValueError on every rank: this rank's reason, or another's
                    raise err or ValueError("--path stacked: the boxes of another rank differ in shape (one "
                                            "array over all boxes needs boxes of one shape on every rank)")
                stacked = False
        if stacked:
            if gpu:  # C order (box, comp, z, y, x) for the kernel
                s_old, s_new = old.to_cupy_stacked(order="C"), new.to_cupy_stacked(order="C")
            else:    # [box, x, y, z]
                s_old, s_new = old.to_numpy_stacked()[..., 0], new.to_numpy_stacked()[..., 0]

        # Initial condition on the valid cells (cell centres (i + 0.5) dx).
        modes = []
        for (vb, fb), u in zip(boxes, v_old):
            x = [(xp.arange(vb.small_end[d], vb.big_end[d] + 1) + 0.5) * dx for d in range(3)]
            mode = (xp.sin(2 * np.pi * x[0])[:, None, None] * xp.sin(2 * np.pi * x[1])[None, :, None]
                    * xp.cos(2 * np.pi * x[2])[None, None, :])
            modes.append(mode)
            u[...] = 0.0
            u[1:-1, 1:-1, 1:-1] = 1.0 + mode
        # sums over this rank's boxes, then over the ranks (one rank without MPI)
        IO_RANK[0] = pd.IOProcessor()
        mode_norm = pd.ReduceRealSum(sum(float(xp.sum(m * m)) for m in modes))

        def amplitude(views):
            return pd.ReduceRealSum(sum(float(xp.sum(u[1:-1, 1:-1, 1:-1] * m)) for u, m in zip(views, modes))) / mode_norm

        sync()
        sum0 = old.sum(0)
        amp0 = amplitude(v_old)
        say(f"heat equation: {n}^3 cells in {ba.size} boxes of at most {args.max_grid}^3"
            f"{f' on {pd.NProcs()} MPI ranks' if pd.NProcs() > 1 else ''}, dt = {dt:.3e}, {args.steps} steps, D = {D}")
        say("stencil: " + ("one kernel over all boxes per step (stacked view)" if stacked else "box by box")
            + (" on the GPU (CuPy)" if gpu else " on the CPU (NumPy)"))
        t_loop = time.perf_counter()
        t = 0.0
        for step in range(1, args.steps + 1):
            old.fill_boundary(period)
            sync()
            if stacked and gpu:
                step_stacked_kernel(xp, s_old, s_new, c)
            elif stacked:
                step_stacked_array(xp, s_old, s_new, c)
            else:
                step_boxes(xp, v_old, v_new, c)
            sync()
            old, new = new, old
            v_old, v_new = v_new, v_old
            if stacked:
                s_old, s_new = s_new, s_old
            t += dt
            if step % args.print_every == 0 or step == args.steps:
                s, lo, hi = old.sum(0), old.min(0), old.max(0)  # global reductions: every rank calls them
                say(f"step {step:5d}  time {t:.4e}  sum {s:.10e}  min {lo:.6f}  max {hi:.6f}")
        loop_time = time.perf_counter() - t_loop

        # ---- checks --------------------------------------------------------------------------
        sum1 = old.sum(0)
        rel_sum = abs(sum1 - sum0) / abs(sum0)
        amp1 = amplitude(v_old)
        lam_h = 3.0 * (2.0 * math.cos(2.0 * math.pi * dx) - 2.0) / (dx * dx)  # discrete Laplacian eigenvalue
        amp_discrete = amp0 * (1.0 + dt * D * lam_h) ** args.steps
        amp_exact = amp0 * math.exp(-3.0 * (2.0 * math.pi) ** 2 * D * t)
        err_discrete = abs(amp1 - amp_discrete) / abs(amp_discrete)
        err_exact = abs(amp1 - amp_exact) / abs(amp_exact)
        say(f"conservation: sum {sum0:.12e} -> {sum1:.12e}, relative change {rel_sum:.2e}")
        say(f"mode amplitude at t = {t:.4e}: measured {amp1:.10f}, discrete scheme {amp_discrete:.10f} "
              f"(rel. diff {err_discrete:.2e}), analytic exp(-12 pi^2 D t) {amp_exact:.10f} "
              f"(rel. diff {err_exact:.2e}, the O(dx^2) discretization error)")

        # ---- picture of the z-mid slice, gathered with global indexing ----------------------
        slab = old[:, :, n // 2, 0]
        assert slab.shape == (n, n)
        if args.png and pd.IOProcessor():
            try:
                import matplotlib
                matplotlib.use("Agg")
                import matplotlib.pyplot as plt
            except ImportError:
                say("matplotlib is not installed: no PNG written")
            else:
                fig, ax = plt.subplots(figsize=(5, 4.2))
                im = ax.imshow(slab.T, origin="lower", extent=(0, 1, 0, 1), cmap="inferno")
                fig.colorbar(im, ax=ax, label="u")
                ax.set_title(f"u(x, y, z = 1/2), t = {t:.3e}")
                ax.set_xlabel("x")
                ax.set_ylabel("y")
                fig.tight_layout()
                fig.savefig(args.png, dpi=100)
                plt.close(fig)
                say(f"wrote {args.png}")
        # ---- plotfile and tracer particles -------------------------------------------------------
        plot_ok = True
        if args.plotfile:
            amr.write_single_level_plotfile(args.plotfile, old, ["u"], geom, t, args.steps)
            back = amr.PlotFileData(args.plotfile).get(0, "u")   # the level's MultiFab, read back
            plot_ok = bool(np.array_equal(back[:, :, n // 2, 0], slab))
            msg = f"wrote {args.plotfile} (read back: the z-mid slice {'equals' if plot_ok else 'DIFFERS from'} u)"
            if args.tracers > 0:
                pc = amr.ParticleContainer(geom, dm, ba, real_names=["u"])
                pos = np.random.default_rng(1).random((args.tracers, 3))
                pc.add_particles(pos if pd.MyProc() == 0 else pos[:0])  # added once, sent to their ranks
                old.fill_boundary(period)
                pc.interpolate(old, "u", shape="cic")          # the field at each tracer (C kernels)
                pc.write_plotfile(args.plotfile, "tracers")
                lo, hi = old.min(0), old.max(0)
                tr_ok = pc.total_number_of_particles() == args.tracers   # every tracer kept (all ranks)
                for pti in pc.iterator(pc, level=0):           # this rank's tiles, zero-copy views
                    u = pti.soa().to_xp().real["u"]                # NumPy or CuPy, as the data lie
                    tr_ok = tr_ok and bool(((u >= lo - 1e-12) & (u <= hi + 1e-12)).all())
                tr_ok = pd.ReduceBoolAnd(tr_ok)
                plot_ok = plot_ok and tr_ok
                msg += f", with {args.tracers} tracer particles ({args.plotfile}/tracers, u in [{lo:.4f}, {hi:.4f}]: " \
                       f"{'yes' if tr_ok else 'NO'})"
                del pc
            say(msg)
    total = time.perf_counter() - t_start
    say(f"time: {loop_time:.2f} s for {args.steps} steps ({1e3 * loop_time / max(args.steps, 1):.2f} ms/step), "
          f"{total:.2f} s in all")

    ok = rel_sum < 1e-10 and err_discrete < 1e-8
    # the continuous solution: the discretization error is about (2 pi dx)^2 / 12 per direction squared term
    ok = ok and err_exact < max(1e-6, 10.0 * (2 * math.pi * dx) ** 2 / 12.0 * 3.0 * (2 * math.pi) ** 2 * D * t)
    ok = ok and plot_ok
    say("checks:", "passed" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
