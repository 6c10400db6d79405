#!/usr/bin/env bash
# Makes sure PostgreSQL's server binaries (initdb, pg_ctl) are installed, for the PostgreSQL
# reflection store tests, which start their own throwaway server. Installs Debian's `postgresql`
# package when they are missing; does nothing otherwise. Prints one line either way.
set -euo pipefail
source "$(dirname "$0")/lib/ensure.sh"

found_binaries() {
  if [[ -n "${KEEL_PG_BIN:-}" && -x "${KEEL_PG_BIN}/initdb" ]]; then
    echo "${KEEL_PG_BIN}"
    return 0
  fi
  local initdb
  for initdb in /usr/lib/postgresql/*/bin/initdb; do
    if [[ -x "${initdb}" ]]; then
      dirname "${initdb}"
      return 0
    fi
  done
  return 1
}

if directory="$(found_binaries)"; then
  echo "ensure-postgres: PostgreSQL binaries present in ${directory}"
  exit 0
fi

apt_install ensure-postgres postgresql

if directory="$(found_binaries)"; then
  echo "ensure-postgres: installed PostgreSQL with apt-get; binaries in ${directory}"
else
  echo "ensure-postgres: apt-get installed postgresql but no initdb under /usr/lib/postgresql/*/bin" >&2
  exit 1
fi
