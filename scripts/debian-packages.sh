#!/usr/bin/env bash
# Debian packages the tests and `npm start` use. Installs only what is missing, and only as root.
# Otherwise it says what to install: outside CI the tests that need it skip and say why; under
# CI=true this script fails, since CI must run every real-peer test (README, `npm test`).
# scripts/testing/check-peers.ts then checks that each peer really works.
set -uo pipefail

# python3-pymodbus only *recommends* python3-serial-asyncio (which brings python3-serial), and
# pymodbus.server imports pyserial even for TCP: with --no-install-recommends they are named here.
# g++ and make: node-gyp builds native addons (scripts/node-env.test.ts builds one).
# Agent distribution (DESIGN.md): qemu-user-static with arm64's libc and libstdc++ runs the aarch64
# binary, binutils-aarch64-linux-gnu strips it, wixl builds the MSI and msitools checks it,
# shellcheck checks the Linux install script, and curl and wget are the downloaders it runs with.
# systemd: systemd-analyze checks the unit files in systemd/, and systemd-notify is what both
# programs call under systemd (an image may lack it).
# postgresql-15: the second storage backend; scripts/testing/postgres.ts starts throw-away
# instances of it (DESIGN.md, Storage), run as the postgres system user the package creates.
want=(chromium python3-pymodbus python3-serial-asyncio python3-serial socat mosquitto-clients g++ make
  qemu-user-static libc6-arm64-cross libstdc++6-arm64-cross binutils-aarch64-linux-gnu wixl msitools
  shellcheck curl wget systemd postgresql-15)
missing=()
for pkg in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

ci=false
[[ "${CI:-}" == "true" || "${CI:-}" == "1" ]] && ci=true
give_up() {
  if $ci; then
    echo "debian-packages: $1; CI=true, so this fails: CI must run every real-peer test" >&2
    exit 1
  fi
  echo "debian-packages: $1; tests that need them will skip and say why" >&2
  exit 0
}

if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
  give_up "not installing ${missing[*]} (needs root and apt-get)"
fi
echo "== installing Debian packages: ${missing[*]} (apt-get, can take a minute)"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
apt-get update -qq >"$log" 2>&1 || echo "debian-packages: apt-get update failed: $(tail -n 3 "$log")" >&2
if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
  tail -n 20 "$log" >&2
  give_up "could not install ${missing[*]}"
fi
exit 0
