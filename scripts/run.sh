#!/usr/bin/env bash
# The main job, from a fresh clone on a fresh machine: installs what it needs,
# builds and installs boxfab into .venv (skipped when the sources have not
# changed since the last install), and runs the heat equation on a periodic
# 3D domain (examples/heat_equation.py), which writes heat_slice.png.
#   scripts/run.sh [options of examples/heat_equation.py]
# Afterwards every example and benchmark runs with .venv's python, e.g.
#   .venv/bin/python examples/domain_summary.py --help
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-env.sh
bf_ensure_system_packages
bf_ensure_venv numpy matplotlib scikit-build-core mpi4py
bf_install_boxfab
echo "== examples/heat_equation.py"
"$PY" examples/heat_equation.py --png heat_slice.png "$@"
