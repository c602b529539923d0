"""scripts/pyamrex-suite.sh --check: a tests/ folder against a manifest of paths, versions and sha256."""
import hashlib
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SCRIPT = os.path.join(ROOT, "scripts", "pyamrex-suite.sh")


def run(*args):
    return subprocess.run(["bash", SCRIPT, *args], capture_output=True, text=True, timeout=60)


def test_check_reports_missing_and_changed_files(tmp_path):
    tests = tmp_path / "tests"
    (tests / "sub").mkdir(parents=True)
    files = {"test_a.py": b"def test_a():\n    pass\n", "sub/data": b"\x00\x01binary"}
    rows = ["# a comment", "path\tversion\tchars\tsha256"]
    for name, data in files.items():
        (tests / name).write_bytes(data)
        rows.append(f"tests/{name}\tabc{len(name)}\t{len(data)}\t{hashlib.sha256(data).hexdigest()}")
    manifest = tmp_path / "m.tsv"
    manifest.write_text("\n".join(rows) + "\n")
    r = run("--check", str(manifest), str(tests))
    assert r.returncode == 0 and "2 of 2 files as listed" in r.stdout, r.stdout + r.stderr
    (tests / "test_a.py").write_bytes(b"changed\n")
    os.remove(tests / "sub" / "data")
    r = run("--check", str(manifest), str(tests))
    assert r.returncode == 1
    assert "differs: tests/test_a.py (expected version abc9)" in r.stdout and "missing: tests/sub/data" in r.stdout
    assert run("--check", str(manifest)).returncode == 2


def test_the_newest_manifest_is_well_formed():
    path = os.path.join(ROOT, "tests", "pyamrex-newest.tsv")
    rows = [l.rstrip("\n").split("\t") for l in open(path) if l.strip() and not l.startswith(("#", "path\t"))]
    assert len(rows) > 40 and len({r[0] for r in rows}) == len(rows)
    for p, version, chars, digest in rows:
        assert p.startswith("tests/") and version and int(chars) > 0 and len(digest) == 64
