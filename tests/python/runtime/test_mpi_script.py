"""A pyAMReX script using mpi4py (tests/mpi/mpi_pyamrex_script.py: global
indexing, reductions, operations) gives the same answers at 1, 2 and 4 ranks:
its digest of everything it saw is identical (issue 12's "done when").  Its
sums of inexact data are the same bits from run to run at a given number of
ranks, and within 1e-13 relative across rank counts."""
import pathlib
import re

import pytest

from test_mpi import mpirun

PROGRAM = "mpi_pyamrex_script.py"


def _digest(nranks):
    r = mpirun(PROGRAM, nranks)
    report = f"--- stdout\n{r.stdout[-4000:]}\n--- stderr\n{r.stderr[-4000:]}"
    assert r.returncode == 0, f"{PROGRAM} on {nranks} ranks failed (exit {r.returncode})\n{report}"
    m = re.search(r"^DIGEST ([0-9a-f]{64})$", r.stdout, re.M)
    x = re.search(r"^INEXACT (.*)$", r.stdout, re.M)
    assert m and x, report
    return m.group(1), [float(v) for v in x.group(1).split()], r.stdout


@pytest.mark.mpi
def test_same_digest_on_1_2_4_ranks():
    d1, x1, out1 = _digest(1)
    for n in (2, 4):
        dn, xn, outn = _digest(n)
        assert dn == d1, f"digest on {n} ranks differs from 1 rank\n--- 1 rank\n{out1}\n--- {n} ranks\n{outn}"
        for a, b in zip(xn, x1):
            assert abs(a - b) <= 1e-13 * abs(b), (n, xn, x1)
        if n == 4:  # run to run: the same bits
            assert _digest(4)[1] == xn


EXAMPLE = pathlib.Path(__file__).resolve().parents[3] / "examples" / "heat_equation.py"


@pytest.mark.mpi
def test_heat_example_same_answers_on_1_2_4_ranks(tmp_path):
    """The README's example under mpirun: the same progress lines, conservation and decay on 1, 2
    and 4 ranks, printed once (rank 0), its plotfile and tracers written and checked."""
    lines = {}
    for n in (1, 2, 4):
        plt = tmp_path / f"plt{n}"
        r = mpirun(str(EXAMPLE), n, args=("--n", "32", "--max-grid", "8", "--steps", "20", "--print-every", "10",
                                          "--png", "", "--plotfile", str(plt), "--tracers", "200"))
        report = f"--- stdout\n{r.stdout[-4000:]}\n--- stderr\n{r.stderr[-4000:]}"
        assert r.returncode == 0, f"heat_equation.py on {n} ranks failed\n{report}"
        assert r.stdout.count("checks: passed") == 1, report          # one rank prints
        assert (plt / "Header").is_file() and (plt / "tracers" / "Header").is_file(), report
        # the progress lines and the measured amplitude (10 digits); the relative differences printed
        # after them are round-off of sums added in a different order on each rank count
        lines[n] = [ln for ln in r.stdout.splitlines() if ln.startswith("step")]
        lines[n] += re.findall(r"^mode amplitude at t = \S+: measured \S+", r.stdout, re.M)
        assert len(lines[n]) == 3, report
    assert lines[2] == lines[1] and lines[4] == lines[1], lines


@pytest.mark.mpi
def test_heat_example_stacked_refused_on_every_rank(tmp_path):
    """--path stacked where the boxes differ in shape on some ranks only (24^3 cut at 16: eight boxes of
    eight shapes; on 5 ranks those with one box could stack theirs): every rank raises ValueError and the
    run ends, instead of the ranks that could stack waiting in fill_boundary for those that raised."""
    r = mpirun(str(EXAMPLE), 5, timeout=90, args=("--n", "24", "--max-grid", "16", "--steps", "2", "--png", "",
                                                   "--plotfile", "", "--path", "stacked"))
    report = f"--- stdout\n{r.stdout[-4000:]}\n--- stderr\n{r.stderr[-4000:]}"
    assert r.returncode != 0, report
    assert r.stderr.count("ValueError") >= 5, report  # one traceback per rank
    assert "needs boxes of one shape" in r.stderr and "the boxes of another rank differ in shape" in r.stderr, report
    # the same layout with --path auto runs box by box on the CPU, on every rank alike
    r = mpirun(str(EXAMPLE), 5, timeout=90, args=("--n", "24", "--max-grid", "16", "--steps", "2", "--png", "",
                                                   "--plotfile", ""))
    assert r.returncode == 0 and r.stdout.count("checks: passed") == 1, r.stdout + r.stderr
