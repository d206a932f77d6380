#!/usr/bin/env bash
# The real SPARQL 1.1 endpoint the endpoint tests export to and query
# (issue 31): Virtuoso open source from Debian (`virtuoso-opensource`),
# installed with apt-get when its server binary is missing. The tests start
# their own server on free ports with a private database directory (they
# write its virtuoso.ini) and stop it at the end; this script only installs.
#
#   ci/virtuoso.sh              install it (or reuse it); prints `export` lines
#   eval "$(ci/virtuoso.sh)"    then `cargo test -p rlmkg-tests --test it -- endpoint_e2e::`
#
# The tests read RLMKG_VIRTUOSO_BIN (`virtuoso-t`) and RLMKG_VIRTUOSO_ISQL
# (`isql-vt`, to grant SPARQL updates), and skip with a message when they are
# absent. Logs go to stderr; only the `export` lines go to stdout.
#
# The Debian package asks for the DBA password through debconf; it is
# preseeded (the system-wide server the package sets up is not used, and the
# tests' own servers get the default `dba` password of a fresh database).
set -euo pipefail

BIN=/usr/bin/virtuoso-t
ISQL=/usr/bin/isql-vt

log() { echo "virtuoso: $*" >&2; }
die() { echo "virtuoso: error: $*" >&2; exit 1; }

if [ -x "$BIN" ] && [ -x "$ISQL" ]; then
  log "reusing $BIN"
else
  command -v apt-get >/dev/null 2>&1 || die "no apt-get: install Virtuoso open source 7 by hand and set RLMKG_VIRTUOSO_BIN"
  as_root=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "not root and no sudo to install virtuoso-opensource"
    as_root=(sudo)
  fi
  log "installing virtuoso-opensource with apt-get"
  "${as_root[@]}" debconf-set-selections <<'SEED' || die "debconf-set-selections failed"
virtuoso-opensource-7 virtuoso-opensource-7/dba-password password dba
virtuoso-opensource-7 virtuoso-opensource-7/dba-password-again password dba
SEED
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get install -y --no-install-recommends virtuoso-opensource >&2 \
    || { "${as_root[@]}" apt-get update >&2 \
         && "${as_root[@]}" apt-get install -y --no-install-recommends virtuoso-opensource >&2; } \
    || die "apt-get install virtuoso-opensource failed"
  [ -x "$BIN" ] || die "$BIN is missing after the install"
  [ -x "$ISQL" ] || die "$ISQL is missing after the install"
fi
help=$("$BIN" +help 2>&1 || true)
case "$help" in
  *Virtuoso*) ;;
  *) die "$BIN does not run" ;;
esac

echo "export RLMKG_VIRTUOSO_BIN=$BIN"
echo "export RLMKG_VIRTUOSO_ISQL=$ISQL"
