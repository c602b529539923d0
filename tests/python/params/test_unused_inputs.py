"""AMReX's record of parameters nobody read: the "Unused ParmParse Variables" report at finalize()
(amrex.verbose / amrex.parmparse.verbose > 0), ParmParse.hasUnusedInputs / getUnusedInputs.
What counts as read follows AMReX's m_count: queries, gets, countval, contains, an expression's
symbols, and every value added by a call; definitions from the command line or a file start unread."""
import textwrap

from conftest import run_python


def run(code):
    r = run_python("import boxfab.space3d as amr\n" + textwrap.dedent(code))
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_report_at_finalize_lists_what_nobody_read():
    out = run("""
        amr.initialize(["amrex.verbose=1", "amrex.throw_exception=1", "tiny_profiler.enabled=0",
                        "zeta=1", "foo.bar=1 2", "used.x=3", "used.y=4", "a=2", "b=a*3", "c=5"])
        pp = amr.ParmParse("used")
        assert pp.get_int("x") == 3 and pp.contains("y")
        assert amr.ParmParse("").get_int("b") == 6       # reads a too (the expression's symbol)
        amr.ParmParse("").add("added", 1)                  # added by a call: read
        assert amr.ParmParse.hasUnusedInputs() and amr.ParmParse.hasUnusedInputs("foo")
        assert not amr.ParmParse.hasUnusedInputs("used")
        assert amr.ParmParse.getUnusedInputs() == ["c = 5", "foo.bar = 1 2", "zeta = 1"]
        assert amr.ParmParse.getUnusedInputs(prefix="foo") == ["foo.bar = 1 2"]
        amr.finalize()
        print("END")
    """)
    expect = ("Unused ParmParse Variables:\n"
              "  [TOP]::c(nvals = 1)  :: [5]\n"
              "  [TOP]::foo.bar(nvals = 2)  :: [1, 2]\n"
              "  [TOP]::zeta(nvals = 1)  :: [1]\n"
              "\n"
              "AMReX (boxfab")
    assert expect in out, out
    assert "throw_exception" not in out and "tiny_profiler" not in out and out.rstrip().endswith("END")


def test_report_follows_the_verbosity():
    for args in (["amrex.verbose=0", "foo=1"], ["amrex.verbose=1", "amrex.parmparse.verbose=0", "foo=1"]):
        out = run(f"amr.initialize({args!r})\namr.finalize()\n")
        assert "Unused" not in out, out
    out = run('amr.initialize(["amrex.verbose=0", "amrex.parmparse.verbose=1", "foo=1"])\namr.finalize()\n')
    assert "Unused ParmParse Variables:\n  [TOP]::foo(nvals = 1)  :: [1]\n" in out, out
    # everything read: no report
    out = run('amr.initialize(["amrex.verbose=1", "foo=1"])\namr.ParmParse("").query_int("foo")\namr.finalize()\n')
    assert "Unused" not in out, out


def test_redefinition_keeps_earlier_reads():
    out = run("""
        amr.initialize(["amrex.verbose=0", "x=1"])
        assert amr.ParmParse("").get_int("x") == 1
        amr.ParmParse("").add("x", 2)
        assert not amr.ParmParse.hasUnusedInputs()
        import tempfile, os
        f = os.path.join(tempfile.mkdtemp(), "inputs")
        open(f, "w").write("y = 3\\n")
        amr.ParmParse.addfile(f)
        assert amr.ParmParse.getUnusedInputs() == ["y = 3"]
        amr.finalize()
        print("OK")
    """)
    assert "OK" in out
