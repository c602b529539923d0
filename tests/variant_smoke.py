"""The smoke test of a package built with a feature turned off (scripts/test.sh, variant_build):
run with PYTHONPATH at the variant's install folder and BOXFAB_VARIANT=no-mpi or no-cuda, from
outside the tree.  It checks that the build says what it lacks (in every dimension's Config), and
that the mesh, the ghost exchange, the particles and a plotfile work without it in 3D, against
NumPy."""
import os
import sys
import tempfile

import numpy as np

import boxfab

variant = os.environ["BOXFAB_VARIANT"]
here = os.path.dirname(os.path.abspath(boxfab.__file__))
assert here.startswith(os.path.abspath(os.environ["PYTHONPATH"])), f"imported {here}, not the variant build"
info = boxfab.build_info()
lacks = {"no-mpi": "mpi", "no-cuda": "cuda"}[variant]
assert info[lacks] is False, f"{variant}: build_info() says {lacks}={info[lacks]}"

import boxfab.space1d  # noqa: E402
import boxfab.space2d  # noqa: E402
import boxfab.space3d as amr  # noqa: E402

for mod in (boxfab.space1d, boxfab.space2d, amr):
    if lacks == "mpi":
        assert mod.Config.have_mpi is False, f"{mod.__name__}.Config.have_mpi in a build without MPI"
    else:
        assert mod.Config.have_gpu is False, f"{mod.__name__}.Config.have_gpu in a build without CUDA"

with amr.initialize(["amrex.verbose=0"]):
    assert amr.ParallelDescriptor.NProcs() == 1
    n = 16
    domain = amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(n - 1, n - 1, n - 1))
    ba = amr.BoxArray(domain).max_size(8)
    dm = amr.DistributionMapping(ba)
    geom = amr.Geometry(domain, amr.RealBox([0, 0, 0], [1, 1, 1]), 0, [1, 1, 1])
    mf = amr.MultiFab(ba, dm, 1, 1, amr.MFInfo().set_arena(amr.The_Cpu_Arena()))
    ref = np.random.default_rng(0).random((n, n, n))
    mf.set_val(-1.0)
    for mfi in mf:
        a = mf.array(mfi).to_numpy()
        b = mfi.validbox()
        lo, hi = b.small_end, b.big_end
        a[1:-1, 1:-1, 1:-1, 0] = ref[lo[0]:hi[0] + 1, lo[1]:hi[1] + 1, lo[2]:hi[2] + 1]
    mf.fill_boundary(geom.periodicity())
    assert abs(mf.sum(0) - ref.sum()) < 1e-9 * ref.size
    padded = np.pad(ref, 1, mode="wrap")
    for mfi in mf:
        a = mf.array(mfi).to_numpy()
        lo, hi = mfi.validbox().small_end, mfi.validbox().big_end
        want = padded[lo[0]:hi[0] + 3, lo[1]:hi[1] + 3, lo[2]:hi[2] + 3]
        assert np.array_equal(a[..., 0], want), "fill_boundary differs from NumPy's periodic padding"

    pc = amr.ParticleContainer(geom, dm, ba, real_names=["w"])
    pos = np.random.default_rng(1).random((500, 3))
    pc.add_particles(pos, {"w": np.arange(500.0)})
    pc.redistribute()
    assert pc.total_number_of_particles() == 500
    seen = []
    for pti in pc.iterator(pc, level=0):
        seen.append(pti.soa().to_numpy().real["w"].copy())
    assert sorted(np.concatenate(seen).tolist()) == list(np.arange(500.0))

    with tempfile.TemporaryDirectory() as tmp:
        plt = os.path.join(tmp, "plt00000")
        amr.write_single_level_plotfile(plt, mf, ["u"], geom, 0.0, 0)
        pc.write_plotfile(plt, "particles")
        back = amr.PlotFileData(plt).get(0, "u")
        assert np.array_equal(back[:, :, :, 0], ref)
    del pc, mf
print(f"variant {variant}: build_info {info}; mesh, fill_boundary, particles and a plotfile work in 3D; "
      f"1D and 2D import")
sys.exit(0)
