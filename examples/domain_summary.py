"""Build a domain, chop it into a BoxArray, distribute it over ranks, summarize.

    .venv/bin/python examples/domain_summary.py [--nprocs 4] [--n-cell 128] [--max-grid-size 32]

(.venv is made by scripts/run.sh or scripts/test.sh.)  The boxes go to the
ranks along a space-filling curve, as AMReX's DistributionMapping does by
default; the table shows each rank's share of the cells.
"""
import argparse
import time

import boxfab
import boxfab.space3d as amr


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--nprocs", type=int, default=4, help="ranks to distribute the boxes over")
    p.add_argument("--n-cell", type=int, default=128, help="cells per direction of the cubic domain")
    p.add_argument("--max-grid-size", type=int, default=32, help="largest box side")
    a = p.parse_args(argv)
    if a.nprocs < 1 or a.n_cell < 1 or a.max_grid_size < 1:
        p.error("--nprocs, --n-cell and --max-grid-size must be positive")
    return a


def main(argv=None):
    args = parse_args(argv)
    nprocs, n_cell, max_grid_size = args.nprocs, args.n_cell, args.max_grid_size
    with amr.initialize(["amrex.verbose=0"]):
        domain = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(n_cell - 1, n_cell - 1, n_cell - 1))
        real_box = amr.RealBox([0.0, 0.0, 0.0], [1.0, 1.0, 1.0])
        geom = amr.Geometry(domain, real_box, amr.CoordSys.cartesian, [1, 1, 1])

        t0 = time.perf_counter()
        ba = amr.BoxArray(domain)
        ba.max_size(max_grid_size)
        dm = amr.DistributionMapping(ba, nprocs)
        elapsed = time.perf_counter() - t0

        print(f"boxfab {boxfab.__version__}  build: {boxfab.build_info()}")
        print(f"domain        {domain}  ({domain.numPts():,} cells)")
        print(f"physical      {geom.prob_domain}  dx = {geom.data().CellSize()}")
        print(f"periodic      {geom.isPeriodic()}")
        print(f"BoxArray      {ba.size} boxes of at most {max_grid_size}^3, {ba.numPts:,} cells, "
              f"minimal box {ba.minimal_box()}")
        print(f"chop + map    {elapsed * 1e3:.2f} ms")
        print(f"ranks         {nprocs} (space-filling curve)")
        pmap = list(dm.ProcessorMap())
        loads = [0] * nprocs
        counts = [0] * nprocs
        for i, rank in enumerate(pmap):
            loads[rank] += ba[i].numPts()
            counts[rank] += 1
        ideal = ba.numPts / nprocs
        for rank in range(nprocs):
            print(f"  rank {rank:3d}: {counts[rank]:5d} boxes {loads[rank]:12,d} cells "
                  f"({loads[rank] / ideal:6.1%} of ideal)")
        print(f"imbalance     max/ideal = {max(loads) / ideal:.3f}")


if __name__ == "__main__":
    main()
