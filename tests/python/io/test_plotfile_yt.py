"""yt (its AMReX frontend) loads the plotfiles boxfab writes: one level and two levels, values equal
to the MultiFab's (PLOTFILE.md: "A plotfile boxfab writes must load in yt").  Skipped without yt."""
import os

import numpy as np
import pytest

yt = pytest.importorskip("yt")

import boxfab.space3d as amr  # noqa: E402
from test_plotfile import fixture_mf  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def runtime():
    amr.initialize(["amrex.verbose=0"])
    yt.set_log_level(50)
    yield
    amr.finalize()


def test_yt_loads_single_level_with_the_amrex_frontend(tmp_path):
    mf, geom = fixture_mf()
    out = str(tmp_path / "plt00007")
    amr.write_single_level_plotfile(out, mf, ["rho", "temp"], geom, 1.5, 7)
    ds = yt.load(out)
    assert type(ds).__name__ == "AMReXDataset"          # picked through job_info
    assert list(ds.domain_dimensions) == [32, 32, 32] and float(ds.current_time) == 1.5
    np.testing.assert_array_equal(ds.domain_left_edge.v, [-1.0, 0.0, 0.0])
    cg = ds.covering_grid(0, ds.domain_left_edge, ds.domain_dimensions)
    i, j, k = np.meshgrid(*[np.arange(32)] * 3, indexing="ij")
    np.testing.assert_array_equal(cg["boxlib", "rho"].v, i + 100.0 * j + 10000.0 * k)
    np.testing.assert_array_equal(cg["boxlib", "temp"].v, np.sin(0.1 * i) * np.cos(0.2 * j) + 0.001 * k)


def test_yt_loads_two_levels(tmp_path):
    mf0, geom0 = fixture_mf()
    ba1 = amr.BoxArray(amr.Box(amr.IntVect(16, 16, 16), amr.IntVect(47, 47, 31)))
    mf1 = amr.MultiFab(ba1, amr.DistributionMapping(ba1), 2, 0)
    mf1.set_val(-3.0)
    geom1 = amr.Geometry(amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(63, 63, 63)),
                         amr.RealBox([-1.0, 0.0, 0.0], [1.0, 2.0, 0.5]), 0, [1, 1, 0])
    out = str(tmp_path / "plt_ml")
    amr.write_multi_level_plotfile(out, 2, [mf0, mf1], ["rho", "temp"], [geom0, geom1], 1.5, [7, 14],
                                   [amr.IntVect(2, 2, 2)])
    ds = yt.load(out)
    assert ds.max_level == 1 and ds.index.num_grids == 9
    fine = [g for g in ds.index.grids if g.Level == 1]
    assert len(fine) == 1 and (fine[0]["boxlib", "rho"].v == -3.0).all()
    assert os.path.exists(os.path.join(out, "job_info"))
