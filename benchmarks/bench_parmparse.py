"""ParmParse store speed: adding and querying many distinct keys (issue 11's adversarial finding:
80k keys took 6 s to add while lookups were a linear scan).

    .venv/bin/python benchmarks/bench_parmparse.py [--n 100000] [--repeat 3]

Times, each the best of --repeat runs on an emptied store:

  add        pp.add("k<i>", i) for n distinct keys (one ParmParse with prefix "bench");
  query      pp.query_int("k<i>") for every key, in a shuffled order;
  redefine   pp.add("k<i>", -i) again (the last definition wins: the count stays n);
  remove     pp.remove("k<i>") for every key.

Per key, in microseconds, so that O(1) per operation shows as a flat figure when --n changes.
Every query is checked against the value added.
"""
import argparse
import random
import time


class _Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """--help shows the defaults and keeps the description's layout."""


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=_Formatter)
    p.add_argument("--n", type=int, default=100000, help="distinct keys")
    p.add_argument("--repeat", type=int, default=3, help="timed runs; the best is reported")
    return p.parse_args(argv)


def run_once(amr, n, order):
    pp = amr.ParmParse("bench")
    keys = [f"k{i}" for i in range(n)]
    t = {}
    t0 = time.perf_counter()
    for i, k in enumerate(keys):
        pp.add(k, i)
    t["add"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    got = [pp.query_int(keys[i]) for i in order]
    t["query"] = time.perf_counter() - t0
    for i, (found, v) in zip(order, got):
        if not found or v != i:
            raise SystemExit(f"bench_parmparse.py: key {keys[i]}: got {(found, v)}, expected (True, {i})")
    t0 = time.perf_counter()
    for i, k in enumerate(keys):
        pp.add(k, -i)
    t["redefine"] = time.perf_counter() - t0
    if pp.query_int(keys[-1]) != (True, -(n - 1)):
        raise SystemExit("bench_parmparse.py: the last definition did not win")
    t0 = time.perf_counter()
    for k in keys:
        pp.remove(k)
    t["remove"] = time.perf_counter() - t0
    if any(pp.contains(k) for k in keys[:: max(1, n // 100)]):
        raise SystemExit("bench_parmparse.py: a removed key is still there")
    return t


def main(argv=None):
    args = parse_args(argv)
    import boxfab.space3d as amr
    amr.initialize(["amrex.verbose=0"])
    order = list(range(args.n))
    random.Random(1).shuffle(order)
    best = {}
    for _ in range(args.repeat):
        for k, v in run_once(amr, args.n, order).items():
            best[k] = min(best.get(k, v), v)
    print(f"ParmParse store, {args.n:,} distinct keys (best of {args.repeat}):")
    for k, v in best.items():
        print(f"  {k:9s} {v * 1e3:10.1f} ms   {v / args.n * 1e6:7.2f} us/key")
    amr.finalize()


if __name__ == "__main__":
    main()
