#!/usr/bin/env bash
# The peers of `npm run bench -- peers` (DESIGN.md, "Peers for side-by-side benchmarks"): Debian's
# influxdb (1.6) and mosquitto (2.0). Run as root: `sudo bash scripts/bench/peers/setup.sh`.
# Not part of scripts/debian-packages.sh: the tests do not need them. The bench runs each as its own
# child process with a temp config and data dir on free ports, so the packages' system services are
# kept from starting here (policy-rc.d), and stopped if an earlier install started them.
set -euo pipefail

want=(influxdb mosquitto)
missing=()
for pkg in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "bench peers: ${want[*]} already installed"
  exit 0
fi
if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
  echo "bench peers: ${missing[*]} missing; install them as root with: sudo bash scripts/bench/peers/setup.sh" >&2
  exit 1
fi

# invoke-rc.d and deb-systemd-invoke ask policy-rc.d before starting a service; 101 means "no".
policy=/usr/sbin/policy-rc.d
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  trap 'rm -f "$policy"' EXIT
fi

echo "== installing ${missing[*]} (apt-get, can take a minute)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
for bin in /usr/bin/influxd /usr/sbin/mosquitto; do
  [[ -x $bin ]] || { echo "bench peers: $bin not found after the install" >&2; exit 1; }
done
echo "bench peers: installed; their system services are not used (the bench starts its own)"
