#!/usr/bin/env bash
# The Python package (issue 30): build the wheel of cli/python with maturin,
# install it in a virtual environment cached outside the clone, and run its
# pytest suite (cli/python/tests).
#
#   ci/python-package.sh          build, install, test; exit status is pytest's
#
# maturin builds into the same CARGO_TARGET_DIR as cargo (the dev profile), so
# after `cargo build --workspace` only the package's own crate is compiled
# again. The venv holds maturin and pytest from PyPI, pinned below, and the
# wheel; it is rebuilt when the pins change.
#
# Environment:
#   RLMKG_CI_CACHE    cache dir (default ~/.cache/rlmkg-ci); the venv is $RLMKG_CI_CACHE/python-venv
#   CARGO_TARGET_DIR  cargo's target dir (default as in .ci/run)
#   PYTHON            interpreter that creates the venv (default python3; >= 3.9)
set -euo pipefail
# shellcheck source=ci/lib-venv.sh
source "$(dirname "$0")/lib-venv.sh"
cd "$(dirname "$0")/.."

MATURIN_VERSION=1.16.0
PYTEST_VERSION=9.2.0
venv_init python-venv python-package

if [ -z "${CARGO_TARGET_DIR:-}" ]; then
  if [ -d /work ] && [ -w /work ]; then export CARGO_TARGET_DIR=/work/target; else export CARGO_TARGET_DIR="$PWD/target"; fi
fi

venv_ok() { venv_has "maturin==$MATURIN_VERSION" "pytest==$PYTEST_VERSION"; }

ensure_venv "maturin $MATURIN_VERSION, pytest $PYTEST_VERSION" \
  "maturin==$MATURIN_VERSION" "pytest==$PYTEST_VERSION"

wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
log "building the wheel (target dir $CARGO_TARGET_DIR)"
"$VPY" -m maturin build --manifest-path cli/python/Cargo.toml --locked \
  --interpreter "$VPY" --out "$wheels" >&2 \
  || die "maturin build failed"
wheel=$(ls "$wheels"/rlmkg-*.whl) || die "maturin left no wheel in $wheels"
"$VPY" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheel" >&2 \
  || die "pip install $wheel failed"

log "pytest cli/python/tests"
# From outside the package's folder, so `import rlmkg` is the installed wheel.
"$VPY" -m pytest cli/python/tests -p no:cacheprovider -v --durations=5
