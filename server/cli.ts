import { SystemdNotifier } from "../shared/systemd-notify.ts";
import { ConfigError, loadServerConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { CaudalServer } from "./server.ts";

// caudal-server, loaded by main.ts. Configuration comes from the environment only.
let config: ReturnType<typeof loadServerConfig>;
try {
  config = loadServerConfig(process.env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`caudal-server: ${err.message}\n`);
  process.exit(1);
}

const logger = createLogger(config.LOG_LEVEL, undefined, config.LOG_FORMAT);
const server = new CaudalServer({ config, logger });
// Under systemd (systemd/caudal-server.service, Type=notify): READY=1 once every port listens.
const systemd = new SystemdNotifier();

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  systemd.stopping();
  logger.info("stopping", { signal });
  await server.stop();
  logger.info("stopped", {});
  process.exit(0);
}
// A closed terminal (SIGHUP) stops the server like Ctrl-C: an orderly close, not a dead process.
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const)
  process.on(signal, () => void shutdown(signal));

try {
  await server.start();
} catch (err) {
  logger.error("start-up failed", { error: err instanceof Error ? err.message : String(err) });
  await server.stop();
  process.exit(1);
}
if (!stopping) systemd.ready();
