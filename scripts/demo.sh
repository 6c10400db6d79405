#!/usr/bin/env bash
# The whole demo on a fresh clone: installs what is missing, starts a Temporal dev server (Web UI
# on :8233, state in .keel/temporal.db), a worker, and a goal with an irreversible step.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure.sh
ensure_node_modules
ensure_build
ensure_temporal
bash scripts/ensure-bubblewrap.sh || echo "keel: continuing; the worker will say that run_command is not sandboxed"
exec node dist/demo/run-demo.js "$@"
