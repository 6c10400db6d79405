#!/usr/bin/env bash
# Makes sure PostgreSQL's server binaries (initdb, pg_ctl) are installed, for the PostgreSQL
# reflection store tests, which start their own throwaway server. Installs Debian's `postgresql`
# package when they are missing; does nothing otherwise. Prints one line either way.
set -euo pipefail

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

sudo_prefix=()
if [[ "$(id -u)" -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo_prefix=(sudo)
  else
    echo "ensure-postgres: PostgreSQL binaries missing and not root: run \`apt-get install postgresql\` as root" >&2
    exit 1
  fi
fi

log="$(mktemp)"
trap 'rm -f "${log}"' EXIT
export DEBIAN_FRONTEND=noninteractive
if ! { ${sudo_prefix[@]+"${sudo_prefix[@]}"} apt-get update -q && ${sudo_prefix[@]+"${sudo_prefix[@]}"} apt-get install -y -q --no-install-recommends postgresql; } >"${log}" 2>&1; then
  cat "${log}" >&2
  echo "ensure-postgres: \`apt-get install postgresql\` failed (output above)" >&2
  exit 1
fi

if directory="$(found_binaries)"; then
  echo "ensure-postgres: installed PostgreSQL with apt-get; binaries in ${directory}"
else
  echo "ensure-postgres: apt-get installed postgresql but no initdb under /usr/lib/postgresql/*/bin" >&2
  exit 1
fi
