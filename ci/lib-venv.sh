# Sourced by the ci scripts that keep a Python venv of pinned PyPI packages
# outside the clone (python-package.sh, serve-clients.sh, router.sh,
# llama-server.sh).
#
#   venv_init NAME PREFIX
#
# Sets CACHE (RLMKG_CI_CACHE, default ~/.cache/rlmkg-ci), VENV ($CACHE/NAME)
# and VPY (the venv's python); `log` and `die` then write "PREFIX: …" to
# stderr, and `die` exits 1.
venv_init() {
  CACHE="${RLMKG_CI_CACHE:-$HOME/.cache/rlmkg-ci}"
  VENV="$CACHE/$1"
  VPY="$VENV/bin/python"
  VENV_LOG_PREFIX=$2
}
log() { echo "$VENV_LOG_PREFIX: $*" >&2; }
die() { echo "$VENV_LOG_PREFIX: error: $*" >&2; exit 1; }

#   venv_has PIN... [-- MODULE...]
#
# Whether $VPY runs, has each PIN (name==version) at exactly that version and
# imports each MODULE.
venv_has() {
  [ -x "$VPY" ] || return 1
  "$VPY" - "$@" >/dev/null 2>&1 <<'PY'
import importlib
import sys
from importlib.metadata import version

args = sys.argv[1:]
cut = args.index("--") if "--" in args else len(args)
for module in args[cut + 1:]:
    importlib.import_module(module)
pins = [pin.split("==") for pin in args[:cut]]
sys.exit(0 if all(version(name) == want for name, want in pins) else 1)
PY
}

#   ensure_venv WHAT PIN...
#
# Makes sure the venv at $VENV passes the caller's `venv_ok` check: reuses it
# when it does, else creates it afresh with PYTHON (default python3) and
# installs the PINs (pip requirements, name==version) into it, and checks
# again. One script at a time holds the venv: the lock $VENV.lock is taken on
# file descriptor 9 and kept until the calling script ends. WHAT names the
# pins in the log line (e.g. "mcp 2.3.0, websocket-client 1.9.2").
#
# The caller runs venv_init first and defines `venv_ok` (with venv_has). A
# caller whose packages need more than `pip install PIN...` (a compiled
# build, its own log) defines `venv_install`, which is then called with the
# PINs into the fresh venv instead, and exits on failure.
ensure_venv() {
  local what=$1
  shift
  mkdir -p "$(dirname "$VENV")"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$VENV.lock"
    flock 9
  fi
  if venv_ok; then
    log "reusing $VENV ($what)"
    return 0
  fi
  local py="${PYTHON:-python3}"
  command -v "$py" >/dev/null 2>&1 || die "no $py to create the venv (set PYTHON)"
  rm -rf "$VENV"
  "$py" -m venv "$VENV" || die "$py -m venv failed (install the python3-venv package)"
  if declare -F venv_install >/dev/null; then
    venv_install "$@"
  else
    log "installing $* into $VENV"
    "$VPY" -m pip install --quiet --disable-pip-version-check "$@" >&2 \
      || die "pip install $* failed"
  fi
  venv_ok || { rm -rf "$VENV"; die "the venv at $VENV fails its check after installing $*"; }
}
