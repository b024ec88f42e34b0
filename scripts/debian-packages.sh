#!/usr/bin/env bash
# Debian packages the tests and `npm start` use. Installs only what is missing, and only
# as root; otherwise says what to install and the tests that need it skip with a reason.
set -uo pipefail

want=(chromium python3-pymodbus socat mosquitto-clients)
missing=()
for pkg in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
  echo "debian-packages: not installing ${missing[*]} (needs root and apt-get); tests that need them will skip" >&2
  exit 0
fi
echo "== installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null 2>&1 || echo "debian-packages: apt-get update failed" >&2
if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
  echo "debian-packages: could not install ${missing[*]}; tests that need them will skip" >&2
fi
exit 0
