import importlib
import os
import subprocess
import sys
import textwrap

import pytest


@pytest.fixture(params=[1, 2, 3], ids=["1d", "2d", "3d"])
def amr(request):
    """The space module of each dimension in turn."""
    return importlib.import_module(f"boxfab.space{request.param}d")


@pytest.fixture
def amr3():
    return importlib.import_module("boxfab.space3d")


def run_python(code, timeout=60):
    """Run `code` in a fresh interpreter; return the CompletedProcess.

    For lifetime scenarios that must exit cleanly (no crash, no abort)."""
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env=env)
