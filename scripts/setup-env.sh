# Sourced by scripts/test.sh and scripts/run.sh: installs what boxfab needs on
# a fresh Debian machine (system packages with apt-get, Python packages with
# pip into the virtual environment .venv) and exports PY (its python).
BOXFAB_APT_PACKAGES=(build-essential cmake ninja-build pkg-config python3 python3-dev python3-venv)

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
  fi
  PY="$(pwd)/$venv/bin/python"
  export PY
  "$PY" -m pip install -q --upgrade pip
  "$PY" -m pip install -q "$@"
}
