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
# shellcheck source=ci/lib-venv.sh
source "$(dirname "$0")/lib-venv.sh"

ROUTER_VERSION=0.1.17
venv_init router-venv router
BIN="$VENV/bin/vllm-router"

# vllm_router.router: the Rust router, not only the Python mini load balancer.
venv_ok() { [ -x "$BIN" ] && venv_has "vllm-router==$ROUTER_VERSION" -- vllm_router.router; }

ensure_venv "vllm-router $ROUTER_VERSION" "vllm-router==$ROUTER_VERSION"
"$BIN" --help >/dev/null 2>&1 || die "$BIN --help does not run"

echo "export RLMKG_ROUTER_BIN=$BIN"
