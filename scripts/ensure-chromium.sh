#!/usr/bin/env bash
# Makes sure Debian's Chromium is installed at /usr/bin/chromium, for the Web UI browser test
# (driven by playwright-core, which never downloads a browser here). Installs the `chromium`
# package with apt-get when it is missing; does nothing otherwise. Prints one line either way.
set -euo pipefail

executable="${KEEL_CHROMIUM:-/usr/bin/chromium}"

if [[ -x "${executable}" ]]; then
  echo "ensure-chromium: ${executable} present"
  exit 0
fi

sudo_prefix=()
if [[ "$(id -u)" -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo_prefix=(sudo)
  else
    echo "ensure-chromium: ${executable} missing and not root: run \`apt-get install chromium\` as root" >&2
    exit 1
  fi
fi

log="$(mktemp)"
trap 'rm -f "${log}"' EXIT
export DEBIAN_FRONTEND=noninteractive
if ! { ${sudo_prefix[@]+"${sudo_prefix[@]}"} apt-get update -q && ${sudo_prefix[@]+"${sudo_prefix[@]}"} apt-get install -y -q --no-install-recommends chromium; } >"${log}" 2>&1; then
  cat "${log}" >&2
  echo "ensure-chromium: \`apt-get install chromium\` failed (output above)" >&2
  exit 1
fi

if [[ -x "${executable}" ]]; then
  echo "ensure-chromium: installed chromium with apt-get at ${executable}"
else
  echo "ensure-chromium: apt-get installed chromium but ${executable} is missing (set KEEL_CHROMIUM?)" >&2
  exit 1
fi
