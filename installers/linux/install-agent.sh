#!/usr/bin/env bash
# Installs caudal-agent from this checkout as a systemd service (systemd/caudal-agent.service).
#
#   sudo installers/linux/install-agent.sh --config agent.json
#
# The config is the agent's JSON file (README.md, "The agent"): the server's project_id, the
# agent token issued by POST /api/edge/projects/{id}/agent-token, and mqtt_url. data_dir is set to
# /var/lib/caudal-agent, the one directory the service may write.
#
# Steps: copy the checkout to /opt/caudal; fetch the pinned Node (scripts/node-env.sh, sha512
# checked) and link it as /usr/local/bin/node; install production dependencies; create the
# caudal-agent system user; write /etc/caudal-agent/agent.json (root:caudal-agent, 0640: it holds
# the agent token); install and start the unit.
#
# --root DIR stages everything under DIR instead of / and skips useradd, chown and systemctl
# (for packaging and tests).
set -euo pipefail

usage() {
  echo "usage: $0 --config FILE [--root DIR] [--serial]" >&2
  echo "  --serial  add the service to the dialout group (Modbus RTU on /dev/tty*)" >&2
  exit 2
}

config="" root="" serial=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --config) config="${2:-}"; shift 2 ;;
    --root) root="${2:-}"; shift 2 ;;
    --serial) serial=1; shift ;;
    -h | --help) usage ;;
    *) echo "install-agent: unknown argument $1" >&2; usage ;;
  esac
done
[[ -n "$config" ]] || usage
[[ -r "$config" ]] || { echo "install-agent: cannot read $config" >&2; exit 1; }

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
staging=0
[[ -n "$root" ]] && staging=1
if [[ $staging -eq 0 && $(id -u) -ne 0 ]]; then
  echo "install-agent: run as root (or stage with --root DIR)" >&2
  exit 1
fi
step() { printf '== %s\n' "$*"; }

step "checking the configuration"
# The agent's own schema decides (shared/mqtt/agent-file-config.ts); data_dir is forced.
bash "$src/scripts/node-env.sh" node --input-type=module -e '
  import { readFileSync } from "node:fs";
  const { agentFileConfigSchema } = await import(process.argv[1] + "/shared/mqtt/agent-file-config.ts");
  const raw = JSON.parse(readFileSync(process.argv[2], "utf8"));
  const parsed = agentFileConfigSchema.safeParse({ ...raw, data_dir: "/var/lib/caudal-agent" });
  if (!parsed.success) {
    for (const i of parsed.error.issues) console.error(`  ${i.path.join(".") || "(root)"}: ${i.message}`);
    process.exit(1);
  }
  process.stdout.write(JSON.stringify({ ...raw, data_dir: "/var/lib/caudal-agent" }, null, 2) + "\n");
' "$src" "$config" >"${TMPDIR:-/tmp}/caudal-agent-config.$$" || {
  echo "install-agent: $config is not a valid agent configuration" >&2
  rm -f "${TMPDIR:-/tmp}/caudal-agent-config.$$"
  exit 1
}

step "copying the agent to $root/opt/caudal"
mkdir -p "$root/opt/caudal"
tar -C "$src" --exclude=./node_modules --exclude=./.tools --exclude=./data --exclude=./.git --exclude=./.env -cf - . |
  tar -C "$root/opt/caudal" -xf -

step "installing the pinned Node and production dependencies"
(cd "$root/opt/caudal" && bash scripts/node-env.sh npm ci --omit=dev --no-audit --no-fund --loglevel=error)
node_bin=""
for candidate in "$root"/opt/caudal/.tools/node-linux-*/bin/node; do
  [[ -x "$candidate" ]] && node_bin="$candidate"
done
# The machine's own node, when it already is 24.x (node-env.sh then fetched nothing).
[[ -n "$node_bin" ]] || node_bin=$(command -v node)
mkdir -p "$root/usr/local/bin"
ln -sf "${node_bin#"$root"}" "$root/usr/local/bin/node"

step "writing $root/etc/caudal-agent/agent.json"
install -d -m 0750 "$root/etc/caudal-agent"
install -m 0640 "${TMPDIR:-/tmp}/caudal-agent-config.$$" "$root/etc/caudal-agent/agent.json"
rm -f "${TMPDIR:-/tmp}/caudal-agent-config.$$"

step "installing the systemd unit"
install -d "$root/etc/systemd/system"
unit="$root/etc/systemd/system/caudal-agent.service"
install -m 0644 "$src/systemd/caudal-agent.service" "$unit"
if [[ $serial -eq 1 ]]; then
  sed -i 's/^#SupplementaryGroups=dialout$/SupplementaryGroups=dialout/' "$unit"
fi

if [[ $staging -eq 1 ]]; then
  step "staged under $root (no user, ownership or systemctl changes)"
  exit 0
fi

step "creating the caudal-agent user"
id caudal-agent >/dev/null 2>&1 ||
  useradd --system --home-dir /var/lib/caudal-agent --shell /usr/sbin/nologin caudal-agent
chown -R root:caudal-agent /etc/caudal-agent

step "starting caudal-agent"
systemctl daemon-reload
systemctl enable --now caudal-agent
systemctl --no-pager --lines=0 status caudal-agent || true
echo "caudal-agent installed. Local status: curl http://127.0.0.1:$(
  node -p 'JSON.parse(require("fs").readFileSync("/etc/caudal-agent/agent.json","utf8")).local_api_port ?? 8081'
)/status"
