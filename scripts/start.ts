import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { stop as stopEsbuild } from "esbuild";
import { loadServerConfig, type ServerConfig } from "../server/config.ts";
import { withServerNodeOptions } from "../server/node-options.ts";
import { buildConsole } from "./build/console-bundle.ts";
import { provisionDemo } from "./demo/provision.ts";
import { banner, probeBaseUrl, publicBaseUrl } from "./start/banner.ts";
import { demoBanner } from "./start/demo-banner.ts";
import { mergeEnv, readEnvFile, writeEnvFile } from "./start/env-file.ts";
import { caudalAnswers, firstTakenPort, type PortNeed, portTakenLine } from "./start/port-check.ts";
import { requiresSetup, waitForHealth, waitForPort, waitForTelemetry } from "./start/readiness.ts";
import { loadStartConfig, type StartConfig } from "./start/start-config.ts";
import { Supervisor } from "./start/supervisor.ts";

// `npm start` (after scripts/start.sh installed dependencies): the whole system in the foreground.
// The server first; once it answers, the demo is provisioned over its REST API, then the PLC
// simulator and the agent join. Each program is a child of one supervisor.
const root = fileURLToPath(new URL("..", import.meta.url));
const envPath = process.env.CAUDAL_ENV_FILE ?? resolve(root, ".env");
const say = (line: string) => process.stdout.write(`${line}\n`);
// Once the terminal is closed (SIGHUP) writes to it fail with EIO: that must not crash this
// process, whose exit would kill the programs before they have stopped in order.
process.stdout.on("error", () => {});
process.stderr.on("error", () => {});

// Nothing is written before the configuration is valid and every port is free: a second
// `npm start`, or one beside another program on a port, must leave everything as it was.
const envFile = readEnvFile(envPath);
const env = mergeEnv(envFile.values, process.env);

let config: ServerConfig;
let start: StartConfig;
try {
  config = loadServerConfig(env);
  start = loadStartConfig(env);
} catch (err) {
  // ConfigError (server variables) or the Error of loadStartConfig: both list every bad variable.
  if (!(err instanceof Error)) throw err;
  process.stderr.write(`npm start: ${err.message}\n(fix ${envPath} or the shell environment)\n`);
  process.exit(1);
}

const portNeeds: PortNeed[] = [
  { variable: "PORT", host: config.HOST, port: config.PORT },
  { variable: "MQTT_PORT", host: config.HOST, port: config.MQTT_PORT },
  ...(start.CAUDAL_DEMO
    ? [
        { variable: "SIM_PORT", host: "127.0.0.1", port: start.SIM_PORT },
        { variable: "OPCUA_SIM_PORT", host: "127.0.0.1", port: start.OPCUA_SIM_PORT },
        { variable: "AGENT_LOCAL_API_PORT", host: "127.0.0.1", port: start.AGENT_LOCAL_API_PORT },
      ]
    : []),
];
const taken = await firstTakenPort(portNeeds);
if (taken) {
  const caudal = taken.variable === "PORT" && (await caudalAnswers(probeBaseUrl(config)));
  process.stderr.write(`${portTakenLine(taken, caudal, publicBaseUrl(config), portNeeds)}\n`);
  process.exit(1);
}

if (envFile.pending !== undefined) {
  if (writeEnvFile(envPath, envFile.pending).created)
    say(`== wrote ${envPath} with fresh secrets (mode 0600)`);
}
for (const warning of envFile.warnings) say(`== warning: ${warning}`);

// The operator console from this checkout's sources, into CONSOLE_DIR (a few hundred ms; the same
// sources give the same files). Without it the server still runs and says so at `/`.
try {
  const started = Date.now();
  const { brotliBytes } = await buildConsole(resolve(root, config.CONSOLE_DIR));
  const kib = Object.values(brotliBytes).reduce((a, b) => a + b, 0) / 1024;
  say(`== console built in ${Date.now() - started} ms (${kib.toFixed(0)} KiB compressed)`);
} catch (err) {
  say(
    `== warning: the console could not be built (${err instanceof Error ? err.message : String(err)}); / answers 503`,
  );
} finally {
  // esbuild keeps a service process for later builds: none come, and it must not outlive us.
  await stopEsbuild();
}

/**
 * The agent and the simulator need none of the server's secrets. Their lines are plain text, as
 * the server's (below), unless .env or the shell sets LOG_FORMAT.
 */
const { TOTP_SECRET_ENCRYPTION_KEY: _totp, JWT_SECRET: _jwt, ...secretless } = env;
const childEnv = { LOG_FORMAT: "text", ...secretless };

// The console is for people: the server tells alarms, deployments and agents coming and going in
// short lines, and its per-request lines go to a file. Either can be set otherwise in .env.
const requestLogFile = resolve(root, config.DATA_DIR, "logs", "requests.log");
const serverEnv = { LOG_FORMAT: "text", REQUEST_LOG_FILE: requestLogFile, ...env };

const supervisor = new Supervisor(say);
const abort = new AbortController();
supervisor.start(program("server", "server/main.ts", withServerNodeOptions(serverEnv)));

// The programs run in their own process groups (supervisor.ts): a closed terminal (SIGHUP) must
// stop them too, and so must this process ending any other way.
process.on("exit", () => supervisor.killAll());
// Under `npm start` one Ctrl-C arrives twice: from the terminal, and forwarded by npm a few ms
// later. Only a signal sent again after SIGNAL_ECHO_MS (a second Ctrl-C) kills at once.
const SIGNAL_ECHO_MS = 1000;
let firstSignalAt: number | undefined;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    const now = Date.now();
    if (firstSignalAt !== undefined && now - firstSignalAt < SIGNAL_ECHO_MS) return;
    firstSignalAt ??= now;
    say(supervisor.stopping ? "== stopping now (killing)" : `== ${signal}: stopping`);
    abort.abort();
    supervisor.stop(signal);
  });
}

let failed = false;
void bringUp().catch((err: unknown) => {
  if (supervisor.stopping) return;
  failed = true;
  say(`== npm start failed: ${err instanceof Error ? err.message : String(err)}`);
  supervisor.stop("SIGTERM");
});
const code = await supervisor.wait();
// Every program has ended: whatever bringUp() still waits for (a health probe, an API call) is moot.
abort.abort();
process.exit(code === 0 && failed ? 1 : code);

async function bringUp(): Promise<void> {
  const probe = probeBaseUrl(config);
  const base = publicBaseUrl(config);
  if (!(await waitForHealth(probe, 60_000, abort.signal))) {
    if (!supervisor.stopping) throw new Error(`the server did not answer ${probe}/health within 60 s`);
    return;
  }
  // The first thing a person needs, before the demo's set-up lines; the banner repeats it.
  say(`== the operator console is at ${base}/`);
  if (!start.CAUDAL_DEMO) {
    say(banner(base, await requiresSetup(probe), envPath, requestLogFile));
    return;
  }

  // A wildcard bind is reached on IPv4 loopback; MQTT_PORT=0 leaves only MQTT over WebSocket.
  const host = new URL(probe).hostname;
  const mqttUrl =
    config.MQTT_PORT === 0 ? `${probe.replace(/^http/, "ws")}/mqtt` : `mqtt://${host}:${config.MQTT_PORT}`;
  const result = await provisionDemo({
    baseUrl: probe,
    dataDir: resolve(root, config.DATA_DIR),
    mqttUrl,
    sim: { host: "127.0.0.1", port: start.SIM_PORT, opcUaPort: start.OPCUA_SIM_PORT },
    agentLocalApiPort: start.AGENT_LOCAL_API_PORT,
    signal: abort.signal,
  });
  if (!result.ok) {
    say(`== the demo is not started: ${result.reason}.`);
    say(
      "== The server runs alone. For the demo, use an empty data directory: DATA_DIR=./data-demo npm start",
    );
    say(banner(base, await requiresSetup(probe), envPath, requestLogFile));
    return;
  }
  const { setup } = result;
  say(
    `== demo: account ${setup.accountCreated ? "created" : "reused"}, agent token ${setup.agentTokenIssued ? "issued" : "reused"}, ` +
      (setup.deployedVersion === null
        ? "configuration unchanged"
        : `configuration v${setup.deployedVersion} deployed`),
  );

  const simEnv = {
    ...childEnv,
    SIM_PORT: String(start.SIM_PORT),
    OPCUA_SIM_PORT: String(start.OPCUA_SIM_PORT),
    SIM_HOST: "127.0.0.1",
  };
  if (!supervisor.start(program("plc-sim", "scripts/sim/plc-simulator.ts", simEnv))) return;
  // The agent would retry, but with a back-off: let the simulator listen first.
  await waitForPort("127.0.0.1", start.SIM_PORT, 10_000, abort.signal);
  await waitForPort("127.0.0.1", start.OPCUA_SIM_PORT, 30_000, abort.signal);
  const agentEnv = { ...childEnv, AGENT_CONFIG: setup.agentConfigFile };
  if (!supervisor.start(program("agent", "agent/main.ts", agentEnv))) return;
  const agentStartedAt = Date.now();

  say(
    demoBanner({
      base,
      mqttHost: host.replace(/^\[|\]$/g, ""),
      mqttPort: config.MQTT_PORT === 0 ? null : config.MQTT_PORT,
      simPort: start.SIM_PORT,
      opcUaSimPort: start.OPCUA_SIM_PORT,
      agentLocalApiPort: start.AGENT_LOCAL_API_PORT,
      envFile: envPath,
      requestLogFile,
      nodePath: process.execPath,
      setup,
    }),
  );

  const flowing = await waitForTelemetry(
    probe,
    setup.assetIds.well,
    setup.accessToken,
    agentStartedAt,
    30_000,
    abort.signal,
  );
  if (supervisor.stopping) return;
  say(
    flowing
      ? `== telemetry is flowing: the well's first readings were stored ${((Date.now() - agentStartedAt) / 1000).toFixed(1)} s after the agent started`
      : `== no telemetry after 30 s: see the agent's lines above and http://127.0.0.1:${start.AGENT_LOCAL_API_PORT}/status`,
  );
}

/** A program of the system: node running one of this repository's entry points. */
function program(name: string, entry: string, programEnv: NodeJS.ProcessEnv) {
  return { name, command: process.execPath, args: [entry], cwd: root, env: programEnv };
}
