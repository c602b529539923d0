"""The heat equation's step three ways in one run: one kernel over every box, a loop over boxes, one plain array.

    .venv/bin/python benchmarks/heat_gpu.py [--n 512] [--box 32] [--steps 50] [--loop-steps 5]
    .venv/bin/python benchmarks/heat_gpu.py --cpu --n 64 --box 16    # NumPy on host memory

The explicit Euler step of examples/heat_equation.py (7-point stencil, periodic n^3 domain, one
component of doubles, one ghost layer), timed in steps per second for:

(a) stacked: the field in a MultiFab of boxes of --box^3; each step `fill_boundary` and then one
    kernel over every box through the stacked view `mf.to_cupy_stacked()` (a CuPy RawKernel; on
    the CPU one NumPy expression over `mf.to_numpy_stacked()`);
(b) per-box loop: the same MultiFab layout, `fill_boundary`, then the stencil box by box through
    the boxes' own views (`to_xp`, made once; one CuPy kernel per box and operation);
(c) one plain n^3 array (no boxes at all) with periodic `cupy.roll` (`numpy.roll` on the CPU);
(d) GPU only: one plain n^3 array and one fused kernel like (a)'s with periodic indexing (no
    boxes, no ghost cells, no fill_boundary): (a)/(d) is what the boxes and their ghost exchange
    cost, where (a)/(c), the issue's target, also counts the fusion that (c) lacks.

The three compute the same operations in the same order (((((x+ + x-) + y+) + y-) + z+) + z-),
minus 6 u, times c, plus u, in double precision: before the timings, --check-steps steps of each
from the same random field must agree to round-off (a wrong result fails the run however fast
it was; in practice they agree bit for bit).  The target of issue 14: (a) >= 0.8 x (c).

Timing: boxfab works on its own stream and CuPy on its current stream, so (a) and (b)
synchronize the device after fill_boundary and after the stencil, every step (as the example
does); (c) runs on CuPy's stream alone.  Each path runs 2 warm-up steps, then --repeat batches of
--steps steps (--loop-steps for (b)), each ended by a device synchronization and timed with
time.perf_counter; the best batch counts.

Exit status: 0 when the checks pass (a target miss is reported, not a failure, unless --strict:
then 3), 1 when a check failed, 2 on bad arguments.  Without a GPU (or with --cpu, or
BOXFAB_DEVICE=cpu) the same code runs with NumPy on host memory: a dry run of the script, whose
numbers say nothing about the GPU.
"""
import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--n", type=int, default=None, help="cells per direction (default: 512 on a GPU, 64 on the CPU)")
    p.add_argument("--box", type=int, default=32, help="box side (n must be a multiple of it)")
    p.add_argument("--steps", type=int, default=50, help="steps per timed batch of (a) and (c)")
    p.add_argument("--loop-steps", type=int, default=5, help="steps per timed batch of (b), the per-box loop")
    p.add_argument("--repeat", type=int, default=3, help="timed batches per path (the best counts)")
    p.add_argument("--check-steps", type=int, default=4, help="steps of the check of (a) and (b) against (c)")
    p.add_argument("--cpu", action="store_true", help="NumPy on host memory even where a GPU is present")
    p.add_argument("--strict", action="store_true", help="exit 3 when (a) misses its target")
    a = p.parse_args(argv)
    for name in ("box", "steps", "loop_steps", "repeat", "check_steps"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    if a.n is not None and (a.n < 1 or a.n % a.box):
        p.error(f"--n ({a.n}) must be a positive multiple of --box ({a.box}): boxes of one size")
    return a


def main(argv=None):
    args = parse_args(argv)
    if args.cpu:
        os.environ["BOXFAB_DEVICE"] = "cpu"
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import heat_equation as heat  # the example's stencils (it imports boxfab.space3d)
    import boxfab.space3d as amr

    gpu = amr.Config.have_gpu
    if gpu:
        try:
            import cupy as xp
            gpu = xp.cuda.runtime.getDeviceCount() > 0
        except Exception as e:  # boxfab on a GPU but no CuPy: nothing to compare with
            print(f"skipped: boxfab uses a GPU but CuPy is not usable ({type(e).__name__}: {e})")
            return 0
    if not gpu:
        xp = np
    n = args.n if args.n is not None else (512 if gpu else 64)
    if n % args.box:
        print(f"--n ({n}) must be a multiple of --box ({args.box})", file=sys.stderr)
        return 2

    def sync():
        if gpu:
            xp.cuda.Device().synchronize()

    def host(a):
        return a.get() if gpu else a

    dx = 1.0 / n
    c = 0.9 * dx * dx / 6.0 / (dx * dx)  # D dt / dx^2 at 0.9 of the stability limit (D = 1)
    failed = 0
    with amr.initialize(["amrex.verbose=0"]):
        domain = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(n - 1, n - 1, n - 1))
        ba = amr.BoxArray(domain)
        ba.max_size(args.box)
        dm = amr.DistributionMapping(ba)
        period = amr.Periodicity(amr.IntVect(n, n, n))
        fields = {k: amr.MultiFab(ba, dm, 1, 1) for k in ("a0", "a1", "b0", "b1")}
        boxes = [mfi.validbox() for mfi in fields["a0"]]
        views = {k: [v[..., 0] for v in mf.to_xp()] for k, mf in fields.items()}
        if gpu:
            stacked = {k: fields[k].to_cupy_stacked(order="C") for k in ("a0", "a1")}
        else:
            stacked = {k: fields[k].to_numpy_stacked()[..., 0] for k in ("a0", "a1")}
        rng = np.random.default_rng(14)
        g = xp.asarray(1.0 + 0.1 * rng.standard_normal((n, n, n)))  # [x, y, z]

        def init():
            """Every field from g (valid cells; ghost cells come from fill_boundary)."""
            for k in ("a0", "b0"):
                for vb, v in zip(boxes, views[k]):
                    lo, hi = list(vb.small_end), list(vb.big_end)
                    v[1:-1, 1:-1, 1:-1] = g[lo[0]:hi[0] + 1, lo[1]:hi[1] + 1, lo[2]:hi[2] + 1]
            sync()
            return g.copy()

        def gather(k):
            out = np.empty((n, n, n))
            for vb, v in zip(boxes, views[k]):
                lo, hi = list(vb.small_end), list(vb.big_end)
                out[lo[0]:hi[0] + 1, lo[1]:hi[1] + 1, lo[2]:hi[2] + 1] = host(v[1:-1, 1:-1, 1:-1])
            return out

        state = {"a": ["a0", "a1"], "b": ["b0", "b1"]}

        def step_a():
            old, new = state["a"]
            fields[old].fill_boundary(period)
            sync()
            if gpu:
                heat.step_stacked_kernel(xp, stacked[old], stacked[new], c)
            else:
                heat.step_stacked_array(xp, stacked[old], stacked[new], c)
            sync()
            state["a"] = [new, old]

        def step_b():
            old, new = state["b"]
            fields[old].fill_boundary(period)
            sync()
            heat.step_boxes(xp, views[old], views[new], c)
            sync()
            state["b"] = [new, old]

        plain = {"u": None}

        def step_c():
            u = plain["u"]
            s = xp.roll(u, -1, 0) + xp.roll(u, 1, 0)
            s += xp.roll(u, -1, 1)
            s += xp.roll(u, 1, 1)
            s += xp.roll(u, -1, 2)
            s += xp.roll(u, 1, 2)
            s -= 6.0 * u
            s *= c
            s += u
            plain["u"] = s

        plain_kernel = None
        if gpu:  # (d): the same operations in the same order, no FMA contraction, as (a)'s kernel
            plain_kernel = xp.RawKernel(r"""
extern "C" __global__ void heat_plain(const double* __restrict__ u, double* __restrict__ w, int n, double c) {
  const long long n3 = (long long)n * n * n, t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n3) return;
  const int z = (int)(t % n), y = (int)(t / n % n), x = (int)(t / ((long long)n * n));  // u[x, y, z], z fastest
  const long long sx = (long long)n * n, sy = n;
  const long long xp = (x + 1) % n, xm = (x + n - 1) % n, yp = (y + 1) % n, ym = (y + n - 1) % n;
  const long long zp = (z + 1) % n, zm = (z + n - 1) % n;
  const double uc = u[t];
  double s = u[xp * sx + y * sy + z] + u[xm * sx + y * sy + z];
  s += u[x * sx + yp * sy + z];
  s += u[x * sx + ym * sy + z];
  s += u[x * sx + y * sy + zp];
  s += u[x * sx + y * sy + zm];
  s -= 6.0 * uc;
  s *= c;
  w[t] = s + uc;
}""", "heat_plain", options=("--fmad=false",))
        fused = {"u": None, "w": None}

        def step_d():
            u, w = fused["u"], fused["w"]
            n3 = n * n * n
            plain_kernel(((n3 + 255) // 256,), (256,), (u, w, np.int32(n), np.float64(c)))
            fused["u"], fused["w"] = w, u

        def step_fb():
            fields["a0"].fill_boundary(period)
            sync()

        # ---- checks: the three paths from the same field ------------------------------------------
        plain["u"] = init()
        if gpu:
            fused["u"], fused["w"] = g.copy(), xp.empty_like(g)
        for _ in range(args.check_steps):
            step_a()
            step_b()
            step_c()
            if gpu:
                step_d()
        sync()
        ua, ub, uc = gather(state["a"][0]), gather(state["b"][0]), host(plain["u"])
        scale = float(np.abs(uc).max())
        lines = []
        checked = [("(a) stacked", ua), ("(b) per-box loop", ub)]
        if gpu:
            checked.append(("(d) one array, fused kernel", host(fused["u"])))
        for name, x in checked:
            d = float(np.abs(x - uc).max())
            ok = d <= 1e-12 * scale
            failed += not ok
            lines.append(f"check: {name} against (c) after {args.check_steps} steps: max |diff| = {d:.3e} "
                         f"(field max {scale:.3f}, {'bitwise equal' if d == 0 else 'round-off'}): "
                         f"{'ok' if ok else 'FAILED'}")

        # ---- timings ---------------------------------------------------------------------------------
        def best_rate(step, steps):
            for _ in range(2):
                step()
            sync()
            best = float("inf")
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                for _ in range(steps):
                    step()
                sync()
                best = min(best, time.perf_counter() - t0)
            return steps / best

        rates = {
            "a": best_rate(step_a, args.steps),
            "b": best_rate(step_b, args.loop_steps),
            "c": best_rate(step_c, args.steps),
            "fb": best_rate(step_fb, args.steps),
        }
        if gpu:
            rates["d"] = best_rate(step_d, args.steps)
        where = f"GPU (CuPy {xp.__version__})" if gpu else f"CPU (NumPy {np.__version__}, host memory)"
        print(f"heat step, {n}^3 doubles, {args.box}^3 boxes ({ba.size} boxes, 1 ghost layer), {where}")
        print(f"  {'path':<58} {'steps/s':>10} {'ms/step':>9}")
        rows = (("a", "(a) stacked: fill_boundary + one kernel over all boxes"),
                ("b", "(b) per-box loop: fill_boundary + to_xp views box by box"),
                ("c", f"(c) one {n}^3 array, periodic {'cupy' if gpu else 'numpy'}.roll (no boxes)"),
                ("d", f"(d) one {n}^3 array, one fused kernel like (a)'s (no boxes)"),
                ("fb", "    of which fill_boundary alone (part of (a) and (b))"))
        for k, label in rows:
            if k not in rates:
                continue
            print(f"  {label:<58} {rates[k]:10.1f} {1e3 / rates[k]:9.3f}")
        r_ac, r_ab = rates["a"] / rates["c"], rates["a"] / rates["b"]
        met = r_ac >= 0.8
        print(f"  (a)/(c) = {r_ac:.2f}   target >= 0.8   {'PASS' if met else 'MISS'}")
        print(f"  (a)/(b) = {r_ab:.2f}")
        if "d" in rates:
            print(f"  (a)/(d) = {rates['a'] / rates['d']:.2f}   (the boxes and their ghost exchange against one "
                  "array with the same fused kernel; no target)")
        for ln in lines:
            print(ln)
    if failed:
        print(f"checks FAILED ({failed})")
        return 1
    print("checks passed (0 failed)")
    if args.strict and not met:
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
