#!/usr/bin/env bash
# Makes sure slirp4netns and ip (iproute2) are installed: run_command gives a command a goal
# grants network a network namespace of its own through them, one that cannot reach this host's
# loopback (Temporal's frontend, the Web UI, a model endpoint). Installs the Debian packages with
# apt-get when missing. Prints one line either way; without them the worker still runs, and a
# goal that grants network gets a NetworkIsolationUnavailable failure, never the host's network.
set -euo pipefail
source "$(dirname "$0")/lib/ensure.sh"

installed=""
for pair in slirp4netns:slirp4netns ip:iproute2; do
  program="${pair%%:*}" package="${pair##*:}"
  if ! PATH="${PATH}:/usr/sbin:/sbin" command -v "${program}" >/dev/null 2>&1; then
    if ! apt_install ensure-network-isolation "${package}"; then
      echo "ensure-network-isolation: ${package} could not be installed; goals that grant network will fail their commands (NetworkIsolationUnavailable)" >&2
      exit 1
    fi
    installed=" (installed with apt-get)"
  fi
done
echo "ensure-network-isolation: slirp4netns and ip present${installed}"
