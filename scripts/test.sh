#!/usr/bin/env bash
# The whole test suite on a fresh clone: installs what is missing, then type check, lint, format
# check, unit tests and integration tests on a real Temporal dev server.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure.sh
ensure_node_modules
ensure_build
ensure_temporal
bash scripts/ensure-postgres.sh
bash scripts/ensure-chromium.sh
bash scripts/ensure-bubblewrap.sh
echo "keel: type check, lint, format check"
npm run -s check
echo "keel: mutation testing of the deciding modules changed since reports/stryker-incremental.json"
npm run -s test:mutation
exec node --import tsx scripts/run-tests.ts "$@"
