"""Every ```python block of README.md runs on its own, in a fresh interpreter
(shell blocks are not run): a newcomer copies one block into a file and runs it."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def python_blocks():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    return re.findall(r"^```python\n(.*?)^```$", text, re.S | re.M)


BLOCKS = python_blocks()


def test_readme_has_python_blocks():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_block_runs_alone(tmp_path, code):
    if re.search(r"^import yt$", code, re.M) and os.environ.get("BOXFAB_ALLOW_NO_YT") == "1":
        pytest.importorskip("yt", reason="yt is not installed and BOXFAB_ALLOW_NO_YT=1 (the device machine)")
    env = dict(os.environ, OMP_NUM_THREADS="1")  # no oversubscription warning on stderr, whatever the machine
    if env.get("PYTHONPATH"):  # the child runs elsewhere: make the entries absolute
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep) if p)
    script = tmp_path / "snippet.py"
    script.write_text(code)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env,
                       cwd=tmp_path)
    assert r.returncode == 0, f"README block failed:\n{code}\n--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}"
    assert r.stderr == "", r.stderr
    assert r.stdout.strip(), "every README block shows a result"
