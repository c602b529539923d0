#!/usr/bin/env bash
# The whole test suite, from a fresh clone on a fresh machine: installs what
# it needs, builds, runs the C tests (plain, then under AddressSanitizer +
# UndefinedBehaviorSanitizer), installs the package into .venv (skipped when
# the sources have not changed since the last install) and runs pytest
# against it.  Warnings are errors in every build here (BOXFAB_WERROR=ON), and
# the package is also built and imported without MPI and without CUDA.  The
# folders' direction of dependence (docs/architecture.md) is checked first.
#   scripts/test.sh [pytest options]
# Builds show their progress in a few lines; the full logs are in build/*.log.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-env.sh
bf_ensure_system_packages
bf_ensure_venv numpy matplotlib pytest hypothesis mypy scikit-build-core pandas yt mpi4py

jobs=$(nproc)

# configure + build (condensed) + ctest in build folder $1 with the CMake options that follow
c_tests() {
  local dir=$1
  shift
  bf_run_logged "$dir-configure.log" cmake -S . -B "$dir" -G Ninja -DBOXFAB_BUILD_PYTHON=OFF -DBOXFAB_WERROR=ON "$@"
  bf_run_logged "$dir-build.log" cmake --build "$dir" -j "$jobs"
  local out=$dir/ctest-output.txt
  ctest --test-dir "$dir" --output-on-failure -j "$jobs" | tee "$out"
  bf_ctest_skip_reasons "$dir" "$out"
}

echo "== layers: includes against docs/architecture.md"
"$PY" scripts/check-layers.py

echo "== C tests (build/ctest)"
c_tests build/ctest -DCMAKE_BUILD_TYPE=Release
echo "== layers: the symbols of build/ctest against docs/architecture.md"
"$PY" scripts/check-layers.py --objects build/ctest

echo "== C tests under AddressSanitizer and UndefinedBehaviorSanitizer (build/sanitize)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
c_tests build/sanitize -DBOXFAB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
unset ASAN_OPTIONS UBSAN_OPTIONS

# The package built as `pip install .` builds it with a feature turned off (warnings as errors), into
# build/variant-$1/site, then imported and used there: a machine without MPI or without nvcc must
# build and run it.  $1: a name, then the CMake defines.
variant_build() {
  local name=$1 dir=build/variant-$1 defs=()
  shift
  for d in "$@"; do defs+=(-C "cmake.define.$d"); done
  echo "== package build with $* (build/variant-$name)"
  rm -rf "$dir/site"
  bf_run_logged "$dir-install.log" "$PY" -m pip install -v --no-build-isolation --no-deps --target "$dir/site" \
    -C build-dir="$dir/build" -C cmake.define.BOXFAB_WERROR=ON "${defs[@]}" .
  (cd / && PYTHONPATH="$OLDPWD/$dir/site" BOXFAB_VARIANT="$name" "$PY" "$OLDPWD/tests/variant_smoke.py")
}
echo "== package builds without MPI and without CUDA"
variant_build no-mpi BOXFAB_ENABLE_MPI=OFF
variant_build no-cuda BOXFAB_ENABLE_CUDA=OFF

echo "== Python package"
BOXFAB_INSTALL_WERROR=ON bf_install_boxfab

echo "== pytest"
# Run from tests/ so that the installed package (not the source tree) is
# imported; the tests of the installed C files (test_c_from_pip.py) must not
# skip for want of an installed package here.
# BOXFAB_REQUIRE_MPI: the MPI suite (tests/python/runtime/test_mpi.py, mpirun -n 1, 2, 4) fails
# instead of skipping when MPI, mpirun or mpi4py is missing.
cd tests && BOXFAB_REQUIRE_INSTALLED=1 BOXFAB_REQUIRE_MPI=1 "$PY" -m pytest -q -rs -p no:cacheprovider python "$@"
