#!/usr/bin/env bash
# The real model router the multi-server tests put in front of scripted
# OpenAI-compatible servers (issue 31): `vllm-router` from PyPI (the vLLM
# project's Rust router, a fork of SGLang's model gateway; it needs no GPU and
# fronts any server that answers `GET /health` and `POST /v1/chat/completions`),
# installed in a venv cached outside the clone.
#
#   ci/router.sh              install it (or reuse it); prints `export` lines
#   eval "$(ci/router.sh)"    then `cargo test -p rlm-core --test it -- pool_http::`
#
# The tests read RLMKG_ROUTER_BIN (the venv's `vllm-router` launcher) and skip
# with a message when it is absent. Logs go to stderr; only the `export` line
# goes to stdout.
#
# Environment:
#   RLMKG_CI_CACHE   cache dir (default ~/.cache/rlmkg-ci); the venv is $RLMKG_CI_CACHE/router-venv
#   PYTHON           interpreter that creates the venv (default python3)
set -euo pipefail

ROUTER_VERSION=0.1.17
CACHE="${RLMKG_CI_CACHE:-$HOME/.cache/rlmkg-ci}"
VENV="$CACHE/router-venv"
VPY="$VENV/bin/python"
BIN="$VENV/bin/vllm-router"

log() { echo "router: $*" >&2; }
die() { echo "router: error: $*" >&2; exit 1; }

venv_ok() {
  [ -x "$VPY" ] && [ -x "$BIN" ] && "$VPY" - "$ROUTER_VERSION" >/dev/null 2>&1 <<'PY'
import sys
from importlib.metadata import version
import vllm_router.router  # noqa: F401  (the Rust router, not only the Python mini load balancer)
sys.exit(0 if version("vllm-router") == sys.argv[1] else 1)
PY
}

mkdir -p "$CACHE"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$CACHE/router-venv.lock"
  flock 9
fi
if venv_ok; then
  log "reusing $VENV (vllm-router $ROUTER_VERSION)"
else
  py="${PYTHON:-python3}"
  command -v "$py" >/dev/null 2>&1 || die "no $py to create the venv (set PYTHON)"
  log "installing vllm-router==$ROUTER_VERSION into $VENV"
  rm -rf "$VENV"
  "$py" -m venv "$VENV" || die "$py -m venv failed (install the python3-venv package)"
  "$VPY" -m pip install --quiet --disable-pip-version-check "vllm-router==$ROUTER_VERSION" >&2 \
    || die "pip install vllm-router failed"
  venv_ok || die "the venv at $VENV does not import vllm_router.router"
fi
"$BIN" --help >/dev/null 2>&1 || die "$BIN --help does not run"

echo "export RLMKG_ROUTER_BIN=$BIN"
