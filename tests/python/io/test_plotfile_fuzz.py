"""A hypothesis fuzz of the plotfile Header reader: the fixture's Header with junk inserted and cut
anywhere opens or fails with ValueError/OSError, never crashes (PlotFileData, issue 11)."""
import os

import pytest

import boxfab.space3d as amr
from test_plotfile import FIXTURE, copy_plotfile

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def runtime():
    amr.initialize(["amrex.verbose=0"])
    yield
    amr.finalize()


@pytest.mark.skipif(not os.path.isdir(FIXTURE), reason="the AMReX fixture is not on this machine")
@settings(max_examples=150, deadline=None)
@given(cut=st.integers(0, 400), junk=st.binary(max_size=20), pos=st.integers(0, 400))
def test_header_fuzz(tmp_path_factory, cut, junk, pos):
    d = tmp_path_factory.mktemp("fz")
    copy_plotfile(FIXTURE, str(d / "p"))
    h = open(os.path.join(FIXTURE, "Header"), "rb").read()
    mutated = h[:pos] + junk + h[pos:]
    mutated = mutated[:cut] if cut < len(mutated) else mutated
    (d / "p" / "Header").write_bytes(mutated)
    try:
        p = amr.PlotFileData(str(d / "p"))
    except (ValueError, OSError):
        return
    p.nComp(), p.varNames(), p.probDomain(0)
    try:
        p.get(0)
    except (ValueError, OSError, IndexError, RuntimeError):
        pass
