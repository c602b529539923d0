#!/usr/bin/env bash
# The whole test suite, from a fresh clone on a fresh machine:
# installs what it needs, builds, runs the C tests (plain, then under
# AddressSanitizer + UndefinedBehaviorSanitizer) and pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-env.sh
bf_ensure_system_packages
bf_ensure_venv numpy matplotlib pytest hypothesis scikit-build-core

jobs=$(nproc)
echo "== C tests"
cmake -S . -B build/ctest -G Ninja -DBOXFAB_BUILD_PYTHON=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/ctest -j "$jobs"
ctest --test-dir build/ctest --output-on-failure -j "$jobs"

echo "== C tests under AddressSanitizer and UndefinedBehaviorSanitizer"
cmake -S . -B build/sanitize -G Ninja -DBOXFAB_BUILD_PYTHON=OFF -DBOXFAB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build/sanitize -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/sanitize --output-on-failure -j "$jobs"

echo "== Python package"
"$PY" -m pip install -q .
echo "== pytest"
# Run from tests/ so that the installed package (not the source tree) is imported.
cd tests && "$PY" -m pytest -q -p no:cacheprovider python "$@"
