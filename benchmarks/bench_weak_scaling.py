"""Weak scaling across MPI ranks (issues 12 and 13): the same work per rank on 1, 2, 4, ... ranks.

    mpirun -n 2 python benchmarks/bench_weak_scaling.py --cells 512 --box 128 --particles 1e7

Each rank owns a block of --cells^3 cells (the blocks tile a periodic domain: 1 rank 1x1x1
blocks, 2 ranks 2x1x1, 4 ranks 2x2x1, 8 ranks 2x2x2), cut into --box^3 boxes; box -> rank by
block (an explicit DistributionMapping).  Timed, on the slowest rank (barriers around each call;
device synchronization where boxfab uses a GPU):
- fill_boundary of one double component with 2 ghost cells, periodic;
- redistribute of --particles particles per rank (pure SoA, 8 reals) after every particle moved
  by up to one cell in each direction (the move itself is not timed).
Rank 0 prints one line per measurement with the time, and the bytes and messages the engine
sent (boxfab._core._exchange_stats()).  Efficiency = time on 1 rank / time on N: run it at each
N and compare (scripts/gpu-mpi.sh does).  The data path: device memory through pinned host
buffers, or straight to MPI when it is CUDA-aware (BOXFAB_MPI_CUDA_AWARE=0/1 chooses).
"""
import argparse
import time

import numpy as np
from mpi4py import MPI

import boxfab
import boxfab.space3d as amr


def blocks_of(n):
    f = {1: (1, 1, 1), 2: (2, 1, 1), 4: (2, 2, 1), 8: (2, 2, 2), 16: (4, 2, 2)}
    if n not in f:
        raise SystemExit(f"bench_weak_scaling: {n} ranks: use 1, 2, 4, 8 or 16")
    return f[n]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--cells", type=int, default=512, help="cells per direction of each rank's block")
    ap.add_argument("--box", type=int, default=128, help="box size")
    ap.add_argument("--particles", type=float, default=1e7, help="particles per rank (0: none)")
    ap.add_argument("--repeat", type=int, default=10, help="timed calls (the best and the median are printed)")
    ap.add_argument("--label", default="", help="a tag printed on each line")
    args = ap.parse_args()
    comm = MPI.COMM_WORLD
    me, nr = comm.Get_rank(), comm.Get_size()
    bx, by, bz = blocks_of(nr)
    c = args.cells
    amr.initialize(["amrex.verbose=0"])
    try:
        gpu = amr.Config.have_gpu
        sync = (lambda: None)
        if gpu:
            import cupy as cp
            sync = cp.cuda.runtime.deviceSynchronize
        n = (bx * c, by * c, bz * c)
        dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(n[0] - 1, n[1] - 1, n[2] - 1))
        ba = amr.BoxArray(dom)
        ba.max_size(args.box)
        pmap = []
        for i in range(ba.size):
            lo = ba.get(i).small_end
            b = (lo[0] // c) + bx * ((lo[1] // c) + by * (lo[2] // c))
            pmap.append(b)
        dm = amr.DistributionMapping(pmap)
        period = amr.Periodicity(amr.IntVect(*n))

        def timed(fn, repeat):
            ts = []
            for _ in range(repeat):
                sync()
                comm.Barrier()
                t0 = time.perf_counter()
                fn()
                sync()
                dt = time.perf_counter() - t0
                ts.append(comm.allreduce(dt, op=MPI.MAX))
            return min(ts), float(np.median(ts))

        tag = f"{args.label} " if args.label else ""
        mf = amr.MultiFab(ba, dm, 1, 2)
        mf.set_val(1.0)
        mf.fill_boundary(period)  # the plan, the buffers
        best, med = timed(lambda: mf.fill_boundary(period), args.repeat)
        st = boxfab._core._exchange_stats() if nr > 1 else {"bytes_sent": 0, "messages_sent": 0}
        sent = comm.allreduce(st["bytes_sent"])
        msgs = comm.allreduce(st["messages_sent"])
        if me == 0:
            print(f"{tag}ranks {nr} gpu {int(gpu)} fill_boundary {c}^3/rank box {args.box}: best {best * 1e3:.3f} ms "
                  f"median {med * 1e3:.3f} ms; sent {sent / 1e6:.1f} MB in {msgs} messages", flush=True)
        del mf

        npart = int(args.particles)
        if npart > 0:
            geom = amr.Geometry(dom, amr.RealBox([0, 0, 0], [bx, by, bz]), 0, [1, 1, 1])
            pc = amr.ParticleContainer_pureSoA_8_0_default(geom, dm, ba)
            init = amr.ParticleInitType_pureSoA_8_0()
            init.real_array_data = [0.0] * 8
            init.int_array_data = []
            pc.init_random(npart * nr, 11, init, False, geom.ProbDomain())
            total = pc.total_number_of_particles()
            dx = 1.0 / c
            rng = np.random.default_rng(me)

            def move():
                for pti in pc.iterator(pc, level=0):
                    soa = pti.soa()
                    arrs = soa.to_cupy() if gpu else soa.to_numpy()
                    for name in ("x", "y", "z"):
                        a = arrs.real[name]
                        step = rng.random(a.shape[0]) * 2 - 1
                        a += (cp.asarray(step) if gpu else step) * dx
                sync()

            ts = []
            for _ in range(args.repeat):
                move()
                best_red, _ = timed(pc.redistribute, 1)
                ts.append(best_red)
            ok = pc.OK() and pc.total_number_of_particles() == total
            if me == 0:
                print(f"{tag}ranks {nr} gpu {int(gpu)} redistribute {npart:.0e}/rank box {args.box}: "
                      f"best {min(ts) * 1e3:.3f} ms median {float(np.median(ts)) * 1e3:.3f} ms; "
                      f"{'ok' if ok else 'WRONG (lost or misplaced particles)'}", flush=True)
            if not ok:
                comm.Abort(2)
    finally:
        amr.finalize()


if __name__ == "__main__":
    main()
