#!/usr/bin/env bash
# The main job, from a fresh clone on a fresh machine: installs what it needs,
# builds and installs boxfab, and runs the example.
#   scripts/run.sh [nprocs]     (default 4)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-env.sh
bf_ensure_system_packages
bf_ensure_venv numpy scikit-build-core
echo "== building and installing boxfab"
"$PY" -m pip install -q .
echo "== examples/domain_summary.py"
"$PY" examples/domain_summary.py "${1:-4}"
