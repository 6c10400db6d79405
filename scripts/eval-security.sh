#!/usr/bin/env bash
# npm run eval:security [-- FLAGS]: installs or finds what it needs, then runs the adversarial
# security evaluation (scripts/security/run-security-eval.ts). Exits 1 on any hole.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure.sh
ensure_node_modules
bash scripts/ensure-bubblewrap.sh
# A secret in the evaluation's own start environment, which /proc/PID/environ shows and a
# process.env change cannot: the scan of what reached the model looks for it too.
KEEL_SECURITY_CANARY="keel-canary-$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
export KEEL_SECURITY_CANARY
exec node --import tsx scripts/security/run-security-eval.ts "$@"
