#!/usr/bin/env bash
# GPU tests, on a machine with a CUDA GPU (the device machine), from the repo
# root: configure and build the C library and tests with CUDA (Release) into
# build/gpu, run ctest (test_cuda_backend compares every MultiFab operation on
# the GPU with the CPU backend), then test_cuda_backend under
# compute-sanitizer's memcheck (and test_particles_gpu), the benchmark table (build/gpu/bench_gpu, to
# $OUT/bench_gpu.txt, with build/gpu/bench_dram_rows: the device's floor for
# fill_boundary), then installs the Python package
# (pip install --no-build-isolation --no-deps .), appends the Python table
# (benchmarks/gpu_bench.py: MultiFab ops vs memcpy and CuPy, fill_boundary,
# per-box to_cupy overhead; benchmarks/heat_gpu.py: the heat step over the
# stacked view of all boxes) to the same bench_gpu.txt ($OUT brings back at
# most 8 files and the steps already write 8), and runs `pytest -m gpu`
# and the full pytest suite from tests/.  Every step runs even when an
# earlier one failed (except those that need the build); the last line says
# PASSED or FAILED and names every failed step.  Logs go to $OUT when it is
# set (else build/gpu/logs).  Exit status: non-zero when any step fails.
set -uo pipefail
cd "$(dirname "$0")/.."
LOGS=${OUT:-build/gpu/logs}
mkdir -p "$LOGS"
export PATH="$PATH:/usr/local/cuda/bin"
# the device machine has no yt and reaches no registry: the yt checks are skipped there, saying so
# (elsewhere a missing yt fails them: scripts/test.sh installs it)
export BOXFAB_ALLOW_NO_YT=1
status=0
failed=()
PY=${PYTHON:-python3}

step() { # name, command...: run, log to $LOGS/name.log, remember a failure
  local name=$1
  shift
  echo "== $name"
  "$@" 2>&1 | tee "$LOGS/$name.log"
  local rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || { echo "!! $name failed ($rc)"; status=1; failed+=("$name"); }
  return "$rc"
}
fail() { echo "!! $1"; status=1; failed+=("$2"); }
finish() {
  echo "== gpu-test: $([ $status -eq 0 ] && echo PASSED || echo "FAILED (${failed[*]})") (logs in $LOGS)"
  exit $status
}

nvidia-smi -L || true # (stdout only: $OUT brings back at most 8 files, one per step below)

step configure cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBOXFAB_BUILD_PYTHON=OFF \
  -DBOXFAB_WERROR=ON -DBOXFAB_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" || finish
grep -q '#define BOXFAB_HAVE_CUDA 1' build/gpu/generated/boxfab_config.h || { fail "CUDA was not enabled" cuda; finish; }
step build cmake --build build/gpu -j "$(nproc)" || finish

# test_cuda_backend exits 77 (ctest: skipped) without a GPU; here that is a failure
step ctest ctest --test-dir build/gpu --output-on-failure -j 4
if grep -q 'test_cuda_backend .*Skipped\|Not Run' "$LOGS/ctest.log"; then
  fail "test_cuda_backend was skipped: no GPU seen" gpu-seen
fi

SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ -x "$SAN" ]; then
  step memcheck bash -c '"$0" --tool memcheck --leak-check full --error-exitcode 3 build/gpu/test_cuda_backend &&
    "$0" --tool memcheck --error-exitcode 3 build/gpu/test_particles_gpu' "$SAN"
else
  fail "compute-sanitizer not found: memcheck not run" memcheck
fi

# the benchmark table (issue 4, item 8): checks fail the step, target misses are in the table
echo "== bench_gpu"
build/gpu/bench_gpu 2>&1 | tee "$LOGS/bench_gpu.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "bench_gpu failed (a check or a call)" bench_gpu
grep -q 'MISS' "$LOGS/bench_gpu.txt" && echo "(bench_gpu: some targets missed, see bench_gpu.txt)"
# the device's floor for fill_boundary (DRAM rate of row ends), appended to the same file
build/gpu/bench_dram_rows 2>&1 | tee -a "$LOGS/bench_gpu.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "bench_dram_rows failed" bench_dram_rows
# fill_boundary's ratio (bench_gpu) beside the floor (bench_dram_rows), per box size, in that order
fb_summary=$(awk '/^  fill_boundary +[0-9]/ {r[++nr] = $5} /fill_boundary floor, [0-9]+\^3 boxes/ {
       split($3, b, "^"); f[++nf] = $(NF - 8); sub("x", "", f[nf]); bx[nf] = b[1] }
     END { for (i = 1; i <= nf && i <= nr; ++i)
             printf("fill_boundary %s^3 boxes: %.2fx its bytes at memcpy, floor %.2fx, %.2f of the floor (target <= 1.25)\n",
                    bx[i], r[i], f[i], r[i] / f[i]) }' "$LOGS/bench_gpu.txt")
echo "$fb_summary" | tee -a "$LOGS/bench_gpu.txt"

# the Python package, installed as users get it, then the GPU tests and the full suite
if step pip_install "$PY" -m pip install --no-build-isolation --no-deps .; then
  # the Python table, appended to bench_gpu.txt; run from the repo root: `import boxfab` is the
  # installed package (sys.path[0] is benchmarks/); checks fail the step, misses are in the table
  echo "== gpu_bench_py" | tee -a "$LOGS/bench_gpu.txt"
  PYTHONUNBUFFERED=1 "$PY" benchmarks/gpu_bench.py 2>&1 | tee -a "$LOGS/bench_gpu.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || fail "gpu_bench.py failed (a check or a call)" gpu_bench_py
  # it exits 0 when the installed boxfab uses no GPU or CuPy sees none: here that is a failure
  grep -q '^gpu_bench.py: skipped' "$LOGS/bench_gpu.txt" && fail "gpu_bench.py skipped: no GPU seen" gpu_bench_py
  grep -q '^gpu_bench.py: checks .* [1-9][0-9]* missed' "$LOGS/bench_gpu.txt" &&
    echo "(gpu_bench.py: some targets missed, see bench_gpu.txt)"
  # particles on the device (issue 10's targets) and deposition against cupyx.scatter_add, same file
  echo "== gpu_particles" | tee -a "$LOGS/bench_gpu.txt"
  PYTHONUNBUFFERED=1 "$PY" benchmarks/gpu_particles.py 2>&1 | tee -a "$LOGS/bench_gpu.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || fail "gpu_particles.py failed (a check or a call)" gpu_particles
  echo "== bench_deposit --gpu" | tee -a "$LOGS/bench_gpu.txt"
  PYTHONUNBUFFERED=1 "$PY" benchmarks/bench_deposit.py --gpu --ncell 256 --max-size 64 --particles 1e7 \
    --shapes cic tsc 2>&1 | tee -a "$LOGS/bench_gpu.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || fail "bench_deposit.py --gpu failed" bench_deposit
  # one array over a whole MultiFab (issue 14): the heat step as one kernel over the stacked view of
  # every box, box by box, and on one plain 512^3 array with cupy.roll, same file
  echo "== heat_gpu" | tee -a "$LOGS/bench_gpu.txt"
  PYTHONUNBUFFERED=1 "$PY" benchmarks/heat_gpu.py 2>&1 | tee -a "$LOGS/bench_gpu.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || fail "heat_gpu.py failed (a check or a call)" heat_gpu
  grep -q '^heat step, .* GPU (CuPy' "$LOGS/bench_gpu.txt" || fail "heat_gpu.py did not run on the GPU" heat_gpu
  # fill_boundary with and without the x-line kernel for the x faces (issue 14), same file
  echo "== fb_xline_ab" | tee -a "$LOGS/bench_gpu.txt"
  PYTHONUNBUFFERED=1 "$PY" benchmarks/fb_xline_ab.py 2>&1 | tee -a "$LOGS/bench_gpu.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || fail "fb_xline_ab.py failed" fb_xline_ab
  grep -q 'wrong ghost cells: [1-9]' "$LOGS/bench_gpu.txt" && fail "fb_xline_ab.py: wrong ghost cells" fb_xline_ab
  # from tests/: the installed boxfab, not the source tree (exit 5, no test collected, fails too)
  step pytest_gpu bash -c 'cd tests && BOXFAB_TEST_DEVICE=gpu exec "$0" -m pytest -m gpu -rs -q -p no:cacheprovider python' "$PY"
  if [ -z "${GPU_TEST_SKIP_FULL:-}" ]; then # (GPU_TEST_SKIP_FULL=1: the GPU tests only, for short device calls)
    step pytest_all bash -c 'cd tests && exec "$0" -m pytest -q -p no:cacheprovider python' "$PY"
  fi
else
  fail "pip install failed: gpu_bench.py and pytest not run" pytest
fi

finish
