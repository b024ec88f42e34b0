#!/bin/sh
# Assembles what the server image holds (Dockerfile, build stage), from a build context with
# package.json, package-lock.json, server/, shared/, the Linux install script, the agent's unit and
# the console's sources with scripts/build/console*.ts (.dockerignore leaves out the tests):
#   APP_DIR   production dependencies (npm ci --omit=dev), package.json, server/, shared/,
#             installers/linux/linux-install.sh, systemd/caudal-agent.service, and the operator
#             console built into dist/console (served at /);
#   DATA_DIR  an empty folder, which the Dockerfile copies to the DATA_DIR volume owned by `node`
#             (COPY keeps no folder's own mode; the server makes its files 0600).
# No Docker engine runs on the development machines, so scripts/container/image.test.ts runs the
# Dockerfile's steps, this script included, in a throw-away directory and starts the server there.
# Usage: build-image-root.sh CONTEXT_DIR APP_DIR DATA_DIR
set -eu

if [ "$#" -ne 3 ]; then
  echo "usage: $0 CONTEXT_DIR APP_DIR DATA_DIR" >&2
  exit 2
fi
context=$1
app=$2
data=$3

# Readable by the image's unprivileged user, writable by root only.
umask 022
mkdir -p "$app"
cp "$context/package.json" "$context/package-lock.json" "$app/"
# better-sqlite3 13 and @node-rs/argon2 ship prebuilt binaries: no install script needs to run,
# so nothing compiles and the image needs no build tools.
(cd "$app" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
cp -R "$context/server" "$context/shared" "$app/"
# What GET /api/edge/projects/{id}/linux-install fills in: the script and the agent's unit.
mkdir -p "$app/installers/linux" "$app/systemd"
cp "$context/installers/linux/linux-install.sh" "$app/installers/linux/"
cp "$context/systemd/caudal-agent.service" "$app/systemd/"

# The console is bundled by esbuild with lit, uplot and qrcode-generator, devDependencies: only
# those (and what they depend on, at the lockfile's versions) are installed, beside the build
# context, used once, and never reach APP_DIR.
tools="$(cd "$context" && pwd)/.console-tools"
packages=$(node "$context/scripts/build/console-tools.ts" "$context/package-lock.json")
mkdir -p "$tools"
# A package.json of its own: npm would otherwise install into the nearest project above (the context).
echo '{"private": true}' >"$tools/package.json"
# shellcheck disable=SC2086 # one word per package@version
(cd "$tools" && npm install --no-save --no-package-lock --ignore-scripts --no-audit --no-fund --loglevel=error $packages)
ln -s "$tools/node_modules" "$context/node_modules"
node "$context/scripts/build/console.ts" --out "$app/dist/console"

mkdir -p "$data"
