import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type AgentFileConfig,
  type AgentRunConfig,
  agentFileConfigSchema,
} from "../shared/mqtt/agent-file-config.ts";
import { SystemdNotifier } from "../shared/systemd-notify.ts";
import { CaudalAgent } from "./agent.ts";
import { AgentLog, type AgentLogFormat } from "./agent-log.ts";
import { setOpcUaLogSink } from "./drivers/opcua/opcua-log.ts";
import { agentCredentials } from "./enroll.ts";
import { setNativeCacheDir } from "./native/native-addon.ts";
import { trustCertificate } from "./trust-certificate.ts";
import { AGENT_COMMIT, AGENT_VERSION } from "./version.ts";

// caudal-agent entry point: `npm run agent`, or the single executable (scripts/build/), configured
// by the JSON file named in AGENT_CONFIG. No top-level await: the executable is a CommonJS bundle.
const USAGE = `usage: caudal-agent                      run, configured by the file named in AGENT_CONFIG
       caudal-agent --version            print the version and the commit it was built from
       caudal-agent --check-config FILE  validate a configuration file and exit (0 when valid)
       caudal-agent trust FILE           trust an OPC UA server certificate (AGENT_CONFIG names the agent)
`;

function fail(message: string): never {
  process.stderr.write(`caudal-agent: ${message}\n`);
  process.exit(1);
}

/** Reads and validates a configuration file: the config, or one line per problem. */
function readConfig(path: string): { config: AgentFileConfig } | { problems: string[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    return { problems: [`cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`] };
  }
  const parsed = agentFileConfigSchema.safeParse(raw);
  if (parsed.success) return { config: parsed.data };
  return { problems: parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`) };
}

function configFromEnvironment(): AgentFileConfig {
  const path = process.env.AGENT_CONFIG;
  if (!path) fail(`AGENT_CONFIG must name the agent's JSON configuration file\n${USAGE}`);
  const result = readConfig(path);
  if ("problems" in result) fail(`invalid configuration in ${path}:\n  ${result.problems.join("\n  ")}`);
  return result.config;
}

function checkConfig(path: string | undefined): never {
  if (!path) fail(`--check-config needs a file\n${USAGE}`);
  const result = readConfig(path);
  if ("problems" in result) fail(`${path} is not a valid configuration:\n  ${result.problems.join("\n  ")}`);
  const c = result.config;
  process.stdout.write(`${path}: valid (project ${c.project_id}, data dir ${c.data_dir})\n`);
  process.exit(0);
}

function trust(file: string | undefined): never {
  if (!file) fail("usage: caudal-agent trust <certificate file> (e.g. one from <data_dir>/pki/rejected/)");
  const config = configFromEnvironment();
  try {
    const target = trustCertificate(config.data_dir, file);
    process.stdout.write(`trusted ${file}: copied to ${target}; the agent uses it at its next connection\n`);
    process.exit(0);
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
}

/** LOG_FORMAT: `json` (the default; journald) or `text`, as `npm start` shows it beside the server's. */
function logFormat(): AgentLogFormat {
  const value = process.env.LOG_FORMAT || "json";
  if (value !== "json" && value !== "text")
    fail(`LOG_FORMAT must be json or text, not ${JSON.stringify(value)}`);
  return value;
}

async function run(file: AgentFileConfig): Promise<void> {
  setNativeCacheDir(join(file.data_dir, "native"));
  const log = new AgentLog({ format: logFormat() });
  setOpcUaLogSink((level, message) => log.log(level, "opcua", message));
  const systemd = new SystemdNotifier();
  const enrolling = new AbortController();
  let agent: CaudalAgent | undefined;

  let stopping = false;
  async function shutdown(signal: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    systemd.stopping();
    log.log("info", "agent", `stopping on ${signal}`);
    enrolling.abort();
    await agent?.stop();
    process.exit(0);
  }
  // A closed terminal (SIGHUP) stops the agent like Ctrl-C: it says offline and closes its store.
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const)
    process.on(signal, () => void shutdown(signal));

  let config: AgentRunConfig;
  try {
    config = await agentCredentials(file, {
      log,
      signal: enrolling.signal,
      // A start that waits for the WAN must not be killed by systemd's start timeout.
      onWait: (ms) => systemd.extendStartTimeout(ms + 30_000),
    });
  } catch (err) {
    // Stopped while enrolling: shutdown() exits.
    if (stopping) await new Promise(() => {});
    fail(err instanceof Error ? err.message : String(err));
  }
  agent = new CaudalAgent(config, { log });
  try {
    await agent.start();
  } catch (err) {
    fail(`start-up failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  log.log(
    "info",
    "agent",
    `caudal-agent started for project ${config.project_id} (version ${AGENT_VERSION}, commit ${AGENT_COMMIT}); local API on port ${agent.localApiPort}`,
  );
  systemd.ready();
}

const [command, arg] = process.argv.slice(2);
switch (command) {
  case undefined:
    void run(configFromEnvironment());
    break;
  case "--version":
  case "-v":
    process.stdout.write(
      `caudal-agent ${AGENT_VERSION} (commit ${AGENT_COMMIT}, node ${process.versions.node})\n`,
    );
    break;
  case "--check-config":
    checkConfig(arg);
    break;
  case "trust":
    trust(arg);
    break;
  case "--help":
  case "-h":
    process.stdout.write(USAGE);
    break;
  default:
    fail(`unknown argument ${command}\n${USAGE}`);
}
