#!/usr/bin/env bash
# `npm start`: the whole system on embedded defaults, in the foreground. Runs under
# scripts/node-env.sh, so node is the pinned 24.21.0. On first run scripts/start.ts writes .env
# with fresh secrets; Ctrl-C or SIGTERM stops every program it started.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh
exec node scripts/start.ts "$@"
