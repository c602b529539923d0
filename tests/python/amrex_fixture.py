"""Where the tests find the files AMReX 24.10 wrote itself (tests/fixtures/amrex-plotfiles, part of
the repository; $BOXFAB_AMREX_FIXTURES points elsewhere).  A test that needs them is decorated with
`needs_fixture`: it FAILS when a file is missing, never skips, so that a clean clone in CI runs the
byte comparisons or says loudly why not."""
import functools
import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("BOXFAB_AMREX_FIXTURES") or os.path.join(os.path.dirname(HERE), "fixtures",
                                                                  "amrex-plotfiles")
MESH = os.path.join(ROOT, "plt_mesh")

# every file of the set, so that a partial copy fails as loudly as a missing one
FILES = [
    "plt_mesh/Header", "plt_mesh/Level_0/Cell_H", "plt_mesh/Level_0/Cell_D_00000",
    "plt_mesh/particles/Header", "plt_mesh/particles/Level_0/Particle_H",
    "plt_mesh/particles/Level_0/DATA_00000",
    "plt_mesh/aos_particles/Header", "plt_mesh/aos_particles/Level_0/Particle_H",
    "plt_mesh/aos_particles/Level_0/DATA_00000",
    "plt_mesh_particles_expected.npy", "plt_mesh_aos_particles_expected.npy",
]


def missing():
    return [f for f in FILES if not os.path.isfile(os.path.join(ROOT, f))]


def require():
    """The fixture's root, or a test failure naming what is missing."""
    gone = missing()
    if gone:
        pytest.fail(f"the AMReX fixture is incomplete under {ROOT}: missing {', '.join(gone)} "
                    "(it belongs in the repository at tests/fixtures/amrex-plotfiles; "
                    "$BOXFAB_AMREX_FIXTURES overrides the location)", pytrace=False)
    return ROOT


def needs_fixture(test):
    """Decorator for a test that reads the fixture: a failure (not a skip, not a setup error) when it
    is missing.  functools.wraps keeps the test's signature and marks for pytest."""
    @functools.wraps(test)
    def run(*args, **kwargs):
        require()
        return test(*args, **kwargs)
    return run
