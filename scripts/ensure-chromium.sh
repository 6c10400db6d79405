#!/usr/bin/env bash
# Makes sure Debian's Chromium is installed at /usr/bin/chromium, for the Web UI browser test
# (driven by playwright-core, which never downloads a browser here). Installs the `chromium`
# package with apt-get when it is missing; does nothing otherwise. Prints one line either way.
set -euo pipefail
source "$(dirname "$0")/lib/ensure.sh"

executable="${KEEL_CHROMIUM:-/usr/bin/chromium}"

if [[ -x "${executable}" ]]; then
  echo "ensure-chromium: ${executable} present"
  exit 0
fi

apt_install ensure-chromium chromium

if [[ -x "${executable}" ]]; then
  echo "ensure-chromium: installed chromium with apt-get at ${executable}"
else
  echo "ensure-chromium: apt-get installed chromium but ${executable} is missing (set KEEL_CHROMIUM?)" >&2
  exit 1
fi
