#!/usr/bin/env bash
# A llama.cpp server (llama-cpp-python's OpenAI-compatible server) for the tests that
# talk to a real model server (issue 7: `rlmkg ask --base-url … --model …`).
#
#   ci/llama-server.sh install              build or reuse the venv; prints its python
#   ci/llama-server.sh start [MODEL.gguf]   start a server in the background, wait until
#                                           it answers, print `export` lines for the tests
#   ci/llama-server.sh stop                 stop the server named by $LLAMA_SERVER_PID
#
# By hand:
#   eval "$(ci/llama-server.sh start)" && cargo test -p rlmkg-tests --test it -- llama_ask::; ci/llama-server.sh stop
#
# Without MODEL.gguf, `start` asks the rlmkg binary (`$RLMKG_BIN`, else `rlmkg` on PATH,
# else target/debug/rlmkg) for the installed models (`rlmkg model pull` installs one).
# Logs go to stderr; only the `export` lines go to stdout.
#
# Environment:
#   RLMKG_CI_CACHE      cache dir (default ~/.cache/rlmkg-ci); the venv is $RLMKG_CI_CACHE/llama-venv
#   PYTHON              interpreter that creates the venv (default python3)
#   CMAKE_ARGS          llama.cpp build flags (default: portable AVX2 build, no multimodal lib)
#   LLAMA_SERVER_ARGS   extra server flags (e.g. "--n_threads 2")
#   LLAMA_SERVER_WAIT   seconds to wait for the server (default 180)
set -euo pipefail

PKG_VERSION=0.3.36
PKG="llama-cpp-python[server]==$PKG_VERSION"
ALIAS=smollm2

# shellcheck source=ci/lib-venv.sh
source "$(dirname "$0")/lib-venv.sh"
venv_init llama-venv llama-server

venv_ok() {
  [ -x "$VPY" ] && "$VPY" - "$PKG_VERSION" >/dev/null 2>&1 <<'EOF'
import sys
import llama_cpp, llama_cpp.server.app, uvicorn  # noqa: F401  (loads libllama too)
sys.exit(0 if llama_cpp.__version__ == sys.argv[1] else 1)
EOF
}

# The llama.cpp build behind the package, with its own log (ensure_venv's hook).
venv_install() {
  log "building $PKG into $VENV (compiles llama.cpp; several minutes on 2 cores)"
  local start=$SECONDS
  # GGML_NATIVE=OFF: a fixed AVX2/FMA/F16C build that runs on any x86-64-v3 CPU rather
  # than only on the CPU that compiled it (the venv is cached and may move with it).
  # LLAVA_BUILD=OFF skips the multimodal library the server only loads on demand.
  if ! CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF}" \
    CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
    "$VPY" -m pip install -v "$@" >"$CACHE/llama-install.log" 2>&1; then
    tail -n 40 "$CACHE/llama-install.log" >&2 || true
    rm -rf "$VENV"
    die "pip install $PKG failed (needs a C++ compiler and PyPI access; log: $CACHE/llama-install.log)"
  fi
  log "built in $((SECONDS - start)) s"
}

install() {
  ensure_venv "llama-cpp-python $PKG_VERSION" "$PKG"
  echo "$VPY"
}

find_model() {
  local bin="${RLMKG_BIN:-}"
  if [ -z "$bin" ]; then
    if command -v rlmkg >/dev/null 2>&1; then bin=rlmkg
    elif [ -x "${CARGO_TARGET_DIR:-target}/debug/rlmkg" ]; then bin="${CARGO_TARGET_DIR:-target}/debug/rlmkg"
    else die "no rlmkg binary to find the model (set RLMKG_BIN or pass MODEL.gguf)"
    fi
  fi
  local list
  list=$("$bin" --json model list) || die "$bin model list failed"
  # The SmolLM2 model `rlmkg model pull` installs, else the first installed model.
  printf '%s' "$list" | "$VPY" -c '
import json, sys
models = json.load(sys.stdin)
pick = [m for m in models if m["name"].lower().startswith("smollm2")] or models
print(pick[0]["path"] if pick else "")
'
}

start() {
  venv_ok || die "no working venv at $VENV: run \`$0 install\` first"
  local model="${1:-}"
  [ -n "$model" ] || model=$(find_model)
  [ -n "$model" ] || die "no model installed: run \`rlmkg model pull\` (or pass MODEL.gguf)"
  [ -f "$model" ] || die "model file not found: $model"
  local port
  port=$("$VPY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  local logfile="$CACHE/llama-server-$port.log"
  log "starting on 127.0.0.1:$port with $model (log: $logfile)"
  # One thread for prompts too: the tests run beside other tests on 2 cores, where a
  # second (spinning OpenMP) thread measured 2.4x slower prompt processing.
  # shellcheck disable=SC2086  # LLAMA_SERVER_ARGS is a list of flags (later ones win)
  nohup "$VPY" -m llama_cpp.server --model "$model" --model_alias "$ALIAS" \
    --host 127.0.0.1 --port "$port" --n_ctx 8192 --n_threads 1 --n_threads_batch 1 ${LLAMA_SERVER_ARGS:-} \
    </dev/null >"$logfile" 2>&1 &
  local pid=$!
  local url="http://127.0.0.1:$port/v1"
  local wait="${LLAMA_SERVER_WAIT:-180}"
  local t0=$SECONDS
  until "$VPY" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5).read()' \
    "$url/models" >/dev/null 2>&1; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 30 "$logfile" >&2 || true
      die "the server exited before answering (log above: $logfile)"
    fi
    if [ $((SECONDS - t0)) -ge "$wait" ]; then
      kill "$pid" 2>/dev/null || true
      tail -n 30 "$logfile" >&2 || true
      die "GET $url/models did not answer within ${wait} s (log: $logfile)"
    fi
    sleep 1
  done
  log "ready after $((SECONDS - t0)) s: $url (model $ALIAS, pid $pid)"
  printf 'export RLMKG_TEST_LLAMA_URL=%q\n' "$url"
  printf 'export RLMKG_TEST_LLAMA_MODEL=%q\n' "$ALIAS"
  printf 'export RLMKG_LLAMA_PYTHON=%q\n' "$VPY"
  printf 'export LLAMA_SERVER_PID=%q\n' "$pid"
  printf 'export LLAMA_SERVER_LOG=%q\n' "$logfile"
}

stop() {
  local pid="${LLAMA_SERVER_PID:-}"
  [ -n "$pid" ] || { log "LLAMA_SERVER_PID is not set; nothing to stop"; return 0; }
  # Only a process that is our server: the pid may have been reused.
  if ps -p "$pid" -o args= 2>/dev/null | grep -q 'llama_cpp.server'; then
    kill "$pid" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
    log "stopped pid $pid"
  fi
}

case "${1:-}" in
  install) install ;;
  start) shift; start "${1:-}" ;;
  stop) stop ;;
  *) sed -n '2,22p' "$0" >&2; exit 2 ;;
esac
