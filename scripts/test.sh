#!/usr/bin/env bash
# `npm test`: install dependencies, then lint, type check and every test. Runs under
# scripts/node-env.sh, so node is the pinned 24.21.0.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh
bash scripts/debian-packages.sh
echo "== peer programs the tests drive"
node scripts/testing/check-peers.ts

echo "== lint (biome)"
npx biome ci .
echo "== type check (tsc)"
npx tsc --noEmit -p .
# The operator console runs in browsers: its own program, with the DOM's types.
npx tsc --noEmit -p console
echo "== tests (vitest)"
npx vitest run "$@"
if [ $# -eq 0 ]; then
  # Test servers serve every request on the main thread (HTTP_WORKERS=0) unless asked: run the
  # ingest, WebSocket and broker tests again with an HTTP worker thread in front.
  echo "== tests again with HTTP_WORKERS=1 (telemetry routes, WebSocket, broker)"
  HTTP_WORKERS=1 npx vitest run server/routes/telemetry server/routes/ws server/ws server/broker
  # Every test that starts a server, again with the server on PostgreSQL (issue 14): one
  # throw-away PostgreSQL 15 for the run; one that cannot start fails it (vitest.config.ts).
  echo "== tests again on PostgreSQL (CAUDAL_TEST_DATABASE=postgres)"
  CAUDAL_TEST_DATABASE=postgres npx vitest run
fi
