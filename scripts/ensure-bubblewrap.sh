#!/usr/bin/env bash
# Makes sure bubblewrap (/usr/bin/bwrap) is installed and works, for run_command's sandbox and its
# tests. Installs Debian's `bubblewrap` package with apt-get when it is missing; does nothing
# otherwise. Prints one line either way. A host where the probe fails (no user namespaces) can
# still run keel with KEEL_SANDBOX=off, unconfined (see docs/approvals-and-security.md, Sandbox).
set -euo pipefail
source "$(dirname "$0")/lib/ensure.sh"

executable=/usr/bin/bwrap

if [[ ! -x "${executable}" ]]; then
  apt_install ensure-bubblewrap bubblewrap
  if [[ ! -x "${executable}" ]]; then
    echo "ensure-bubblewrap: apt-get installed bubblewrap but ${executable} is missing" >&2
    exit 1
  fi
  installed=" (installed with apt-get)"
fi

if ! "${executable}" --ro-bind / / true >/dev/null 2>&1; then
  echo "ensure-bubblewrap: ${executable} is present but cannot create a sandbox here (user namespaces disabled?); set KEEL_SANDBOX=off to run unconfined" >&2
  exit 1
fi
echo "ensure-bubblewrap: ${executable} present and working${installed:-}"
# A goal that grants network needs a namespace of its own for its commands (slirp4netns).
bash "$(dirname "$0")/ensure-network-isolation.sh" || true
