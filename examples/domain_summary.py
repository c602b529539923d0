"""Build a domain, chop it into a BoxArray, distribute it over ranks, summarize.

    python examples/domain_summary.py [nprocs] [n_cell] [max_grid_size]

boxfab's first main job; a later version of this example runs a simulation.
"""
import sys
import time

import boxfab
import boxfab.space3d as amr


def main(nprocs=4, n_cell=128, max_grid_size=32):
    with amr.initialize([f"amr.n_cell={n_cell} {n_cell} {n_cell}", f"amr.max_grid_size={max_grid_size}"]):
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
    args = [int(a) for a in sys.argv[1:]]
    main(*args)
