"""AmrInfo and AmrMesh (API.md 4.4): AMReX's defaults, the amr.* / geometry.* parameters read
as AMReX's AmrMesh::InitAmrMesh reads them, per-level values with IndexError for missing levels.
AmrMesh scenarios change the process-wide parameter store and default geometry: they run in a
child interpreter each."""
import pytest

from conftest import run_python


def test_amrinfo_defaults(amr):
    dim = amr.Config.spacedim
    info = amr.AmrInfo()
    assert info.verbose == 0 and info.max_level == 0 and info.n_proper == 1 and info.use_fixed_upto_level == 0
    assert info.grid_eff == pytest.approx(0.7)
    assert info.refine_grid_layout is True and info.check_input is True and info.iterate_on_new_grids is True
    assert info.use_fixed_coarse_grids is False and info.use_new_chop is False
    assert info.refine_grid_layout_dims == amr.IntVect(*([1] * dim))
    assert info.ref_ratio(0) == amr.IntVect(*([2] * dim))
    assert info.blocking_factor(0) == amr.IntVect(*([8] * dim))
    assert info.max_grid_size(0) == amr.IntVect(*([32 if dim == 3 else 128] * dim))   # AMReX's CPU build
    assert info.n_error_buf(0) == amr.IntVect(*([1] * dim))
    assert "max_level 0" in repr(info)


def test_amrinfo_attributes_and_levels(amr):
    info = amr.AmrInfo()
    info.max_level = 3
    info.grid_eff = 0.9
    info.check_input = False
    info.refine_grid_layout_dims = amr.IntVect(*([0] * amr.Config.spacedim))
    assert (info.max_level, info.grid_eff, info.check_input) == (3, 0.9, False)
    assert info.refine_grid_layout_dims == amr.IntVect(*([0] * amr.Config.spacedim))
    for f in (info.ref_ratio, info.blocking_factor, info.max_grid_size, info.n_error_buf):
        with pytest.raises(IndexError, match="level"):
            f(1)                          # AmrInfo() has one level; max_level does not resize it
        with pytest.raises(IndexError):
            f(-1)
        with pytest.raises(TypeError):
            f("0")
    with pytest.raises(TypeError):
        info.max_level = "3"
    with pytest.raises(OverflowError):
        info.verbose = 2**40
    with pytest.raises(TypeError):
        info.check_input = "yes"
    with pytest.raises(TypeError):
        amr.AmrInfo(1)


def test_amrmesh_from_inputs_file(tmp_path):
    f = tmp_path / "inputs"
    f.write_text("""amr.n_cell = 32 64 16
amr.max_level = 2
amr.ref_ratio = 2 4
amr.blocking_factor = 8
amr.max_grid_size = 64 32
amr.n_error_buf = 2
amr.grid_eff = 0.8
geometry.prob_lo = -1 -1 -1
geometry.prob_hi = 1 3 1
geometry.is_periodic = 1 0 1
""")
    r = run_python(f"""
        import boxfab.space3d as amr
        amr.initialize([{str(f)!r}, "amrex.verbose=0"])
        m = amr.AmrMesh()
        assert (m.max_level, m.finest_level, m.verbose) == (2, -1, 0)
        assert m.maxLevel() == 2 and m.finestLevel() == -1
        rr = m.ref_ratio()
        assert [tuple(iv) for iv in rr] == [(2, 2, 2), (4, 4, 4), (2, 2, 2)], list(rr)  # AMReX: the last level keeps 2
        assert m.ref_ratio(1) == amr.IntVect(4, 4, 4)
        assert m.maxGridSize(0) == amr.IntVect(64, 64, 64) and m.maxGridSize(2) == amr.IntVect(32, 32, 32)
        assert m.blockingFactor(2) == amr.IntVect(8, 8, 8) and m.nErrorBuf(1) == amr.IntVect(2, 2, 2)
        g0, g2 = m.Geom(0), m.Geom(2)
        assert g0.domain == amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(31, 63, 15))
        assert g2.domain == amr.Box(amr.IntVect(0, 0, 0), amr.IntVect(255, 511, 127))
        assert g0.ProbLo() == [-1.0, -1.0, -1.0] and g2.ProbHi() == [1.0, 3.0, 1.0]
        assert g0.isPeriodic() == [1, 0, 1]
        for bad in (lambda: m.ref_ratio(3), lambda: m.Geom(3), lambda: m.maxGridSize(-1)):
            try:
                bad()
            except IndexError:
                pass
            else:
                raise AssertionError("no IndexError")
        pp = amr.ParmParse("amr")                 # AMReX adds the defaults it read
        assert pp.get_int("verbose") == 0 and pp.get_int("n_proper") == 1 and pp.get_bool("check_input")
        assert pp.get_real("grid_eff") == 0.8
        amr.finalize()
    """)
    assert r.returncode == 0, r.stderr


def test_amrmesh_explicit_constructor():
    r = run_python("""
        import boxfab.space2d as amr
        amr.initialize(["amrex.verbose=0"])
        rb = amr.RealBox([0.0, 0.0], [2.0, 1.0])
        m = amr.AmrMesh(rb, 1, amr.Vector_int([32, 16]), 0, amr.Vector_IntVect([amr.IntVect(2, 4)]), [1, 0])
        assert m.max_level == 1 and m.ref_ratio(0) == amr.IntVect(2, 4)
        assert m.Geom(1).domain == amr.Box(amr.IntVect(0, 0), amr.IntVect(63, 63))
        assert m.Geom(0).ProbHi() == [2.0, 1.0] and m.Geom(0).isPeriodic() == [1, 0]
        m2 = amr.AmrMesh(rb=rb, max_level_in=0, n_cell_in=[8, 8], coord=0, ref_ratios=[], is_per=[0, 0])
        assert m2.max_level == 0 and len(m2.ref_ratio()) == 1
        for args, exc in (((rb, 2, [32, 16], 0, [amr.IntVect(2, 2)], [0, 0]), ValueError),   # too few ratios
                          ((rb, 0, [32], 0, [], [0, 0]), ValueError),                          # too few cells
                          ((rb, 0, [12, 16], 0, [], [0, 0]), ValueError),                      # 12 % 8 != 0
                          ((rb, -1, [32, 16], 0, [], [0, 0]), ValueError),
                          ((rb, 1000, [32, 16], 0, [], [0, 0]), ValueError),
                          ((rb, 0, [32, 16], 0, [], [0]), ValueError),
                          ((amr.RealBox(), 0, [32, 16], 0, [], [0, 0, 0]), ValueError),
                          ((rb, 1, [32, 16], 0, [amr.IntVect3D(2, 2, 2)], [0, 0]), TypeError)):
            try:
                amr.AmrMesh(*args)
            except exc:
                pass
            else:
                raise AssertionError(f"no {exc.__name__} for {args}")
        amr.finalize()
    """)
    assert r.returncode == 0, r.stderr


def test_amrmesh_errors():
    r = run_python("""
        import boxfab.space3d as amr
        try:
            amr.AmrMesh()
        except RuntimeError as e:
            assert "initialize" in str(e)
        else:
            raise AssertionError("AmrMesh without a runtime")
        amr.initialize(["amrex.verbose=0"])
        try:
            amr.AmrMesh()
        except RuntimeError as e:
            assert "amr.max_level" in str(e)      # AMReX aborts: a required parameter
        else:
            raise AssertionError("no error")
        pp = amr.ParmParse("amr")
        pp.add("max_level", 0)
        try:
            amr.AmrMesh()
        except RuntimeError as e:
            assert "amr.n_cell" in str(e)
        else:
            raise AssertionError("no error")
        pp.addarr("n_cell", [16, 16, 16])
        amr.ParmParse("geometry").addarr("prob_hi", [1.0, 1.0, 1.0])
        pp.add("blocking_factor", 6)
        try:
            amr.AmrMesh()
        except ValueError as e:
            assert "power of 2" in str(e)
        else:
            raise AssertionError("no error")
        pp.add("check_input", False)              # AMReX's bypass
        assert amr.AmrMesh().blockingFactor(0) == amr.IntVect(6, 6, 6)
        pp.add("check_input", True)
        pp.add("blocking_factor", 8)
        pp.add("max_level", 1)
        pp.addarr("ref_ratio_vect", [2, 2, 2])
        pp.addarr("ref_ratio", [2])
        try:
            amr.AmrMesh()
        except ValueError as e:
            assert "either" in str(e)
        else:
            raise AssertionError("no error")
        pp.remove("ref_ratio")
        assert amr.AmrMesh().ref_ratio(0) == amr.IntVect(2, 2, 2)
        m = amr.AmrMesh.__new__(amr.AmrMesh)       # never initialized
        try:
            m.max_level
        except RuntimeError:
            pass
        else:
            raise AssertionError("undefined AmrMesh")
        amr.finalize()
    """)
    assert r.returncode == 0, r.stderr
