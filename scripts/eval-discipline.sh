#!/usr/bin/env bash
# npm run eval:discipline [-- FLAGS]: installs or finds what it needs, then runs scripts/eval-discipline.ts.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure.sh
ensure_node_modules
ensure_temporal
bash scripts/ensure-bubblewrap.sh
exec node --import tsx scripts/eval-discipline.ts "$@"
