import importlib
import os
import subprocess
import sys
import textwrap

import pytest

# The suite has two halves.  Most tests check the CPU backend and read
# MultiFab data through NumPy, so they keep boxfab's data in host memory even
# on a GPU machine; the tests marked `gpu` need the GPU on:
#     pytest tests/python                                  (CPU backend)
#     BOXFAB_TEST_DEVICE=gpu pytest -m gpu tests/python    (GPU machine)
# (BOXFAB_DEVICE is read once per process, so the halves run separately.)
if os.environ.get("BOXFAB_TEST_DEVICE", "cpu") != "gpu":
    os.environ["BOXFAB_DEVICE"] = "cpu"


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


# ---- GPU tests ----------------------------------------------------------------------------
# Tests marked @pytest.mark.gpu (marker declared in pyproject.toml) run only where boxfab
# uses a CUDA GPU (Config.have_gpu) and CuPy sees a device; elsewhere they are skipped.
# JAX must not grab most of the GPU's memory up front: CuPy and PyTorch share the card.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

_gpu_state = None


def gpu_usable():
    """(True, "") when the GPU tests can run, else (False, reason)."""
    global _gpu_state
    if _gpu_state is None:
        _gpu_state = _probe_gpu()
    return _gpu_state


def _probe_gpu():
    try:
        amr = importlib.import_module("boxfab.space3d")
    except Exception as e:  # pragma: no cover - the package must import
        return False, f"boxfab does not import: {e}"
    if not amr.Config.have_gpu:
        return False, "boxfab uses no GPU here (Config.have_gpu is False)"
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return False, "CuPy sees no CUDA device"
    except Exception as e:
        return False, f"CuPy cannot see a CUDA device ({type(e).__name__}: {e})"
    return True, ""


def pytest_collection_modifyitems(config, items):
    gpu_items = [it for it in items if it.get_closest_marker("gpu") is not None]
    if not gpu_items:
        return
    ok, why = gpu_usable()
    if ok:
        return
    skip = pytest.mark.skip(reason=why)
    for it in gpu_items:
        it.add_marker(skip)
