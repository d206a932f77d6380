#!/usr/bin/env bash
# The real clients the serve tests drive (issue 29): the official Python MCP SDK
# (`mcp` from PyPI) in a venv cached outside the clone, and Debian's Chromium for
# the web page test, driven over the DevTools protocol with `websocket-client`
# (PyPI) from the same venv.
#
#   ci/serve-clients.sh            install them (or reuse them); prints `export` lines
#   eval "$(ci/serve-clients.sh)"  then `cargo test -p rlmkg-tests --test it -- serve::`
#
# The tests read RLMKG_SERVE_PYTHON (the venv's python) and RLMKG_CHROMIUM (the
# browser); without them they look in the default places, and skip with a message
# when nothing is there. Logs go to stderr; only the `export` lines go to stdout.
#
# Environment:
#   RLMKG_CI_CACHE   cache dir (default ~/.cache/rlmkg-ci); the venv is $RLMKG_CI_CACHE/serve-venv
#   PYTHON           interpreter that creates the venv (default python3)
set -euo pipefail
# shellcheck source=ci/lib-venv.sh
source "$(dirname "$0")/lib-venv.sh"

MCP_VERSION=2.3.0
WS_VERSION=1.9.2
venv_init serve-venv serve-clients

venv_ok() {
  venv_has "mcp==$MCP_VERSION" "websocket-client==$WS_VERSION" \
    -- mcp mcp.client.stdio mcp.client.streamable_http websocket
}

ensure_venv "mcp $MCP_VERSION, websocket-client $WS_VERSION" \
  "mcp==$MCP_VERSION" "websocket-client==$WS_VERSION"

CHROMIUM="${RLMKG_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing Debian's chromium"
    apt-get update -qq >&2 || die "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2 || die "apt-get install chromium failed"
  else
    die "no Chromium at $CHROMIUM and no root apt-get to install it (apt-get install chromium)"
  fi
fi
"$CHROMIUM" --version >&2 || die "$CHROMIUM does not run"

echo "export RLMKG_SERVE_PYTHON=$VPY"
echo "export RLMKG_CHROMIUM=$CHROMIUM"
