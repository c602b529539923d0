#!/usr/bin/env bash
# Developer build: configure and build into build/dev with the C tests, and
# link the extension into python/boxfab so that `PYTHONPATH=python pytest`
# runs against the tree.  Needs a Python with numpy (the one on PATH, or $PYTHON).
# Warnings are errors here (BOXFAB_WERROR=ON; CMAKE_ARGS=-DBOXFAB_WERROR=OFF overrides it).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
BUILD=${BUILD_DIR:-build/dev}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} -DBOXFAB_WERROR=ON \
  -DPython_EXECUTABLE="$(command -v "$PY")" ${CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD"
so=$(ls "$BUILD"/_core*.so)
ln -sf "$(realpath "$so")" python/boxfab/
echo "built $so"
