#!/usr/bin/env bash
# Runs pyAMReX's own test suite against boxfab:
#   scripts/pyamrex-suite.sh PYAMREX_TESTS_DIR [pytest options] [test_x.py[::name] ...]
# PYAMREX_TESTS_DIR is the tests/ folder of a pyAMReX source tree (for
# example from `git clone https://github.com/AMReX-Codes/pyamrex`). The
# suite imports `amrex.space3d`; this script makes a small alias package
# `amrex` in a temporary folder whose space1d/2d/3d modules *are*
# boxfab.space1d/2d/3d, copies the tests beside nothing of boxfab's, and
# runs pytest there with --continue-on-collection-errors. boxfab never ships
# pyAMReX's files. Uses the interpreter of .venv (scripts/test.sh or
# scripts/run.sh make it and install boxfab) unless PY is set.
# Two suites are the contract: the October 2024 one (the tests/ of the
# fetched pyAMReX) and the newest one, assembled file by file from the search
# index as tests/pyamrex-newest.tsv lists (path, version, size, sha256):
#   scripts/pyamrex-suite.sh --check tests/pyamrex-newest.tsv DIR
# compares DIR (a tests/ folder) with that list and exits 1 on a difference.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  [ $# -lt 1 ] && exit 2 || exit 0
fi
if [ "$1" = "--check" ]; then
  [ $# -eq 3 ] || { echo "usage: $0 --check MANIFEST.tsv TESTS_DIR" >&2; exit 2; }
  exec python3 - "$2" "$3" <<'EOF'
import hashlib, os, sys
manifest, tests = sys.argv[1], sys.argv[2]
bad = 0
rows = [l.rstrip("\n").split("\t") for l in open(manifest) if l.strip() and not l.startswith(("#", "path\t"))]
for path, version, _chars, digest in rows:
    f = os.path.join(tests, os.path.relpath(path, "tests"))
    if not os.path.isfile(f):
        print(f"missing: {path} ({version})")
        bad += 1
    elif hashlib.sha256(open(f, "rb").read()).hexdigest() != digest:
        print(f"differs: {path} (expected version {version})")
        bad += 1
print(f"{len(rows) - bad} of {len(rows)} files as listed")
sys.exit(1 if bad else 0)
EOF
fi
tests=$(cd "$1" && pwd)
shift
[ -f "$tests/conftest.py" ] || { echo "error: $tests has no conftest.py (not pyAMReX's tests/ folder)" >&2; exit 2; }
PY=${PY:-$here/.venv/bin/python}
case $PY in /*) ;; */*) PY=$(pwd)/$PY ;; *) PY=$(command -v "$PY" || echo "$PY") ;; esac
[ -x "$PY" ] || { echo "error: $PY not found; run scripts/test.sh first (or set PY)" >&2; exit 2; }
"$PY" -c "import boxfab" 2>/dev/null || { echo "error: boxfab is not installed in $PY; run scripts/test.sh first" >&2; exit 2; }
"$PY" -m pip show pandas >/dev/null 2>&1 || "$PY" -m pip install -q pandas || echo "warning: pandas is not installed and could not be (no registry?): the to_df tests fail" >&2

work=$(mktemp -d "${TMPDIR:-/tmp}/pyamrex-suite.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/alias/amrex"
cat >"$work/alias/amrex/__init__.py" <<'EOF'
"""Alias package: amrex.spaceNd is boxfab.spaceNd (for running pyAMReX's tests)."""
import importlib
import sys

for _d in (1, 2, 3):
    sys.modules[f"{__name__}.space{_d}d"] = importlib.import_module(f"boxfab.space{_d}d")
EOF
for d in 1 2 3; do
  printf 'import sys\nimport boxfab.space%sd as _m\nsys.modules[__name__] = _m\n' "$d" >"$work/alias/amrex/space${d}d.py"
done
cp -r "$tests" "$work/tests"
cd "$work/tests"
# the whole suite unless test files are named
targets=(.)
for a in "$@"; do case $a in test_*|*.py|*.py::*) targets=() ;; esac; done
set +e
PYTHONPATH="$work/alias${PYTHONPATH:+:$PYTHONPATH}" "$PY" -m pytest -p no:cacheprovider -q -rfE \
  --continue-on-collection-errors "$@" "${targets[@]}" 2>&1 | tee "$work/log"
rc=${PIPESTATUS[0]}
set -e
echo "== pyAMReX suite against boxfab: $(tail -n 1 "$work/log" | sed 's/^=* *//; s/ *=*$//')"
exit "$rc"
