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
