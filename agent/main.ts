import { readFileSync } from "node:fs";
import { agentFileConfigSchema } from "../shared/mqtt/agent-file-config.ts";
import { SystemdNotifier } from "../shared/systemd-notify.ts";
import { CaudalAgent } from "./agent.ts";
import { AgentLog } from "./agent-log.ts";
import { trustCertificate } from "./trust-certificate.ts";

// caudal-agent entry point: `npm run agent`, configured by the JSON file named in AGENT_CONFIG.
function fail(message: string): never {
  process.stderr.write(`caudal-agent: ${message}\n`);
  process.exit(1);
}

const path = process.env.AGENT_CONFIG;
if (!path) fail("AGENT_CONFIG must name the agent's JSON configuration file");
let raw: unknown;
try {
  raw = JSON.parse(readFileSync(path, "utf8"));
} catch (err) {
  fail(`cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`);
}
const parsed = agentFileConfigSchema.safeParse(raw);
if (!parsed.success) {
  const lines = parsed.error.issues.map((i) => `  ${i.path.join(".") || "(root)"}: ${i.message}`);
  fail(`invalid configuration in ${path}:\n${lines.join("\n")}`);
}

// `caudal-agent trust <file>` (`npm run agent -- trust <file>`): trust an OPC UA server certificate.
if (process.argv[2] === "trust") {
  const file = process.argv[3];
  if (!file) fail("usage: caudal-agent trust <certificate file> (e.g. one from <data_dir>/pki/rejected/)");
  try {
    const target = trustCertificate(parsed.data.data_dir, file);
    process.stdout.write(`trusted ${file}: copied to ${target}; the agent uses it at its next connection\n`);
    process.exit(0);
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
}

const log = new AgentLog();
const agent = new CaudalAgent(parsed.data, { log });
const systemd = new SystemdNotifier();

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  systemd.stopping();
  log.log("info", "agent", `stopping on ${signal}`);
  await agent.stop();
  process.exit(0);
}
// A closed terminal (SIGHUP) stops the agent like Ctrl-C: it says offline and closes its store.
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const)
  process.on(signal, () => void shutdown(signal));

try {
  await agent.start();
} catch (err) {
  fail(`start-up failed: ${err instanceof Error ? err.message : String(err)}`);
}
log.log(
  "info",
  "agent",
  `caudal-agent started for project ${parsed.data.project_id}; local API on port ${agent.localApiPort}`,
);
systemd.ready();
