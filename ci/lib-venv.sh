# Sourced by the ci scripts that keep a Python venv of pinned PyPI packages
# outside the clone (python-package.sh, serve-clients.sh, router.sh).
#
#   ensure_venv WHAT PIN...
#
# Makes sure the venv at $VENV passes the caller's `venv_ok` check: reuses it
# when it does, else creates it afresh with PYTHON (default python3) and
# installs the PINs (pip requirements, name==version) into it, and checks
# again. One script at a time holds the venv: the lock $VENV.lock is taken on
# file descriptor 9 and kept until the calling script ends. WHAT names the
# pins in the log line (e.g. "mcp 2.3.0, websocket-client 1.9.2").
#
# The caller defines VENV, VPY (the venv's python), `log`, `die` and `venv_ok`.
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
  log "installing $* into $VENV"
  rm -rf "$VENV"
  "$py" -m venv "$VENV" || die "$py -m venv failed (install the python3-venv package)"
  "$VPY" -m pip install --quiet --disable-pip-version-check "$@" >&2 \
    || die "pip install $* failed"
  venv_ok || die "the venv at $VENV fails its check after installing $*"
}
