#!/usr/bin/env bash
# GPU tests, on a machine with a CUDA GPU (the device machine), from the repo
# root: configure and build the C library and tests with CUDA (Release) into
# build/gpu, run ctest (test_cuda_backend compares every MultiFab operation on
# the GPU with the CPU backend), then test_cuda_backend under
# compute-sanitizer's memcheck.  Logs go to $OUT when it is set (else
# build/gpu/logs).  Exit status: non-zero when any step fails.
set -uo pipefail
cd "$(dirname "$0")/.."
LOGS=${OUT:-build/gpu/logs}
mkdir -p "$LOGS"
export PATH="$PATH:/usr/local/cuda/bin"
status=0

step() { # name, command...: run, log to $LOGS/name.log, remember a failure
  local name=$1
  shift
  echo "== $name"
  "$@" 2>&1 | tee "$LOGS/$name.log"
  local rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || { echo "!! $name failed ($rc)"; status=1; }
  return "$rc"
}

nvidia-smi -L 2>&1 | tee "$LOGS/gpus.log" || true

step configure cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBOXFAB_BUILD_PYTHON=OFF \
  -DBOXFAB_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" || exit 1
grep -q '#define BOXFAB_HAVE_CUDA 1' build/gpu/generated/boxfab_config.h || { echo "!! CUDA was not enabled"; exit 1; }
step build cmake --build build/gpu -j "$(nproc)" || exit 1

# test_cuda_backend exits 77 (ctest: skipped) without a GPU; here that is a failure
step ctest ctest --test-dir build/gpu --output-on-failure -j 4
if grep -q 'test_cuda_backend .*Skipped\|Not Run' "$LOGS/ctest.log"; then
  echo "!! test_cuda_backend was skipped: no GPU seen"
  status=1
fi

SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ -x "$SAN" ]; then
  step memcheck "$SAN" --tool memcheck --leak-check full --error-exitcode 3 build/gpu/test_cuda_backend
else
  echo "!! compute-sanitizer not found: memcheck not run"
  status=1
fi

echo "== gpu-test: $([ $status -eq 0 ] && echo PASSED || echo FAILED) (logs in $LOGS)"
exit $status
