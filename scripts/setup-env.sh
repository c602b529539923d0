# Sourced by scripts/test.sh and scripts/run.sh: installs what boxfab needs on
# a fresh Debian machine (system packages with apt-get, Python packages with
# pip into the virtual environment .venv), exports PY (its python), and
# builds and installs boxfab into it (bf_install_boxfab: skipped when the
# sources have not changed since the last install).
# MPI (Open MPI: the library, its headers and mpirun) for the distributed engine.
BOXFAB_APT_PACKAGES=(build-essential cmake ninja-build pkg-config python3 python3-dev python3-venv libopenmpi-dev openmpi-bin)

# What goes into the installed package: a change to any of these (tracked, or
# new and not ignored by git) rebuilds it.
BOXFAB_SOURCE_PATHS=(CMakeLists.txt pyproject.toml README.md cmake include src python)
# Environment variables that change what the build makes.
BOXFAB_BUILD_ENV=(CMAKE_ARGS CMAKE_BUILD_TYPE CMAKE_GENERATOR CMAKE_CUDA_ARCHITECTURES CUDAARCHS CUDACXX
  SKBUILD_CMAKE_ARGS SKBUILD_CMAKE_DEFINE SKBUILD_CMAKE_BUILD_TYPE CC CFLAGS CPPFLAGS LDFLAGS CUDAFLAGS)

bf_ensure_system_packages() {
  local missing=() p
  for p in "${BOXFAB_APT_PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "== installing Debian packages: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

bf_ensure_venv() {
  local venv=${BOXFAB_VENV:-.venv}
  if [ ! -x "$venv/bin/python" ]; then
    echo "== creating the virtual environment $venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip
  fi
  PY="$(pwd)/$venv/bin/python"
  export PY
  # packages already installed are not looked up again (no -U)
  "$PY" -m pip install -q "$@"
}

# The hash of the build's inputs: the files under BOXFAB_SOURCE_PATHS (their
# names and contents; from git when this is a checkout, so that ignored build
# outputs do not count), the build environment and the interpreter $PY. Run
# from the repository root.
bf_source_hash() {
  local list
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    list=$(git ls-files --cached --others --exclude-standard -- "${BOXFAB_SOURCE_PATHS[@]}" | LC_ALL=C sort -u)
  else
    list=$(find "${BOXFAB_SOURCE_PATHS[@]}" -type f ! -name '*.pyc' ! -name '*.so' 2>/dev/null | LC_ALL=C sort -u)
  fi
  {
    local f v present=()
    while IFS= read -r f; do
      [ -n "$f" ] || continue
      if [ -f "$f" ]; then present+=("$f"); else printf 'deleted %s\n' "$f"; fi
    done <<<"$list"
    ((${#present[@]} == 0)) || sha256sum -- "${present[@]}"
    for v in "${BOXFAB_BUILD_ENV[@]}"; do printf 'env %s=%s\n' "$v" "${!v-}"; done
    printf 'python %s\n' "${PY:-}"
    printf 'werror %s\n' "${BOXFAB_INSTALL_WERROR:-OFF}"
  } | sha256sum | cut -c1-64
}

# What is installed in $PY now: the package's folder, its version and a hash
# of its compiled files (empty when boxfab does not import). Run outside the
# tree, so that only the installed package can be imported.
bf_installed_fingerprint() {
  (cd / && "$PY" - 2>/dev/null <<'EOF'
import glob, hashlib, os
import boxfab._core
pkg = os.path.dirname(os.path.abspath(boxfab.__file__))
h = hashlib.sha256()
for f in sorted(glob.glob(os.path.join(pkg, "*.so"))):
    with open(f, "rb") as fh:
        h.update(os.path.basename(f).encode() + b"\0" + hashlib.sha256(fh.read()).digest())
print(pkg, boxfab.__version__, h.hexdigest())
EOF
  ) || true
}

# The stamp of the last install, in the virtual environment:
# "<source hash> <installed fingerprint>".
bf_stamp_file() { echo "$(dirname "$(dirname "$PY")")/.boxfab-install-stamp"; }

# 0 when the installed boxfab was built from the sources as they are now.
bf_install_is_current() {
  local stamp installed
  stamp=$(bf_stamp_file)
  [ -f "$stamp" ] || return 1
  installed=$(bf_installed_fingerprint)
  [ -n "$installed" ] || return 1
  [ "$(cat "$stamp")" = "$(bf_source_hash) $installed" ]
}

# Shows a build's progress in a few lines: build steps (ninja's [n/N]) as
# one line rewritten in place on a terminal, else at 25/50/75/100 %; the
# build phases of scikit-build-core (***) and boxfab's configuration summary;
# any warning or error. Everything goes to the log file $1 as well.
bf_condense_build() {
  local log=$1 tty=0
  [ -t 1 ] && tty=1
  tee -a "$log" | awk -v tty="$tty" '
    function endline() { if (open) { printf "\n"; open = 0 } }
    /^ *\[[0-9]+\/[0-9]+\] / {
      match($0, /\[[0-9]+\/[0-9]+\]/)
      split(substr($0, RSTART + 1, RLENGTH - 2), nm, "/")
      n = nm[1] + 0; m = nm[2] + 0
      if (m == 0) next
      step = $0; sub(/^ *\[[0-9]+\/[0-9]+\] */, "", step)
      if (tty) {
        printf "\r\033[K  [%d/%d] %s", n, m, substr(step, 1, 100); open = 1; fflush()
      } else if (int(4 * n / m) > shown || n == m) {
        shown = int(4 * n / m)
        printf "  [%d/%d] %3d%%  %s\n", n, m, int(100 * n / m), substr(step, 1, 90); fflush()
      }
      if (n == m) { endline(); shown = 0 }
      next
    }
    /\*\*\* / { endline(); s = $0; sub(/^ */, "", s); print "  " s; fflush(); next }
    /-- boxfab .* configuration:/ { endline(); conf = 1; s = $0; sub(/^ *-- */, "", s); print "  " s; next }
    conf && /^ *--   / { s = $0; sub(/^ *-- */, "", s); print "    " s; next }
    { conf = 0 }
    /[Ww]arning:|[Ee]rror:|CMake Error|FAILED:|ninja: build stopped/ { endline(); print; fflush() }
    END { endline() }
  '
}

# Runs a command with its output condensed by bf_condense_build into the log
# file $1 (started afresh); when it fails, prints the end of the log and
# returns its exit status.
bf_run_logged() {
  local log=$1 rc
  shift
  mkdir -p "$(dirname "$log")"
  : >"$log"
  set +e
  "$@" 2>&1 | bf_condense_build "$log"
  rc=${PIPESTATUS[0]}
  set -e
  if [ "$rc" -ne 0 ]; then
    echo "== failed (exit $rc): $*"
    echo "== the end of $log:"
    tail -n 60 "$log"
  fi
  return "$rc"
}

# Builds and installs boxfab into $PY's environment with pip, showing the
# build's progress; skipped when bf_install_is_current. The CMake build folder
# persists, so a rebuild recompiles only what changed.
# BOXFAB_FORCE_INSTALL=1 installs anyway.
# BOXFAB_INSTALL_WERROR=ON (scripts/test.sh, for CI and developers) builds with
# warnings as errors, in build/pip-werror; else (scripts/run.sh) as a user's
# `pip install .` builds, warnings being warnings, in build/pip.
bf_install_boxfab() {
  if [ "${BOXFAB_FORCE_INSTALL:-0}" != 1 ] && bf_install_is_current; then
    echo "== boxfab is installed and up to date (no source changed since the last install; BOXFAB_FORCE_INSTALL=1 reinstalls)"
    return 0
  fi
  local stamp log hash t0 installed
  stamp=$(bf_stamp_file)
  rm -f "$stamp"
  hash=$(bf_source_hash) # before the build: a change made during it rebuilds next time
  local werror=${BOXFAB_INSTALL_WERROR:-OFF} dir=build/pip
  [ "$werror" = ON ] && dir=build/pip-werror
  log=$dir-install.log
  echo "== building and installing boxfab (pip install .$([ "$werror" = ON ] && echo ", warnings as errors"); full log: $log)"
  t0=$SECONDS
  bf_run_logged "$log" "$PY" -m pip install -v --no-build-isolation -C build-dir="$dir" \
    -C cmake.define.BOXFAB_WERROR="$werror" .
  installed=$(bf_installed_fingerprint)
  if [ -z "$installed" ]; then
    echo "== pip installed boxfab but it does not import; see $log"
    return 1
  fi
  echo "$hash $installed" >"$stamp"
  echo "== boxfab installed in $((SECONDS - t0)) s"
}

# ctest shows a skipped test only by name: print its reason from ctest's log
# ($1: the build folder, $2: the saved output of ctest)
# (boxfab's C tests print "skipped: <reason>" before they exit 77; else the
# last line the test printed).
bf_ctest_skip_reasons() {
  local dir=$1 out=$2 names
  names=$(sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (Skipped)$/\1/p' "$out" | tr '\n' ' ')
  [ -n "$names" ] || return 0
  awk -v names=" $names" '
    function report() {
      if (name == "" || !index(names, " " name " ")) return
      print "   " name " (Skipped): " (why != "" ? why : last)
    }
    /^[0-9]+\/[0-9]+ Test: / { name = $3; why = ""; last = ""; next }
    /^Output:$/ { out = 1; getline; next }
    /^<end of output>$/ { out = 0; report(); next }
    out && NF { last = $0; if (why == "" && sub(/^skipped: */, "")) why = $0 }
  ' "$dir/Testing/Temporary/LastTest.log"
}
