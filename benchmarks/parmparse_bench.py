"""ParmParse.addfile scaling (issue 21: 100k keys 2.9 s, 200k 13.6 s, 400k 68 s, while the same keys
through pp.add took 0.4 s for 200k; long runs of '\\' continuation lines were quadratic too).

    .venv/bin/python benchmarks/parmparse_bench.py [--sizes 100000 200000 400000] [--repeat 3]

For each size n, the best of --repeat runs on an emptied store of:

  addfile keys   an inputs file of n lines "bench.k<i> = <i>";
  add loop       pp.add("k<i>", i) for the same n keys (ParmParse with prefix "bench");
  addfile cont   one definition of n values, one per line, joined by '\\' continuations;
  pretty+read    pretty_text() of the n keys written out and read back with addfile.

Each row prints the time, the time per key (microseconds: flat when the work is linear) and the
ratio to the previous size (about size ratio when linear; its square when quadratic).  The last
column compares addfile with the add loop.  Every run checks the values it read.
"""
import argparse
import os
import tempfile
import time


class _Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """--help shows the defaults and keeps the description's layout."""


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=_Formatter)
    p.add_argument("--sizes", type=int, nargs="+", default=[100000, 200000, 400000], help="numbers of keys")
    p.add_argument("--repeat", type=int, default=3, help="timed runs; the best is reported")
    return p.parse_args(argv)


def best_of(repeat, setup, fn):
    best = None
    for _ in range(repeat):
        setup()
        t0 = time.perf_counter()
        fn()
        t = time.perf_counter() - t0
        best = t if best is None else min(best, t)
    return best


def main(argv=None):
    args = parse_args(argv)
    import boxfab.space3d as amr
    amr.initialize(["amrex.verbose=0"])
    pp = amr.ParmParse("bench")
    tmp = tempfile.mkdtemp(prefix="pp_bench_")
    results = {}
    for n in args.sizes:
        keys = [f"k{i}" for i in range(n)]

        def clear():
            for k in keys:
                pp.remove(k)
            pp.remove("c")

        keys_file = os.path.join(tmp, f"keys{n}")
        with open(keys_file, "w") as f:
            f.writelines(f"bench.k{i} = {i}\n" for i in range(n))
        cont_file = os.path.join(tmp, f"cont{n}")
        with open(cont_file, "w") as f:
            f.write("bench.c = 0")
            f.writelines(f" \\\n {i}" for i in range(1, n))
            f.write("\n")

        row = {}
        row["addfile keys"] = best_of(args.repeat, clear, lambda: amr.ParmParse.addfile(keys_file))
        if pp.get_int(keys[-1]) != n - 1:
            raise SystemExit("parmparse_bench.py: addfile read a wrong value")

        def add_loop():
            for i, k in enumerate(keys):
                pp.add(k, i)
        row["add loop"] = best_of(args.repeat, clear, add_loop)
        row["addfile cont"] = best_of(args.repeat, clear, lambda: amr.ParmParse.addfile(cont_file))
        if pp.countval("c") != n or pp.get_int("c", n - 1) != n - 1:
            raise SystemExit("parmparse_bench.py: the continued definition read wrong")
        pp.remove("c")
        add_loop()
        pretty_file = os.path.join(tmp, f"pretty{n}")

        def pretty_read():
            text = "".join(ln + "\n" for ln in pp.pretty_text().split("\n") if ln.startswith("bench."))
            with open(pretty_file, "w") as f:
                f.write(text)
            amr.ParmParse.addfile(pretty_file)
        row["pretty+read"] = best_of(args.repeat, lambda: None, pretty_read)
        if pp.get_int(keys[n // 2]) != n // 2:
            raise SystemExit("parmparse_bench.py: pretty -> addfile changed a value")
        clear()
        results[n] = row

    print(f"ParmParse.addfile scaling (best of {args.repeat}; ratio: to the previous size)")
    print(f"  {'n':>9s} {'what':13s} {'time ms':>10s} {'us/key':>8s} {'ratio':>7s} {'/add loop':>9s}")
    prev = None
    for n, row in results.items():
        for what, t in row.items():
            ratio = f"{t / results[prev][what]:7.2f}" if prev else "      -"
            vs = f"{t / row['add loop']:9.2f}"
            print(f"  {n:9,d} {what:13s} {t * 1e3:10.1f} {t / n * 1e6:8.2f} {ratio} {vs}")
        prev = n
    amr.finalize()


if __name__ == "__main__":
    main()
