"""BoxArray / DistributionMapping timings through the Python API.

    .venv/bin/python benchmarks/boxarray_bench.py [--sizes 10000 100000]

(.venv is made by scripts/run.sh or scripts/test.sh.)

For each size N a 3D domain of k^3 boxes of 8^3 cells (k = round(N^(1/3))) is
made with max_size; then minimal_box, the first intersection query (it builds
the cached spatial hash), a sweep that queries every box grown by one cell
(27 results inside the domain) and DistributionMapping creation with each
strategy.  The last columns give microseconds per box: flat (not growing
with N) means each query costs O(results), not O(N) — no quadratic sweep.
"""
import argparse
import time

import boxfab.space3d as amr


class _Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """--help shows the defaults and keeps the description's layout."""


def timed(fn, repeat=3):
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def bench(n_target):
    k = max(1, round(n_target ** (1 / 3)))
    dom = amr.Box([0, 0, 0], [8 * k - 1] * 3)
    t_max, ba = timed(lambda: amr.BoxArray(dom).max_size(8))
    n = ba.size
    t_min, mb = timed(lambda: ba.minimal_box())
    assert mb == dom
    boxes = list(ba)
    grown = [amr.Box(b.small_end, b.big_end).grow(1) for b in boxes]

    fresh = amr.BoxArray(dom).max_size(8)
    t0 = time.perf_counter()
    fresh.intersections(grown[0])
    t_first = time.perf_counter() - t0

    def sweep():
        hits = 0
        for g in grown:
            hits += len(ba.intersections(g))
        return hits

    t_sweep, hits = timed(sweep, repeat=1)
    assert hits == (3 * k - 2) ** 3, hits

    def sweep_bool():
        return sum(ba.intersects(g) for g in grown)

    t_any, _ = timed(sweep_bool, repeat=1)
    t_dm = {s: timed(lambda s=s: amr.DistributionMapping(ba, 64, strategy=s))[0]
            for s in ("sfc", "knapsack", "roundrobin")}
    return n, hits, t_max, t_min, t_first, t_sweep, t_any, t_dm


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=_Formatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000],
                    help="approximate numbers of boxes, one table row each")
    args = ap.parse_args(argv)
    if any(n < 1 for n in args.sizes):
        ap.error("--sizes must be positive")
    print(f"{'boxes':>8} {'max_size':>9} {'min_box':>9} {'1st query':>9} {'sweep':>9} {'any-sweep':>9} "
          f"{'dm sfc':>8} {'dm knap':>8} {'dm rr':>8} | {'sweep us/box':>12} {'dm sfc us/box':>13}")
    for size in args.sizes:
        n, hits, t_max, t_min, t_first, t_sweep, t_any, t_dm = bench(size)
        print(f"{n:>8} {t_max * 1e3:>7.2f}ms {t_min * 1e3:>7.3f}ms {t_first * 1e3:>7.2f}ms {t_sweep:>8.3f}s "
              f"{t_any:>8.3f}s {t_dm['sfc'] * 1e3:>6.1f}ms {t_dm['knapsack'] * 1e3:>6.1f}ms "
              f"{t_dm['roundrobin'] * 1e3:>6.1f}ms | {t_sweep / n * 1e6:>12.2f} {t_dm['sfc'] / n * 1e6:>13.3f}")


if __name__ == "__main__":
    main()
