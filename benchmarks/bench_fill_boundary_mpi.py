"""fill_boundary across MPI ranks (issue 12).

    OMP_NUM_THREADS=1 mpirun -n 2 .venv/bin/python benchmarks/bench_fill_boundary_mpi.py
    OMP_NUM_THREADS=2 .venv/bin/python benchmarks/bench_fill_boundary_mpi.py   # 1 rank, 2 threads

(as root Open MPI also needs OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;
add --oversubscribe for more ranks than cores.)

A 128^3 periodic domain of 32^3 boxes, 2 ghost cells, 1 double component, the
boxes distributed by the default DistributionMapping.  Prints, on rank 0:
- the time per fill_boundary call (best and median of --repeat calls, each
  call timed between barriers: the slowest rank's time);
- the bytes this layout must send across ranks, counted here from the
  BoxArray and DistributionMapping alone (for every box, the ghost cells whose
  source box -- periodic images included -- lies on another rank), against
  the bytes the engine reports sending (boxfab._core._exchange_stats());
- the messages sent against the number of neighbour pairs (at most one
  message per ordered pair of ranks per call).
Every rank checks its counters against its own independent count.
"""
import argparse
import itertools
import time

import numpy as np
from mpi4py import MPI

import boxfab
import boxfab.space3d as amr


def ghost_bytes(boxes, ranks, ng, n, ncomp=1):
    """Per (src rank, dst rank): the ghost bytes that cross from src to dst."""
    out = {}
    shifts = list(itertools.product((-n, 0, n), repeat=3))
    for i, (lo, hi) in enumerate(boxes):
        glo, ghi = lo - ng, hi + ng
        for j, (blo, bhi) in enumerate(boxes):
            if ranks[j] == ranks[i]:
                continue
            for s in shifts:
                s = np.array(s)
                ilo = np.maximum(glo, blo + s)
                ihi = np.minimum(ghi, bhi + s)
                if (ilo <= ihi).all():
                    key = (ranks[j], ranks[i])
                    out[key] = out.get(key, 0) + int(np.prod(ihi - ilo + 1)) * 8 * ncomp
    return out


def main():
    ap = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--n", type=int, default=128, help="domain cells per direction")
    ap.add_argument("--box", type=int, default=32, help="box size")
    ap.add_argument("--ng", type=int, default=2, help="ghost cells")
    ap.add_argument("--repeat", type=int, default=50, help="timed calls")
    args = ap.parse_args()
    comm = MPI.COMM_WORLD
    me, np_ = comm.Get_rank(), comm.Get_size()
    amr.initialize(["amrex.verbose=0"])
    try:
        n, ng = args.n, args.ng
        dom = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(n - 1, n - 1, n - 1))
        ba = amr.BoxArray(dom)
        ba.max_size(args.box)
        dm = amr.DistributionMapping(ba)
        mf = amr.MultiFab(ba, dm, 1, ng)
        mf.set_val(1.0)
        P = amr.Periodicity(amr.IntVect(n, n, n))
        ranks = [dm[i] for i in range(len(ba))]
        boxes = [(np.array(list(ba.get(i).small_end)), np.array(list(ba.get(i).big_end))) for i in range(len(ba))]
        cross = ghost_bytes(boxes, ranks, ng, n)
        want_sent = sum(v for (s, d), v in cross.items() if s == me)
        want_msgs = sum(1 for (s, d) in cross if s == me)
        mf.fill_boundary(P)  # warm-up: builds and caches the plan
        st = boxfab._core._exchange_stats()
        sent = st["bytes_sent"] if np_ > 1 else 0
        msgs = st["messages_sent"] if np_ > 1 else 0
        assert sent == want_sent, (me, sent, want_sent)
        assert msgs == want_msgs, (me, msgs, want_msgs)
        times = []
        for _ in range(args.repeat):
            comm.Barrier()
            t0 = time.perf_counter()
            mf.fill_boundary(P)
            comm.Barrier()
            times.append(time.perf_counter() - t0)
        tot_sent = comm.allreduce(sent)
        tot_want = comm.allreduce(want_sent)
        tot_msgs = comm.allreduce(msgs)
        pairs = len(cross)
        if me == 0:
            import os
            print(f"ranks {np_}, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '(default)')}, "
                  f"{len(ba)} boxes of {args.box}^3 in {n}^3, {ng} ghosts, periodic, 1 component")
            print(f"  fill_boundary: best {min(times) * 1e3:.2f} ms, median {np.median(times) * 1e3:.2f} ms per call")
            print(f"  bytes sent across ranks per call: engine {tot_sent}, counted from the layout {tot_want}"
                  f" ({'equal' if tot_sent == tot_want else 'DIFFERENT'})")
            print(f"  messages per call: {tot_msgs} for {pairs} ordered neighbour pairs")
    finally:
        amr.finalize()


if __name__ == "__main__":
    main()
