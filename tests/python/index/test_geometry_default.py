"""The default geometry that Geometry() copies, by AMReX's rules:

* AMReX.cpp: each runtime instance owns one (AMReX::AMReX() : m_geom(new Geometry())), made
  when the instance starts (a copy of the enclosing instance's default when initialize is
  nested, since Geometry() copies DefaultGeometry() of the current top) and dropped by finalize.
* AMReX_Geometry.cpp: Geometry() copies it while a runtime exists; Geometry::define calls
  Setup, which fills it once (coord, prob_domain, periodicity, ok = true; domain and dx stay)
  so the first geometry defined becomes the default; define's coord -1 takes the default's;
  ResetDefaultProbDomain / ResetDefaultPeriodicity / ResetDefaultCoord change it; only Setup
  reads ParmParse (geometry.coord_sys when define's coord is -1).

Each scenario runs in a fresh interpreter, since the runtime is process-wide."""
import textwrap

from conftest import run_python


def run_ok(code):
    # no initialization lines (AMReX's default amrex.verbose is 1): stdout is checked
    r = run_python("import boxfab.space3d\nboxfab.space3d.Config.verbose = 0\n" + textwrap.dedent(code))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok", r.stdout


def test_first_define_becomes_the_default():
    run_ok("""
        import boxfab.space3d as amr
        box = amr.Box([0, 0, 0], [7, 7, 7])
        amr.initialize(["geometry.prob_lo=-1 -2 -3", "geometry.prob_hi=1 2 3", "geometry.coord_sys=1",
                        "geometry.is_periodic=1 0 1"])
        g = amr.Geometry()       # AMReX: undefined (c_sys undef, ok false); ParmParse is not read here
        assert g.Coord() is amr.CoordSys.undef and not g.ok() and not g.prob_domain.ok(), g
        assert g.isPeriodic() == [0, 0, 0]
        first = amr.Geometry(box, amr.RealBox([0, 0, 0], [1, 2, 4]), amr.CoordSys.RZ, [1, 0, 1])
        d = amr.Geometry()       # a copy of the default that Setup filled
        assert d.ok() and d.IsRZ() and d.ProbLo() == [0.0, 0.0, 0.0] and d.ProbHi() == [1.0, 2.0, 4.0]
        assert d.isPeriodic() == [1, 0, 1]
        assert d.domain.small_end == amr.IntVect(1, 1, 1) and d.domain.big_end == amr.IntVect(0, 0, 0)
        assert d.data().dx == [0.0, 0.0, 0.0] and d.data().coord == 1
        amr.Geometry(box, amr.RealBox([5, 5, 5], [6, 6, 6]), 2, [0, 0, 0])   # later defines leave it
        assert amr.Geometry().IsRZ() and amr.Geometry().ProbHi() == [1.0, 2.0, 4.0]
        # coord -1 in define: the default's coord
        g = amr.Geometry(box, amr.RealBox([5, 5, 5], [6, 6, 6]), -1, [0, 0, 0])
        assert g.IsRZ() and g.data().coord == 1 and g.ok()
        g.define(box, amr.RealBox([5, 5, 5], [6, 6, 6]), amr.CoordSys.undef, [0, 0, 0])
        assert g.IsRZ()
        # one default per dimension
        import boxfab.space2d as amr2
        assert amr2.Geometry().Coord() is amr2.CoordSys.undef and not amr2.Geometry().ok()
        amr.finalize()
        # a new runtime starts undefined again
        amr.initialize([])
        assert amr.Geometry().Coord() is amr.CoordSys.undef and not amr.Geometry().ok()
        amr.finalize()
        # without a runtime: undefined, and define records nothing
        amr.Geometry(box, amr.RealBox([0, 0, 0], [1, 1, 1]), 1, [0, 0, 0])
        assert amr.Geometry().Coord() is amr.CoordSys.undef
        print("ok")
    """)


def test_coord_minus_one_reads_parmparse_coord_sys():
    # Setup: coord outside 0..2 -> ParmParse geometry.coord_sys, default 0
    run_ok("""
        import boxfab.space1d as amr
        box, rb = amr.Box([0], [3]), amr.RealBox([0.0], [1.0])
        amr.initialize(["geometry.coord_sys=2"])
        assert amr.Geometry(box, rb, -1, [0]).IsSPHERICAL()
        amr.finalize()
        amr.initialize([])
        assert amr.Geometry(box, rb, -1, [0]).IsCartesian()
        amr.finalize()
        amr.initialize(["geometry.coord_sys=2"])
        assert amr.Geometry(box, rb, 1, [0]).IsRZ()   # coord given: coord_sys not read
        assert amr.Geometry(box, rb, -1, [0]).IsRZ()  # the default is now RZ
        amr.finalize()
        amr.initialize(["geometry.coord_sys=5"])     # AMReX would store the bad enum value
        try:
            amr.Geometry(box, rb, -1, [0])
        except ValueError as e:
            assert "coord_sys" in str(e)
        else:
            raise AssertionError("no error")
        assert not amr.Geometry().ok()               # nothing was set
        amr.finalize()
        print("ok")
    """)


def test_resets_before_and_after_the_first_define():
    # pyAMReX tests/test_geometry.py::test_Resets, then what a define does to it
    run_ok("""
        import boxfab.space3d as amr
        amr.initialize([])
        rb = amr.RealBox(0, 0, 0, 1, 2, 6)
        amr.Geometry.ResetDefaultProbDomain(rb)
        amr.Geometry.ResetDefaultPeriodicity([1, 0, 1])
        amr.Geometry.ResetDefaultCoord(1)
        gm = amr.Geometry()
        assert [gm.ProbLength(d) for d in range(3)] == [1.0, 2.0, 6.0]
        assert gm.isPeriodic() == [1, 0, 1] and gm.Coord() == amr.CoordSys.CoordType.RZ
        assert not gm.ok()            # Reset* leave ok as it is
        # the default is not ok yet, so the first define's Setup overwrites the resets
        amr.Geometry(amr.Box([0, 0, 0], [3, 3, 3]), amr.RealBox([0, 0, 0], [3, 3, 3]), 0, [0, 0, 0])
        gm = amr.Geometry()
        assert gm.ok() and gm.IsCartesian() and gm.ProbHi() == [3.0, 3.0, 3.0] and gm.isPeriodic() == [0, 0, 0]
        # after it, resets change the default for good
        amr.Geometry().ResetDefaultCoord(coord=2)   # also callable on an instance
        amr.Geometry.ResetDefaultPeriodicity(is_per=[0, 1, 0])
        gm = amr.Geometry()
        assert gm.IsSPHERICAL() and gm.isPeriodic() == [0, 1, 0] and gm.ok()
        amr.Geometry.ResetDefaultCoord(amr.CoordSys.undef)
        assert amr.Geometry().Coord() is amr.CoordSys.undef
        amr.finalize()
        print("ok")
    """)


def test_nested_runtimes():
    run_ok("""
        import boxfab.space2d as amr
        outer = amr.initialize([])
        amr.Geometry.ResetDefaultCoord(1)
        inner = amr.initialize([])
        assert amr.Geometry().IsRZ()          # the inner instance started from a copy
        amr.Geometry.ResetDefaultCoord(2)
        assert amr.Geometry().IsSPHERICAL()
        amr.finalize()
        assert amr.Geometry().IsRZ()          # the outer one is unchanged
        inner = amr.initialize([])
        amr.finalize(outer)                   # the outer goes first: the inner keeps its copy
        assert amr.Geometry().IsRZ()
        amr.finalize()
        assert amr.Geometry().Coord() is amr.CoordSys.undef
        print("ok")
    """)


def test_bad_defaults_are_refused():
    run_ok("""
        import math
        import boxfab.space2d as amr, boxfab.space3d as amr3
        amr.initialize([])
        bad = [(lambda: amr.Geometry.ResetDefaultCoord(9), ValueError),
               (lambda: amr.Geometry.ResetDefaultCoord(-2), ValueError),
               (lambda: amr.Geometry.ResetDefaultCoord(1.0), TypeError),
               (lambda: amr.Geometry.ResetDefaultPeriodicity([1]), ValueError),
               (lambda: amr.Geometry.ResetDefaultPeriodicity([1, 0, 1]), ValueError),
               (lambda: amr.Geometry.ResetDefaultPeriodicity(["a", 0]), TypeError),
               (lambda: amr.Geometry.ResetDefaultPeriodicity(1), TypeError),
               (lambda: amr.Geometry.ResetDefaultProbDomain(amr3.RealBox()), TypeError),
               (lambda: amr.Geometry.ResetDefaultProbDomain([0.0, 1.0]), TypeError),
               (lambda: amr.Geometry.ResetDefaultProbDomain(amr.RealBox([0, 0], [1, math.nan])), ValueError),
               (lambda: amr.Geometry.ResetDefaultProbDomain(amr.RealBox([0, -math.inf], [1, 1])), ValueError),
               (lambda: amr.Geometry.ResetDefaultProbDomain(amr.RealBox([0, 0], [1, math.inf])), ValueError),
               (lambda: amr.Geometry.ResetDefaultProbDomain(amr.RealBox([0, 1], [1, 1])), ValueError),
               (lambda: amr.Geometry.ResetDefaultProbDomain(amr.RealBox([2, 0], [1, 1])), ValueError)]
        for f, exc in bad:
            try:
                f()
            except exc:
                pass
            else:
                raise AssertionError("no error")
        g = amr.Geometry()
        assert g.Coord() is amr.CoordSys.undef and g.isPeriodic() == [0, 0] and not g.prob_domain.ok()
        # a define that fails does not set the default
        try:
            amr.Geometry(amr.Box([0, 0], [3, 3]), amr.RealBox([0, 0], [1, math.nan]), 1, [1, 1])
        except ValueError:
            pass
        else:
            raise AssertionError("no error")
        assert not amr.Geometry().ok() and amr.Geometry().Coord() is amr.CoordSys.undef
        amr.finalize()
        print("ok")
    """)
