"""Redistribute of 1e6 particles after a one-cell move on 1, 2, 4 ranks (issue 12).

    OMP_NUM_THREADS=1 mpirun -n N --oversubscribe python benchmarks/bench_particles_mpi.py [--n 1e6]

128^3 cells in 32^3 boxes (64 boxes, periodic), pure SoA 3D with 4 more real and 2 int components;
init_random, then every particle moves one cell in x (+dx: a box-boundary layer changes box, some
of it rank); the time of redistribute (median of 5, the slowest rank), and the particles that change
rank (counted independently with NumPy: owner rank of the position before and after).
"""
import argparse
import time

import numpy as np
from mpi4py import MPI

import boxfab.space3d as amr

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--n", type=float, default=1e6, help="particles")
    args = ap.parse_args()
    comm = MPI.COMM_WORLD
    me, n = comm.Get_rank(), comm.Get_size()
    NP = int(args.n)
    NC, BS = 128, 32
    amr.initialize(["amrex.verbose=0"])
    try:
        dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(NC - 1, NC - 1, NC - 1))
        gm = amr.Geometry(dom, amr.RealBox([0.0] * 3, [1.0] * 3), 0, [1, 1, 1])
        ba = amr.BoxArray(dom)
        ba.max_size(BS)
        dm = amr.DistributionMapping(ba)
        pmap = np.array(list(dm.ProcessorMap()))
        lo = np.array([[ba[i].small_end[d] for d in range(3)] for i in range(ba.size)])
        pc = amr.ParticleContainer_pureSoA_7_0_default(gm, dm, ba)
        pc.add_int_comp("i0")
        pc.add_int_comp("i1")
        pc.init_random(NP, 17, amr.ParticleInitType_pureSoA_7_0(), False, amr.RealBox([0.0] * 3, [1.0] * 3))

        def rank_of(x):
            c = np.floor(x * NC).astype(np.int64) % NC
            b = (c // BS)  # boxes of a regular cut: find the index by lo
            key = {tuple(l // BS): i for i, l in enumerate(lo)}
            return pmap[np.array([key[tuple(v)] for v in map(tuple, b)])] if len(b) else np.zeros(0, int)

        times, leave = [], 0
        for it in range(6):
            moved_out = 0
            for pti in pc.iterator(pc, level=0):
                soa = pti.soa().to_numpy()
                x = soa.real["x"]
                if it == 0:
                    pos = np.stack([soa.real["x"] + 1.0 / NC, soa.real["y"], soa.real["z"]], axis=1)
                    pos[:, 0] -= np.floor(pos[:, 0])
                    moved_out += int((rank_of(pos) != me).sum())
                x += 1.0 / NC
            comm.Barrier()
            t0 = time.perf_counter()
            pc.redistribute()
            t = comm.allreduce(time.perf_counter() - t0, op=MPI.MAX)
            if it == 0:
                leave = comm.allreduce(moved_out)
            else:
                times.append(t)  # the first call also grows the tiles
        assert pc.total_number_of_particles() == NP and pc.OK()
        if me == 0:
            print(f"ranks {n}: {NP} particles, redistribute after a one-cell move: median {np.median(times)*1e3:.1f} ms "
                  f"(min {min(times)*1e3:.1f}), {leave} particles change rank per move", flush=True)
    finally:
        amr.finalize()


if __name__ == "__main__":
    main()
