#!/usr/bin/env bash
# npm run bench [-- FLAGS]: installs or finds what it needs, then runs scripts/bench.ts.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure.sh
ensure_node_modules
ensure_build # the worker start is measured as production runs it: compiled
ensure_temporal
bash scripts/ensure-bubblewrap.sh
bash scripts/ensure-chromium.sh
exec node --import tsx scripts/bench.ts "$@"
