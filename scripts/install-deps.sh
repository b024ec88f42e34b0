#!/usr/bin/env bash
# `npm ci` when node_modules does not match the lockfile and the running Node.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/progress.sh
stamp="$(node -p 'process.version + " " + process.arch')-$(sha256sum package-lock.json | cut -c1-16)"
if [[ "$(cat node_modules/.caudal-install 2>/dev/null)" != "$stamp" ]]; then
  echo "== installing dependencies (npm ci, node $(node --version); about a minute on a first run)"
  started=$SECONDS
  with_progress "npm ci" npm ci --no-audit --no-fund --no-progress
  echo "$stamp" > node_modules/.caudal-install
  echo "== dependencies installed in $((SECONDS - started)) s"
fi
